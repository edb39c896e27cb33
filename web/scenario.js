// @ts-check
// scenario.js is the lab's scenario editor: the custom scenario's text,
// checked by the engine as it is typed (the line and field of an error
// shown under it), a strip of the conditions it gives over the run, and
// Apply, which runs it as scenario custom.

/** @typedef {import('./types/interplab').Interplab} Interplab */
/** @typedef {import('./types/interplab').ScenarioCheck} ScenarioCheck */

import { byId } from './dom.js';

const SAMPLES = 150; // columns of the preview strip

export class ScenarioEditor {
  /**
   * @param {Interplab} engine
   * @param {(text: string) => string} apply runs text as the custom
   *   scenario; returns "" or the engine's error
   * @param {() => string} builtin the text of the built-in scenario chosen, "" for none
   */
  constructor(engine, apply, builtin) {
    this.engine = engine;
    this.apply = apply;
    this.builtin = builtin;
    this.text = byId('scenario-text', HTMLTextAreaElement);
    this.error = byId('scenario-error', HTMLElement);
    this.canvas = byId('scenario-preview', HTMLCanvasElement);
    this.span = byId('scenario-span', HTMLElement);
    this.samples = new Float64Array(SAMPLES * engine.scenarioStride);
    /** @type {ScenarioCheck | null} the last check of the text */
    this.last = null;
    /** @type {number | undefined} */
    this.timer = undefined;
    this.text.addEventListener('input', () => {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.check(), 150);
    });
    this.text.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        this.run();
      }
    });
    byId('scenario-apply', HTMLButtonElement).addEventListener('click', () => this.run());
    byId('scenario-copy', HTMLButtonElement).addEventListener('click', () => {
      const t = this.builtin();
      if (t === '') return;
      this.text.value = t;
      this.check();
    });
  }

  /** value is the text in the editor. */
  get value() {
    return this.text.value;
  }

  /**
   * check asks the engine about the text, shows its error or draws its
   * conditions, and returns the check.
   * @returns {ScenarioCheck}
   */
  check() {
    clearTimeout(this.timer);
    const c = this.engine.checkScenario(this.text.value, this.samples);
    this.last = c;
    this.error.textContent = c.error;
    this.error.hidden = c.error === '';
    this.error.dataset.line = String(c.line);
    this.error.dataset.field = c.field;
    this.text.setAttribute('aria-invalid', String(c.error !== ''));
    this.span.textContent = c.error === '' && c.end > c.start ? `disturbs ${fmt(c.start)}–${fmt(c.end)} s of ${fmt(c.duration)} s` : '';
    this.draw(c);
    return c;
  }

  // run applies the text if it is good.
  run() {
    const c = this.check();
    if (c.error !== '') return;
    const err = this.apply(this.text.value);
    if (err) {
      this.error.textContent = err;
      this.error.hidden = false;
    }
  }

  /**
   * draw paints the preview strip: latency plus a spike's extra delay as a
   * line, loss as bars from the bottom, outages as a band.
   * @param {ScenarioCheck} c
   */
  draw(c) {
    const cv = this.canvas;
    const ctx = cv.getContext('2d');
    if (!ctx) return;
    const w = cv.width;
    const h = cv.height;
    ctx.clearRect(0, 0, w, h);
    const n = c.samples;
    if (c.error !== '' || n === 0) return;
    const k = this.engine.scenarioStride;
    const s = this.samples;
    let top = 0.05; // s: the scale of the delay line, at least 50 ms
    for (let i = 0; i < n; i++) top = Math.max(top, s[i * k] + s[i * k + 1] + s[i * k + 4]);
    const cw = w / n;
    const style = getComputedStyle(cv);
    for (let i = 0; i < n; i++) {
      const x = i * cw;
      if (s[i * k + 6] > 0) {
        ctx.fillStyle = style.getPropertyValue('--down').trim() || 'rgba(220, 60, 60, 0.35)';
        ctx.fillRect(x, 0, cw + 0.5, h);
      }
      const loss = Math.min(1, s[i * k + 2] + s[i * k + 5]);
      if (loss > 0) {
        ctx.fillStyle = style.getPropertyValue('--loss').trim() || 'rgba(230, 150, 30, 0.8)';
        const lh = Math.max(1, loss * h);
        ctx.fillRect(x, h - lh, cw + 0.5, lh);
      }
    }
    ctx.strokeStyle = style.getPropertyValue('--latency').trim() || '#3b82f6';
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    for (let i = 0; i < n; i++) {
      const d = s[i * k] + s[i * k + 1] + s[i * k + 4];
      const y = h - 2 - (d / top) * (h - 4);
      if (i === 0) ctx.moveTo(0, y);
      ctx.lineTo((i + 1) * cw, y);
    }
    ctx.stroke();
  }
}

/** @param {number} v seconds */
function fmt(v) {
  return String(Math.round(v * 100) / 100);
}
