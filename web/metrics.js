// @ts-check
// metrics.js shows the engine's metrics, one column per technique and one
// row per metric (engine.MetricFields), in display units. Every metric is
// best at zero; the best value of each row is highlighted. Three are never
// ranked: a negative added latency (a display that leads the truth,
// overshoot rather than a win), the underrun of a technique that draws
// past its newest packet by design (epic, epicfix: always 100%, see
// engine.UnderrunByDesign), both marked and explained instead, and idle
// (holds while the sender deliberately sent nothing: no fault).

import { techColor } from './colors.js';
import { readable } from './format.js';

/** @typedef {import('./types/interplab').MetricField} MetricField */

export class MetricsPanel {
  /**
   * @param {HTMLTableElement} table
   * @param {MetricField[]} fields interplab.metricFields()
   */
  constructor(table, fields) {
    this.table = table;
    this.fields = fields;
    /** @type {string[]} */
    this.techs = [];
    /** @type {HTMLTableCellElement[][]} cells[metric][technique] */
    this.cells = [];
    /** @type {boolean[]} per technique, whether its underrun is 100% by design */
    this.byDesign = [];
    /** @type {HTMLTableCellElement[]} the game-delay cell of each technique */
    this.delayCells = [];
    /** @type {HTMLTableCellElement[]} the live game-delay cell of each technique */
    this.liveCells = [];
  }

  /**
   * setTechniques rebuilds the table for the running techniques.
   * @param {string[]} techs
   * @param {boolean[]} [byDesign] per technique, whether its underrun is 100% by design (interplab.underrunByDesign)
   */
  setTechniques(techs, byDesign = []) {
    this.techs = techs;
    this.byDesign = techs.map((_, i) => !!byDesign[i]);
    const t = this.table;
    t.replaceChildren();
    const head = t.createTHead().insertRow();
    head.appendChild(document.createElement('th'));
    for (const name of techs) {
      const th = document.createElement('th');
      th.textContent = name;
      th.style.color = techColor(name);
      th.dataset.tech = name;
      head.appendChild(th);
    }
    // The delay a game built on each technique's library has, counted the
    // library's way (Mirror: bufferTime plus NetworkTransform's offset):
    // what these settings give in steady state, and beneath it what the
    // technique's state gives now (Mirror's dynamic adjustment, ...).
    // Two rows, not one cell, so the columns stay as narrow as the numbers.
    /**
     * @param {string} className
     * @param {string} label
     * @param {string} title
     */
    const delayRow = (className, label, title) => {
      const row = t.tHead?.insertRow();
      if (!row) return [];
      row.className = className;
      const th = document.createElement('th');
      th.scope = 'row';
      th.title = title;
      th.append(label, Object.assign(document.createElement('small'), { textContent: 'ms' }));
      row.appendChild(th);
      return techs.map((name) => {
        const td = document.createElement('td');
        td.dataset.tech = name;
        td.textContent = '–';
        row.appendChild(td);
        return td;
      });
    };
    this.delayCells = delayRow('game-delay', 'game delay ',
      "The display delay behind the newest snapshot that a game built on the technique's library has with these settings, in steady state on a steady link, " +
      'counted the way the library counts it; – where the technique has no such delay. The row beneath is the same delay as the run has it now.');
    this.liveCells = delayRow('game-delay-now', 'now ',
      "The game delay as the technique's state gives it on the latest frame, averaged over the entities: Mirror's bufferTime as dynamic adjustment moves it, " +
      "the buffer's adaptive delay, NGO's and Source's clocks, geckos' time offset. The row above is the steady-state figure these settings give.");
    const body = t.createTBody();
    this.cells = this.fields.map((f) => {
      const row = body.insertRow();
      row.dataset.metric = f.name;
      const th = document.createElement('th');
      th.scope = 'row';
      th.title = f.doc;
      const name = document.createElement('span');
      name.textContent = f.name;
      const unit = document.createElement('small');
      unit.textContent = f.display;
      th.append(name, ' ', unit);
      row.appendChild(th);
      return techs.map((name) => {
        const td = row.insertCell();
        td.dataset.tech = name;
        td.textContent = '–';
        return td;
      });
    });
  }

  /**
   * showDelays displays each technique's game delay, s: in steady state
   * (interplab.delays) and, in the row beneath, on the latest frame
   * (interplab.liveDelays).
   * @param {number[]} delays
   * @param {number[]} live
   */
  showDelays(delays, live) {
    this.delayCells.forEach((td, i) => setText(td, formatShown(delays[i] * 1000)));
    this.liveCells.forEach((td, i) => setText(td, formatShown(live[i] * 1000)));
  }

  /**
   * show displays values: per technique, the fields in order (interplab.metrics).
   * @param {Float64Array} values
   */
  show(values) {
    const nf = this.fields.length;
    this.fields.forEach((f, j) => {
      // Every metric is best at 0. Only the added latency can go below (a
      // display ahead of the truth): that is overshoot, not a win, so it
      // is never best. An underrun by design is never ranked either, nor
      // is idle, which is no fault.
      /** @param {number} i @param {number} v */
      const unranked = (i, v) =>
        f.name === 'idle' || (f.name === 'addedLatency' && v < 0) || (f.name === 'underrun' && this.byDesign[i]);
      let best = Infinity;
      let worst = -Infinity;
      for (let i = 0; i < this.techs.length; i++) {
        const v = values[i * nf + j];
        if (unranked(i, v)) continue;
        best = Math.min(best, Math.abs(v));
        worst = Math.max(worst, Math.abs(v));
      }
      for (let i = 0; i < this.techs.length; i++) {
        const v = values[i * nf + j];
        const td = this.cells[j][i];
        let text = f.unit === 'count' ? String(Math.round(v * f.scale)) : formatShown(v * f.scale);
        let title = '';
        const skip = unranked(i, v);
        if (f.name === 'addedLatency') {
          title = v < 0 ? `The display leads the truth by ${formatShown(-v * f.scale)} ms: overshoot, not a lower latency; never marked best.` : '';
        } else if (f.name === 'underrun' && this.byDesign[i]) {
          text += ' †';
          title = `${this.techs[i]} draws at the estimated server time, ahead of every packet, by design: its underrun is always 100% and not a fault. Its starved figure is frozen (held after slopTime without an update).`;
        }
        setText(td, text);
        const value = String(v);
        if (td.dataset.value !== value) td.dataset.value = value;
        td.classList.toggle('best', !skip && Math.abs(v) === best && best < worst); // a tie for all is no news
        td.classList.toggle('unranked', skip);
        if (td.title !== title) td.title = title;
      }
    });
  }
}

/**
 * setText shows text in el unless el shows it already. The table is
 * refreshed four times a second and most of its figures stay the same: a
 * cell written again, even with its own text, has the browser lay out the
 * table and repaint the panel (in WebKit without a GPU, a few ms each time).
 * @param {HTMLElement} el
 * @param {string} text
 */
function setText(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * formatShown prints a value in display units as lab sim does
 * (engine.Readable to three significant digits: whole numbers in full, no
 * exponent, small values with their digits); – when it is not a number.
 * @param {number} x
 */
function formatShown(x) {
  if (!Number.isFinite(x)) return '–';
  return readable(x, 1, 3);
}
