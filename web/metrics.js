// @ts-check
// metrics.js shows the engine's metrics, one column per technique and one
// row per metric (engine.MetricFields), in display units. Every metric is
// best at zero; the best value of each row is highlighted.

import { techColor } from './colors.js';

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
    /** @type {HTMLTableCellElement[]} the game-delay cell of each technique */
    this.delayCells = [];
  }

  /**
   * setTechniques rebuilds the table for the running techniques.
   * @param {string[]} techs
   */
  setTechniques(techs) {
    this.techs = techs;
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
    // The delay a game built on each technique's library has with these
    // settings, counted the library's way (Mirror: bufferTime plus
    // NetworkTransform's offset): what the designer should expect to ship.
    const delays = t.tHead?.insertRow();
    if (delays) {
      delays.className = 'game-delay';
      const th = document.createElement('th');
      th.scope = 'row';
      th.title = "The display delay behind the newest snapshot that a game built on the technique's library has with these settings, counted the way the library counts it; – where the technique has no fixed delay.";
      th.append('game delay ', Object.assign(document.createElement('small'), { textContent: 'ms' }));
      delays.appendChild(th);
      this.delayCells = techs.map((name) => {
        const td = document.createElement('td');
        td.dataset.tech = name;
        td.textContent = '–';
        delays.appendChild(td);
        return td;
      });
    }
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
   * showDelays displays each technique's game delay (interplab.delays), s.
   * @param {number[]} delays
   */
  showDelays(delays) {
    this.delayCells.forEach((td, i) => {
      td.textContent = formatShown(delays[i] * 1000);
    });
  }

  /**
   * show displays values: per technique, the fields in order (interplab.metrics).
   * @param {Float64Array} values
   */
  show(values) {
    const nf = this.fields.length;
    this.fields.forEach((f, j) => {
      // Every metric is best at 0; only the added latency can go below
      // (a display ahead of the truth), so rank by magnitude.
      let best = Infinity;
      let worst = -Infinity;
      for (let i = 0; i < this.techs.length; i++) {
        best = Math.min(best, Math.abs(values[i * nf + j]));
        worst = Math.max(worst, Math.abs(values[i * nf + j]));
      }
      for (let i = 0; i < this.techs.length; i++) {
        const v = values[i * nf + j];
        const td = this.cells[j][i];
        td.textContent = f.unit === 'count' ? String(Math.round(v * f.scale)) : formatShown(v * f.scale);
        td.dataset.value = String(v);
        td.classList.toggle('best', Math.abs(v) === best && best < worst); // a tie for all is no news
      }
    });
  }
}

/**
 * formatShown prints a value in display units with about three significant
 * digits and no exponent.
 * @param {number} x
 */
function formatShown(x) {
  if (!Number.isFinite(x)) return '–';
  const a = Math.abs(x);
  if (a === 0) return '0';
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 0.01) return x.toFixed(2);
  return x.toPrecision(2);
}
