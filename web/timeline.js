// @ts-check
// timeline.js draws the strip under the view: the last few seconds of the
// focus entity. On top, the network: the link's mean one-way delay at each
// send (blue; a scenario's ramps and spikes show in it) and its outages
// (red). Under it each packet from send to arrival (lost ones crossed); below, one lane per technique shows how far the render
// time is behind the newest snapshot (its line), the buffer depth (grey
// steps), extrapolating, frozen and held spans, idle holds (the sender
// deliberately sent nothing new: a pale band, never an underrun or a freeze),
// underruns (red band) and snaps (red marks).

import { techColor, onThemeChange } from './colors.js';
import { context2d } from './dom.js';
import { Labels, VIEW_CONTEXT } from './canvas.js';

const WINDOW = 3; // seconds shown
const MAX_FRAMES = 2048;
const MAX_PACKETS = 1024;
const GUTTER = 70; // CSS px of labels on the left
const MARGIN_SCALE = 0.25; // seconds of render margin at the top of a lane
const DEPTH_SCALE = 12; // snapshots of depth at the top of a lane

export class Timeline {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {{frameStride: number, frameTechStride: number, packetStride: number}} layout
   *   the record layout of interplab.timeline (the interplab object has it)
   */
  constructor(canvas, layout) {
    this.canvas = canvas;
    this.ctx = context2d(canvas, VIEW_CONTEXT); // drawn every frame: see VIEW_CONTEXT
    this.fs = layout.frameStride;
    this.ts = layout.frameTechStride;
    this.ps = layout.packetStride;
    this.frames = new Float64Array(MAX_FRAMES * this.fs);
    this.packets = new Float64Array(MAX_PACKETS * this.ps);
    /** @type {string[]} */
    this.techs = [];
    this.nf = 0;
    this.np = 0;
    // dirty says the next draw has something new to show (see View.dirty):
    // frames or packets, techniques, a new size or theme.
    this.dirty = true;
    /** @type {HTMLCanvasElement | null} what does not move with time: lanes, their names, the time axis (see backdrop) */
    this.back = null;
    // The canvas takes its size at its first draw and from the observer
    // (which reads it once layout is done), as the view's does: read in
    // draw, every animation frame, it forced a layout in the frame's
    // callback whenever input had changed the page since the last one.
    this.sized = false;
    this.labels = new Labels(); // the network strip's scale (Labels)
    /** device pixels per CSS pixel at the last resize */
    this.dpr = 0;
    new ResizeObserver(() => this.resize()).observe(canvas);
    onThemeChange(() => {
      this.back = null;
      this.dirty = true;
    });
  }

  clear() {
    this.nf = 0;
    this.np = 0;
    this.back = null;
    this.dirty = true;
  }

  /** @param {string[]} techs */
  setTechniques(techs) {
    this.techs = techs;
    this.clear();
  }

  /**
   * append copies n records of stride s from src to the end of ring, which
   * holds count of at most cap (a sliding window: the oldest fall off the
   * front), and returns how many it holds.
   * @param {Float64Array} ring
   * @param {number} count
   * @param {number} cap
   * @param {Float64Array} src
   * @param {number} n
   * @param {number} s
   */
  static append(ring, count, cap, src, n, s) {
    if (n >= cap) {
      ring.set(src.subarray((n - cap) * s, n * s));
      return cap;
    }
    const keep = Math.min(count, cap - n);
    ring.copyWithin(0, (count - keep) * s, count * s);
    ring.set(src.subarray(0, n * s), keep * s);
    return keep + n;
  }

  /**
   * add takes what interplab.timeline drained: np packets and nf frames.
   * @param {Float64Array} pk
   * @param {number} np
   * @param {Float64Array} fr
   * @param {number} nf
   */
  add(pk, np, fr, nf) {
    if (np === 0 && nf === 0) return;
    this.np = Timeline.append(this.packets, this.np, MAX_PACKETS, pk, np, this.ps);
    this.nf = Timeline.append(this.frames, this.nf, MAX_FRAMES, fr, nf, this.fs);
    this.dirty = true;
  }

  /** resize gives the canvas its laid-out size in device pixels. */
  resize() {
    const c = this.canvas;
    const dpr = window.devicePixelRatio || 1;
    const W = Math.round(c.clientWidth * dpr);
    const H = Math.round(c.clientHeight * dpr);
    if (c.width !== W || c.height !== H) {
      c.width = W;
      c.height = H;
      this.back = null;
      this.dirty = true;
    }
    if (dpr !== this.dpr) {
      this.back = null;
      this.dirty = true;
    }
    this.dpr = dpr;
    this.sized = true;
  }

  draw() {
    if (!this.sized) this.resize();
    const c = this.canvas;
    const dpr = this.dpr;
    const W = c.width;
    const H = c.height;
    if (!this.dirty) return; // the canvas shows this already: see dirty
    // Laid out to nothing (hidden, or measured mid-capture): a canvas of no
    // size cannot be drawn from, and the throw would end the page's frame
    // loop. It draws when it has a size again; dirty stays set till then.
    if (W === 0 || H === 0) return;
    this.dirty = false;
    const ctx = this.ctx;
    const g = GUTTER * dpr;
    const axisH = 16 * dpr;
    const netH = 14 * dpr;
    const pktH = netH + 30 * dpr;
    const laneH = Math.floor((H - axisH - pktH) / Math.max(1, this.techs.length));
    if (!this.back || this.back.width !== W || this.back.height !== H) this.back = this.backdrop(W, H, dpr, g, axisH, pktH, laneH);
    ctx.drawImage(this.back, 0, 0);
    if (this.nf === 0) return;

    const fs = this.fs;
    const now = this.frames[(this.nf - 1) * fs];
    const t0 = now - WINDOW;
    // Whole pixels: a canvas call given a fraction boxes it in a new heap
    // number, and at 60 frames a second those add up to a collection that
    // drops frames; a whole number goes as it is.
    const x = (/** @type {number} */ t) => Math.round(g + ((t - t0) / WINDOW) * (W - g));
    ctx.textBaseline = 'middle';

    this.drawNetwork(ctx, x, t0, dpr, netH);
    this.drawPackets(ctx, x, t0, dpr, netH, pktH);

    // One lane per technique (its background, name and zero line are the
    // backdrop's).
    let first = 0;
    while (first < this.nf && this.frames[first * fs] < t0) first++;
    const frameW = Math.max(1, Math.round((W - g) / (WINDOW * 60)));
    this.techs.forEach((name, k) => {
      const top = pktH + k * laneH;
      const bottom = top + laneH - 2 * dpr;
      const h = bottom - top;

      const base = 2 + k * this.ts;
      // Spans: extrapolating (amber), frozen (grey), held — the library
      // drew nothing and the game keeps the last pose — (violet), underrun
      // (red band); an idle hold (engine's idle metric) is a pale band
      // instead of a frozen span or an underrun. Each kind is one path of
      // rectangles filled once: a rectangle a frame, each with its own
      // fill and colour, cost a rasteriser on the CPU (WebKit's) a draw
      // call and a colour parse for every frame in the window.
      /**
       * @param {string} style
       * @param {number} y the spans' top
       * @param {number} sh their height
       * @param {(o: number) => boolean} want whether the frame at o has one
       */
      const spans = (style, y, sh, want) => {
        let any = false;
        ctx.beginPath();
        for (let i = first; i < this.nf; i++) {
          const o = i * fs;
          if (!want(o)) continue;
          ctx.rect(x(this.frames[o]) - frameW, y, frameW + 1, sh);
          any = true;
        }
        if (!any) return;
        ctx.fillStyle = style;
        ctx.fill();
      };
      const f = this.frames;
      spans('rgba(139, 148, 158, 0.12)', top, h, (o) => f[o + base + 7] !== 0);
      spans('rgba(210, 153, 34, 0.30)', top, h, (o) => f[o + base + 7] === 0 && f[o + base + 4] === 2);
      spans('rgba(139, 148, 158, 0.35)', top, h, (o) => f[o + base + 7] === 0 && f[o + base + 4] === 3);
      spans('rgba(188, 140, 255, 0.35)', top, h, (o) => f[o + base + 7] === 0 && f[o + base + 4] === 4);
      spans('#f85149', bottom - 3 * dpr, 3 * dpr, (o) => f[o + base + 7] === 0 && f[o + base + 4] !== 0 && f[o + base] > f[o + base + 1]);
      // Depth: grey steps.
      ctx.strokeStyle = 'rgba(139, 148, 158, 0.7)';
      ctx.lineWidth = dpr;
      ctx.beginPath();
      for (let i = first; i < this.nf; i++) {
        const o = i * fs;
        const y = Math.round(bottom - Math.min(1, this.frames[o + base + 2] / DEPTH_SCALE) * h);
        if (i === first) ctx.moveTo(x(this.frames[o]), y);
        else ctx.lineTo(x(this.frames[o]), y);
      }
      ctx.stroke();
      // Render margin: newest − render time, in the technique's colour;
      // below the dashed zero line the render time is past the newest.
      const zero = Math.round(bottom - h * 0.2);
      ctx.strokeStyle = techColor(name);
      ctx.lineWidth = dpr; // a hairline, as the view's trails (drawTrails)
      ctx.beginPath();
      let pen = false;
      for (let i = first; i < this.nf; i++) {
        const o = i * fs;
        if (this.frames[o + base + 4] === 0) {
          pen = false;
          continue;
        }
        const m = this.frames[o + base + 1] - this.frames[o + base];
        const y = Math.round(zero - Math.max(-0.25, Math.min(1, m / MARGIN_SCALE)) * (zero - top));
        if (!pen) ctx.moveTo(x(this.frames[o]), y);
        else ctx.lineTo(x(this.frames[o]), y);
        pen = true;
      }
      ctx.stroke();
      // Snaps.
      const snaps = new Path2D();
      for (let i = first; i < this.nf; i++) {
        const o = i * fs;
        if (this.frames[o + base + 5] !== 0) snaps.rect(x(this.frames[o]) - dpr, top, 2 * dpr, Math.round(h * 0.4));
      }
      ctx.fillStyle = '#ff7b72';
      ctx.fill(snaps);
    });
  }

  /**
   * backdrop draws what the strip shows whatever the run: the background,
   * each technique's lane with its name and dashed zero line, the packets'
   * label and the time axis (seconds before the latest frame, which is
   * always at the right edge). draw copies it in one call each frame
   * instead of drawing its text and dashes again, which cost a CPU
   * rasteriser more than the data over it.
   * @param {number} W
   * @param {number} H
   * @param {number} dpr
   * @param {number} g the gutter's width
   * @param {number} axisH the time axis's height
   * @param {number} pktH the bottom of the packets
   * @param {number} laneH a lane's height
   */
  backdrop(W, H, dpr, g, axisH, pktH, laneH) {
    const b = document.createElement('canvas');
    b.width = W;
    b.height = H;
    const ctx = context2d(b, VIEW_CONTEXT);
    ctx.fillStyle = '#0d1117';
    ctx.fillRect(0, 0, W, H);
    ctx.font = `${10 * dpr}px ui-monospace, monospace`;
    ctx.textBaseline = 'middle';
    const netH = 14 * dpr;
    ctx.fillStyle = '#8b949e';
    ctx.fillText('packets', 6 * dpr, (netH + pktH) / 2);
    this.techs.forEach((name, k) => {
      const top = pktH + k * laneH;
      const bottom = top + laneH - 2 * dpr;
      ctx.fillStyle = k % 2 ? '#10151c' : '#0f141a';
      ctx.fillRect(g, top, W - g, laneH);
      ctx.fillStyle = techColor(name);
      ctx.fillText(name, 6 * dpr, top + laneH / 2);
      const zero = Math.round(bottom - (bottom - top) * 0.2);
      ctx.strokeStyle = 'rgba(139, 148, 158, 0.4)';
      ctx.lineWidth = dpr;
      ctx.setLineDash([2 * dpr, 3 * dpr]);
      ctx.beginPath();
      ctx.moveTo(g, zero);
      ctx.lineTo(W, zero);
      ctx.stroke();
      ctx.setLineDash([]);
    });
    // Time axis: seconds before the latest frame.
    ctx.fillStyle = '#8b949e';
    ctx.strokeStyle = 'rgba(139, 148, 158, 0.25)';
    ctx.lineWidth = dpr;
    ctx.textBaseline = 'alphabetic';
    for (let s = 0; s <= WINDOW; s += 0.5) {
      const tx = Math.round(g + ((WINDOW - s) / WINDOW) * (W - g));
      ctx.beginPath();
      ctx.moveTo(tx, 0);
      ctx.lineTo(tx, H - axisH);
      ctx.stroke();
      ctx.fillText(s === 0 ? 'now' : `−${s.toFixed(1)} s`, Math.min(tx, W - 28 * dpr) - 10 * dpr, H - 4 * dpr);
    }
    return b;
  }

  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {(t: number) => number} x the x of time t
   * @param {number} t0
   * @param {number} dpr
   * @param {number} netH the height of the network strip above the packets
   */
  drawNetwork(ctx, x, t0, dpr, netH) {
    const ps = this.ps;
    // The scale: the largest delay in view, at least 100 ms.
    let most = 0.1;
    for (let i = 0; i < this.np; i++) {
      const o = i * ps;
      if (this.packets[o + 1] >= t0) most = Math.max(most, this.packets[o + 8]);
    }
    this.labels.draw(ctx, `net ${Math.round(most * 1000)} ms`, `${10 * dpr}px ui-monospace, monospace`, '#8b949e', 6 * dpr, netH / 2);
    const top = 2 * dpr;
    const bottom = netH - 2 * dpr;
    ctx.strokeStyle = '#58a6ff';
    ctx.lineWidth = dpr;
    const outages = new Path2D();
    ctx.beginPath();
    let started = false;
    for (let i = 0; i < this.np; i++) {
      const o = i * ps;
      const sent = this.packets[o + 1];
      if (sent < t0) continue;
      const sx = x(sent);
      // An outage: nothing arrives.
      if (this.packets[o + 9] !== 0) outages.rect(sx - dpr, top, 3 * dpr, bottom - top);
      const y = Math.round(bottom - (this.packets[o + 8] / most) * (bottom - top));
      if (started) ctx.lineTo(sx, y);
      else ctx.moveTo(sx, y);
      started = true;
    }
    ctx.fillStyle = 'rgba(248, 81, 73, 0.45)';
    ctx.fill(outages);
    ctx.stroke();
  }

  /**
   * @param {CanvasRenderingContext2D} ctx
   * @param {(t: number) => number} x the x of time t
   * @param {number} t0
   * @param {number} dpr
   * @param {number} netH the top of the packets
   * @param {number} pktH the bottom of the packets
   */
  drawPackets(ctx, x, t0, dpr, netH, pktH) {
    const ps = this.ps;
    const top = netH + 4 * dpr;
    const bottom = pktH - 6 * dpr;
    const r = 3 * dpr;
    // Three paths, each drawn once: the lost packets' crosses, the
    // arrivals' lines, and their marks (a second one for a duplicate). A
    // stroke a packet cost a CPU rasteriser a draw call each.
    const lost = new Path2D();
    const lines = new Path2D();
    const marks = new Path2D();
    for (let i = 0; i < this.np; i++) {
      const o = i * ps;
      const sent = this.packets[o + 1];
      const arrive = this.packets[o + 3];
      if (sent < t0 && !(arrive >= t0)) continue;
      const sx = x(sent);
      if (Number.isNaN(arrive)) {
        lost.moveTo(sx - r, top);
        lost.lineTo(sx + r, top + 2 * r);
        lost.moveTo(sx + r, top);
        lost.lineTo(sx - r, top + 2 * r);
        continue;
      }
      const ax = x(arrive);
      lines.moveTo(sx, top);
      lines.lineTo(ax, bottom);
      marks.rect(ax - dpr, bottom - 2 * dpr, 2 * dpr, 6 * dpr);
      if (this.packets[o + 4] !== 0) marks.rect(ax + 2 * dpr, bottom - 2 * dpr, 2 * dpr, 6 * dpr);
    }
    ctx.lineWidth = dpr;
    ctx.strokeStyle = '#f85149';
    ctx.stroke(lost);
    ctx.strokeStyle = 'rgba(139, 148, 158, 0.45)';
    ctx.stroke(lines);
    ctx.fillStyle = '#c9d1d9';
    ctx.fill(marks);
  }
}
