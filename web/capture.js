// @ts-check
// capture.js saves what the designer sees, for a bug report: a PNG of the
// view, the timeline strip and the metrics table in one image, and a WebM
// recording of the view (MediaRecorder). Nothing leaves the browser: both
// are downloaded as files.

/** Longest recording, s: a clip for a bug report, not a screen recorder. */
export const MAX_RECORD_SECONDS = 10;

export class Capture {
  /**
   * @param {HTMLCanvasElement} view
   * @param {HTMLCanvasElement} timeline
   * @param {HTMLTableElement} metrics
   */
  constructor(view, timeline, metrics) {
    this.view = view;
    this.timeline = timeline;
    this.metrics = metrics;
    /** @type {MediaRecorder | null} */
    this.recorder = null;
    this.started = 0;
    /** @type {Blob | null} the last recording, kept for the page's tests */
    this.last = null;
    /** bytes recorded so far by the running recording */
    this.bytes = 0;
    /** @type {((b: Blob) => void) | null} */
    this.onRecorded = null;
    /** @type {number | undefined} */
    this.timer = undefined;
  }

  /**
   * png draws the view, the timeline and the metrics table into one image.
   * @returns {Promise<Blob>}
   */
  png() {
    const css = getComputedStyle(document.documentElement);
    const bg = css.getPropertyValue('--bg').trim() || '#0d1117';
    const fg = css.getPropertyValue('--text').trim() || '#e6edf3';
    const dpr = window.devicePixelRatio || 1;
    const rows = [...this.metrics.rows].map((r) => [...r.cells].map((c) => c.textContent?.trim() ?? ''));
    const line = 16 * dpr;
    const w = Math.max(this.view.width, this.timeline.width);
    const tableH = rows.length * line + 8 * dpr;
    const out = document.createElement('canvas');
    out.width = w;
    out.height = this.view.height + this.timeline.height + tableH;
    const ctx = out.getContext('2d');
    if (!ctx) return Promise.reject(new Error('no 2d context'));
    ctx.fillStyle = bg;
    ctx.fillRect(0, 0, out.width, out.height);
    ctx.drawImage(this.view, 0, 0);
    ctx.drawImage(this.timeline, 0, this.view.height);
    ctx.font = `${12 * dpr}px ui-monospace, monospace`;
    ctx.textBaseline = 'top';
    ctx.fillStyle = fg;
    const cols = Math.max(1, ...rows.map((r) => r.length));
    const colW = w / cols;
    rows.forEach((r, i) => {
      r.forEach((text, j) => ctx.fillText(text, 6 * dpr + j * colW, this.view.height + this.timeline.height + 4 * dpr + i * line, colW - 8 * dpr));
    });
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
   * record starts recording the view; it stops by itself after
   * MAX_RECORD_SECONDS, or at stop(). onRecorded gets the WebM.
   */
  record() {
    if (this.recorder) return;
    const type = ['video/webm;codecs=vp9', 'video/webm;codecs=vp8', 'video/webm'].find((t) => MediaRecorder.isTypeSupported(t));
    if (!type) throw new Error('this browser cannot record WebM');
    const rec = new MediaRecorder(this.view.captureStream(30), { mimeType: type });
    /** @type {Blob[]} */
    const chunks = [];
    rec.addEventListener('dataavailable', (e) => {
      if (e.data.size > 0) chunks.push(e.data);
      this.bytes += e.data.size;
    });
    rec.addEventListener('stop', () => {
      for (const t of rec.stream.getTracks()) t.stop();
      this.last = new Blob(chunks, { type: 'video/webm' });
      this.recorder = null;
      clearTimeout(this.timer);
      this.onRecorded?.(this.last);
    });
    this.bytes = 0;
    rec.start(250);
    this.recorder = rec;
    this.started = performance.now();
    this.timer = window.setTimeout(() => this.stop(), MAX_RECORD_SECONDS * 1000);
  }

  /** stop ends the recording, if one runs. */
  stop() {
    if (this.recorder && this.recorder.state !== 'inactive') this.recorder.stop();
  }
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
