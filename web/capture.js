// @ts-check
// capture.js saves what the designer sees, for a bug report. The PNG is one
// image that stands alone: when and where it was taken (the time, the
// run's clock, the link that reopens the state), the view, or with the A/B
// view pinned both views side by side, each with its legend, the timeline,
// the metrics (and the A/B deltas), and the settings that differ from the
// preset. The WebM records the view, or both views side by side, composed
// onto one canvas each animation frame with their legends and the clock,
// and that canvas's stream is recorded (MediaRecorder); where MediaRecorder
// records no WebM (WebKit, Safari's engine) the canvas's frames are encoded
// with WebCodecs and written into a WebM (webm.js). Nothing leaves the
// browser: both are downloaded as files.
//
// Every piece of text a capture draws is also kept, with its box, in
// `drawn` (and each recording's layout in `recorded`): what a test reads to
// check the image says what it should, where it should.

import { techColor } from './colors.js';
import { context2d } from './dom.js';
import { WebMRecorder } from './webm.js';

/** Longest recording, s: a clip for a bug report, not a screen recorder. */
export const MAX_RECORD_SECONDS = 10;

/** Frames per second a recording composes and records. */
const RECORD_FPS = 30;

/**
 * WEBM_TYPES are the WebM formats a recording asks MediaRecorder for, best
 * first (Chromium, Firefox). Where MediaRecorder has none, a recording is
 * a WebM of WebCodecs (WebMRecorder), and where those are missing too, an
 * MP4 of MediaRecorder (MP4_TYPES: H.264, as older Safari records).
 */
const WEBM_TYPES = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'];
const MP4_TYPES = ['video/mp4;codecs=avc1', 'video/mp4'];

/**
 * recordingType returns the first of types this browser's MediaRecorder
 * records, or '' when it records none of them (or has no MediaRecorder).
 * @param {string[]} types
 * @returns {string}
 */
function recordingType(types) {
  if (typeof MediaRecorder === 'undefined') return '';
  return types.find((t) => MediaRecorder.isTypeSupported(t)) ?? '';
}

/**
 * recordingExt returns the file extension of a recording of MIME type type.
 * @param {string} type
 */
export function recordingExt(type) {
  return type.startsWith('video/mp4') ? 'mp4' : 'webm';
}

/**
 * @typedef {{canvas: HTMLCanvasElement, title: string, legend: string[]}} CaptureView
 *   a view to capture: its canvas, a line over it saying which run it is,
 *   and its legend (technique names, in order)
 * @typedef {{views: () => CaptureView[], timeline: HTMLCanvasElement, tables: () => HTMLTableElement[],
 *   title: () => string, settings: () => {from: string, list: string[]}, link: () => string, clock: () => string}} CapturePage
 *   what a capture takes from the lab page: its views, the timeline strip,
 *   the metrics tables, what it shows (a preset, a session), the settings
 *   that differ from that ("the preset", "the saved revision") as
 *   "name = value" lines, the link that reopens the state, and the run's
 *   clock
 * @typedef {{kind: string, text: string, x: number, y: number, w: number, h: number}} DrawnText
 *   a piece of text drawn, with its box in the image's pixels
 * @typedef {{x: number, y: number, w: number, h: number}} Box
 * @typedef {{width: number, height: number, texts: DrawnText[], views: Box[]}} Drawn
 *   what a capture drew
 */

const BG = '#0d1117'; // the stage's colour: canvases, timeline and the capture's own
const FG = '#d5dce4';
const MUTED = '#8b949e';
const FONT = 'ui-monospace, "DejaVu Sans Mono", monospace';

export class Capture {
  /** @param {CapturePage} page */
  constructor(page) {
    this.page = page;
    /** @type {MediaRecorder | WebMRecorder | null} the running recording's recorder */
    this.recorder = null;
    /** whether record() is deciding how to record (WebMRecorder.choose is async) */
    this.starting = false;
    /** for the tests: record through WebCodecs (WebMRecorder) even where MediaRecorder records WebM */
    this.preferWebCodecs = false;
    /** @type {string} how the running (or last) recording records: 'MediaRecorder video/webm;codecs=vp9', 'WebCodecs vp8' */
    this.via = '';
    /** frames of the running (or last) WebCodecs recording: composed, and of those not encoded because the encoder was behind */
    this.encoded = { frames: 0, dropped: 0 };
    this.started = 0;
    /** @type {Blob | null} the last recording, kept for the page's tests */
    this.last = null;
    /** bytes recorded so far by the running recording */
    this.bytes = 0;
    /** @type {((b: Blob) => void) | null} */
    this.onRecorded = null;
    /** @type {((message: string) => void) | null} called instead of onRecorded when the browser recorded nothing, or its encoder failed */
    this.onEmpty = null;
    /** @type {number | undefined} */
    this.timer = undefined;
    /** @type {Drawn | null} what the last PNG drew */
    this.drawn = null;
    /** @type {Drawn | null} the layout of the running (or last) recording's frames */
    this.recorded = null;
    /** @type {HTMLCanvasElement | null} the canvas a recording composes its frames on */
    this.stage = null;
    /** @type {CaptureView[]} the views the running recording composes */
    this.recordingViews = [];
    /** @type {{draw: ((ctx: CanvasRenderingContext2D) => void)[], texts: DrawnText[]}} the running recording's strip over its views, laid out once */
    this.header = { draw: [], texts: [] };
    this.composedAt = -Infinity; // when frame() last composed, ms (performance.now)
  }

  /**
   * png draws the bug report image.
   * @returns {Promise<Blob>}
   */
  png() {
    const dpr = window.devicePixelRatio || 1;
    const views = this.page.views();
    const gap = 8 * dpr;
    const m = 12 * dpr;
    const line = 16 * dpr;
    const viewsW = views.reduce((w, v) => w + v.canvas.width, 0) + gap * (views.length - 1);
    const W = Math.max(viewsW, this.page.timeline.width, 720 * dpr) + 2 * m;
    const inner = W - 2 * m;
    const scratch = context2d(document.createElement('canvas'));
    const font = (/** @type {number} */ px, bold = false) => `${bold ? 'bold ' : ''}${px * dpr}px ${FONT}`;

    // Lay everything out first (the canvas's size must be known before it
    // is drawn on), then draw.
    /** @type {((ctx: CanvasRenderingContext2D) => void)[]} */
    const ops = [];
    /** @type {DrawnText[]} */
    const texts = [];
    /** @type {Box[]} */
    const boxes = [];
    let y = m;
    /**
     * text lays out one line of text at (x, y), its top; it returns its width.
     * @param {string} kind
     * @param {string} s
     * @param {number} x
     * @param {string} f
     * @param {string} color
     * @param {number} [maxW]
     */
    const text = (kind, s, x, f, color, maxW) => {
      scratch.font = f;
      const w = Math.min(scratch.measureText(s).width, maxW ?? Infinity);
      const top = y;
      ops.push((ctx) => {
        ctx.font = f;
        ctx.fillStyle = color;
        ctx.textBaseline = 'top';
        ctx.fillText(s, x, top, maxW);
      });
      texts.push({ kind, text: s, x, y: top, w, h: line * 0.8 });
      return w;
    };
    /**
     * para lays out text wrapped to the inner width, breaking at spaces (or
     * anywhere in a word longer than a line, as a link is).
     * @param {string} kind
     * @param {string} s
     * @param {string} f
     * @param {string} color
     */
    const para = (kind, s, f, color) => {
      scratch.font = f;
      for (const l of wrap(scratch, s, inner)) {
        text(kind, l, m, f, color);
        y += line;
      }
    };

    para('title', `Interp Lab · ${this.page.title()}`, font(13, true), FG);
    para('time', `captured ${localTime(new Date())} · ${this.page.clock()}`, font(12), FG);
    para('link', this.page.link(), font(12), '#58a6ff');
    y += line / 2;

    // The views, side by side, each under its title and legend.
    let x = m;
    const top = y;
    let bottom = y;
    for (const v of views) {
      y = top;
      text('view-title', v.title, x, font(12, true), FG, v.canvas.width);
      y += line;
      let lx = x;
      for (const name of ['truth', ...v.legend]) {
        const label = name === 'truth' ? 'ground truth' : name;
        const cx = lx + 5 * dpr;
        const cy = y + 6 * dpr;
        ops.push((ctx) => swatch(ctx, name, cx, cy, 4.5 * dpr, dpr));
        lx += 14 * dpr + text('legend', label, lx + 14 * dpr, font(12), FG) + 10 * dpr;
      }
      y += line + 2 * dpr;
      const src = v.canvas;
      const at = { x, y, w: src.width, h: src.height };
      ops.push((ctx) => ctx.drawImage(src, at.x, at.y));
      boxes.push(at);
      bottom = Math.max(bottom, y + src.height);
      x += src.width + gap;
    }
    y = bottom + gap;
    const tl = this.page.timeline;
    const tlY = y;
    ops.push((ctx) => ctx.drawImage(tl, m, tlY));
    y += tl.height + line;

    // The metrics tables, as text in columns.
    for (const table of this.page.tables()) {
      const rows = [...table.rows].map((r) => [...r.cells].map((c) => c.textContent?.replace(/\s+/g, ' ').trim() ?? ''));
      if (rows.length === 0) continue;
      const caption = table.closest('section, div')?.querySelector('h2')?.firstChild?.textContent?.trim() ?? '';
      if (caption) {
        text('table-title', caption, m, font(12, true), FG);
        y += line;
      }
      scratch.font = font(12);
      const cols = Math.max(...rows.map((r) => r.length));
      const widths = Array.from({ length: cols }, (_, j) => Math.max(...rows.map((r) => scratch.measureText(r[j] ?? '').width)) + 14 * dpr);
      const scale = Math.min(1, inner / widths.reduce((a, b) => a + b, 0));
      for (const [i, r] of rows.entries()) {
        let cx = m;
        r.forEach((cell, j) => {
          const w = widths[j] * scale;
          const color = i === 0 && j > 0 ? techColor(cell) : FG; // the header names techniques
          text(j === 0 ? 'metric' : 'value', cell, cx, font(12, i === 0), color, w - 6 * dpr);
          cx += w;
        });
        y += line;
      }
      y += line / 2;
    }

    const changed = this.page.settings();
    para('settings-title', changed.list.length ? `Settings that differ from ${changed.from}:` : `Settings: those of ${changed.from}, unchanged.`, font(12, true), FG);
    for (const s of changed.list) para('setting', s, font(12), FG);
    y += m - line / 2;

    const out = document.createElement('canvas');
    out.width = Math.ceil(W);
    out.height = Math.ceil(y);
    const ctx = context2d(out);
    ctx.fillStyle = BG;
    ctx.fillRect(0, 0, out.width, out.height);
    for (const op of ops) op(ctx);
    this.drawn = { width: out.width, height: out.height, texts, views: boxes };
    return new Promise((resolve, reject) => out.toBlob((b) => (b ? resolve(b) : reject(new Error('toBlob failed'))), 'image/png'));
  }

  /** recording tells whether a recording runs. */
  get recording() {
    return this.recorder !== null;
  }

  /** elapsed returns the seconds recorded so far, 0 when not recording. */
  elapsed() {
    return this.recorder ? (performance.now() - this.started) / 1000 : 0;
  }

  /**
   * record starts recording the view, or both views of the A/B view side
   * by side, as they are when it starts; it stops by itself after
   * MAX_RECORD_SECONDS, or at stop(). onRecorded gets the video: a WebM
   * of MediaRecorder, or of WebCodecs where MediaRecorder records no WebM,
   * or else an MP4 of MediaRecorder. It resolves once the recording runs
   * (choosing how takes a moment: WebMRecorder.choose), and rejects with
   * a message for the designer when the browser cannot record. The page
   * calls frame() after it draws each animation frame.
   * @returns {Promise<void>}
   */
  async record() {
    if (this.recorder || this.starting) return;
    this.starting = true;
    try {
      await this.start();
    } finally {
      this.starting = false;
    }
  }

  /** start lays the recording out, chooses how to record it, and starts it. */
  async start() {
    const dpr = window.devicePixelRatio || 1;
    const views = this.page.views();
    const gap = 8 * dpr;
    const head = 22 * dpr; // a strip over each view: its title and legend
    const foot = 20 * dpr; // the clock
    /** @type {Box[]} */
    const slots = [];
    let x = 0;
    for (const v of views) {
      slots.push({ x, y: head, w: v.canvas.width, h: v.canvas.height });
      x += v.canvas.width + gap;
    }
    const stage = document.createElement('canvas');
    // Even sides: VP8, VP9 and H.264 code 2×2 blocks of chroma.
    stage.width = 2 * Math.ceil((x - gap) / 2);
    stage.height = 2 * Math.ceil((head + Math.max(...slots.map((s) => s.h)) + foot) / 2);

    const webmType = this.preferWebCodecs ? '' : recordingType(WEBM_TYPES);
    const codec = webmType ? null : await WebMRecorder.choose(stage.width, stage.height, RECORD_FPS);
    const type = webmType || (codec ? '' : recordingType(MP4_TYPES));
    if (!codec && !type) throw new Error('this browser cannot record video (neither WebM nor MP4): the PNG still works');

    this.stage = stage;
    this.recordingViews = views;
    this.header = layOutHeader(context2d(stage, { alpha: false }), views, slots);
    this.recorded = { width: stage.width, height: stage.height, texts: [], views: slots };
    this.composedAt = -Infinity;
    this.bytes = 0;
    this.encoded = { frames: 0, dropped: 0 };
    this.started = performance.now();
    if (codec) {
      this.via = `WebCodecs ${codec.codec}`;
      this.recorder = new WebMRecorder(stage, codec, RECORD_FPS, {
        bytes: (n) => { this.bytes += n; },
        error: (message) => this.fail(message),
      });
    } else {
      this.via = `MediaRecorder ${type}`;
      this.recorder = this.mediaRecorder(stage, type);
    }
    this.frame();
    this.timer = window.setTimeout(() => this.stop(), MAX_RECORD_SECONDS * 1000);
  }

  /**
   * mediaRecorder starts recording stage's stream as type with MediaRecorder.
   * @param {HTMLCanvasElement} stage
   * @param {string} type
   */
  mediaRecorder(stage, type) {
    const rec = new MediaRecorder(stage.captureStream(RECORD_FPS), { mimeType: type });
    /** @type {Blob[]} */
    const chunks = [];
    rec.addEventListener('dataavailable', (e) => {
      if (e.data.size > 0) chunks.push(e.data);
      this.bytes += e.data.size;
    });
    rec.addEventListener('stop', () => {
      for (const t of rec.stream.getTracks()) t.stop();
      this.last = new Blob(chunks, { type: type.split(';')[0] });
      this.end();
      // WebKitGTK 2.50 on Debian 12 offers MP4 and records no data: say
      // so instead of saving an empty file.
      if (this.last.size === 0) this.onEmpty?.(`this browser recorded nothing (its MediaRecorder gave no ${type} data): the PNG still works`);
      else this.onRecorded?.(this.last);
    });
    rec.start(250);
    return rec;
  }

  /** end forgets the recording that ended. */
  end() {
    this.recorder = null;
    this.stage = null;
    clearTimeout(this.timer);
  }

  /**
   * fail ends the recording after its encoder failed, saving nothing.
   * @param {string} message
   */
  fail(message) {
    if (this.recorder instanceof WebMRecorder) this.recorder.close();
    this.end();
    this.onEmpty?.(`${message}: nothing was recorded; the PNG still works`);
  }

  /**
   * frame composes the views' latest frames onto the recording's canvas,
   * each in its slot under its title and legend, with the clock below, at
   * most RECORD_FPS times a second: copying a view makes the browser draw
   * it out at once, on this thread (about 5 ms a view in headless Chromium
   * without a GPU), so frames the stream would not keep are not composed.
   */
  frame() {
    const stage = this.stage;
    const rec = this.recorded;
    if (!stage || !rec) return;
    const now = performance.now();
    if (now - this.composedAt < 1000 / RECORD_FPS - 4) return;
    this.composedAt = now;
    const dpr = window.devicePixelRatio || 1;
    const ctx = context2d(stage, { alpha: false });
    ctx.fillStyle = BG;
    ctx.fillRect(0, 0, stage.width, stage.height);
    this.recordingViews.forEach((v, i) => {
      const s = rec.views[i];
      ctx.drawImage(v.canvas, s.x, s.y, s.w, s.h);
    });
    ctx.textBaseline = 'middle';
    for (const op of this.header.draw) op(ctx);
    // Only the clock changes from frame to frame.
    const clock = this.page.clock();
    ctx.font = `${12 * dpr}px ${FONT}`;
    ctx.fillStyle = MUTED;
    const cy = stage.height - 10 * dpr;
    ctx.fillText(clock, 6 * dpr, cy);
    rec.texts = [...this.header.texts, { kind: 'time', text: clock, x: 6 * dpr, y: cy - 8 * dpr, w: ctx.measureText(clock).width, h: 16 * dpr }];
    if (this.recorder instanceof WebMRecorder) {
      this.recorder.add((now - this.started) * 1000);
      this.encoded = { frames: this.recorder.added + this.recorder.dropped, dropped: this.recorder.dropped };
    }
  }

  /**
   * stop ends the recording, if one runs; onRecorded (or onEmpty) follows
   * once the recorder has written it out.
   */
  stop() {
    const rec = this.recorder;
    if (rec instanceof WebMRecorder) {
      if (rec.done) return;
      rec.finish().then((blob) => {
        this.last = blob;
        this.end();
        this.onRecorded?.(blob);
      }, (/** @type {unknown} */ e) => {
        if (this.recorder === rec) this.fail(e instanceof Error ? e.message : String(e));
      });
    } else if (rec && rec.state !== 'inactive') {
      rec.stop();
    }
  }
}

/**
 * layOutHeader lays out, once per recording, the strip over each view in
 * its slot: its title, then its legend. It returns what draws it (with
 * ctx.textBaseline 'middle') and the texts it draws.
 * @param {CanvasRenderingContext2D} ctx the recording's canvas, to measure with
 * @param {CaptureView[]} views
 * @param {Box[]} slots
 * @returns {{draw: ((ctx: CanvasRenderingContext2D) => void)[], texts: DrawnText[]}}
 */
function layOutHeader(ctx, views, slots) {
  const dpr = window.devicePixelRatio || 1;
  const bold = `bold ${12 * dpr}px ${FONT}`;
  const plain = `${12 * dpr}px ${FONT}`;
  /** @type {((ctx: CanvasRenderingContext2D) => void)[]} */
  const ops = [];
  /** @type {DrawnText[]} */
  const texts = [];
  /**
   * text lays out s at (x, y) in font f; it returns its width.
   * @param {string} kind
   * @param {string} s
   * @param {number} x
   * @param {number} y
   * @param {number} h the strip's height
   * @param {string} f
   */
  const text = (kind, s, x, y, h, f) => {
    ctx.font = f;
    const w = ctx.measureText(s).width;
    ops.push((c) => {
      c.font = f;
      c.fillStyle = FG;
      c.fillText(s, x, y);
    });
    texts.push({ kind, text: s, x, y: 0, w, h });
    return w;
  };
  views.forEach((v, i) => {
    const s = slots[i];
    const y = s.y / 2;
    let x = s.x + 6 * dpr;
    x += text('view-title', v.title, x, y, s.y, bold) + 12 * dpr;
    for (const name of ['truth', ...v.legend]) {
      const sx = x + 4 * dpr;
      ops.push((c) => swatch(c, name, sx, y, 4 * dpr, dpr));
      x += text('legend', name === 'truth' ? 'ground truth' : name, x + 12 * dpr, y, s.y, plain) + 22 * dpr;
    }
  });
  return { draw: ops, texts };
}

/**
 * swatch draws the legend's mark of name centred at (x, y), of radius r: a
 * ring for the ground truth ('truth'), a dot of the technique's colour.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} name
 * @param {number} x
 * @param {number} y
 * @param {number} r
 * @param {number} dpr
 */
function swatch(ctx, name, x, y, r, dpr) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  if (name === 'truth') {
    ctx.strokeStyle = techColor(name);
    ctx.lineWidth = 1.5 * dpr;
    ctx.stroke();
  } else {
    ctx.fillStyle = techColor(name);
    ctx.fill();
  }
}

/**
 * wrap breaks s into lines no wider than width in ctx's font: at spaces,
 * or anywhere in a word longer than a line.
 * @param {CanvasRenderingContext2D} ctx
 * @param {string} s
 * @param {number} width
 * @returns {string[]}
 */
export function wrap(ctx, s, width) {
  const lines = [];
  let cur = '';
  for (const word of s.split(' ')) {
    const next = cur ? cur + ' ' + word : word;
    if (ctx.measureText(next).width <= width) {
      cur = next;
      continue;
    }
    if (cur) lines.push(cur);
    cur = '';
    let rest = word;
    while (ctx.measureText(rest).width > width) {
      let n = rest.length - 1;
      while (n > 1 && ctx.measureText(rest.slice(0, n)).width > width) n--;
      lines.push(rest.slice(0, n));
      rest = rest.slice(n);
    }
    cur = rest;
  }
  if (cur || lines.length === 0) lines.push(cur);
  return lines;
}

/**
 * localTime writes d as the designer's local date and time with its offset
 * from UTC: 2026-11-24 17:50:03 UTC+01:00.
 * @param {Date} d
 */
export function localTime(d) {
  const p = (/** @type {number} */ n) => String(n).padStart(2, '0');
  const off = -d.getTimezoneOffset();
  const sign = off < 0 ? '−' : '+';
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())} ` +
    `UTC${sign}${p(Math.floor(Math.abs(off) / 60))}:${p(Math.abs(off) % 60)}`;
}

/**
 * download saves blob as a file named name.
 * @param {Blob} blob
 * @param {string} name
 */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** stamp names a capture after the time it was taken: 2026-11-24T17-50-03. */
export function stamp() {
  return new Date().toISOString().slice(0, 19).replaceAll(':', '-');
}
