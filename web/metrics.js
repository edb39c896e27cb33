// @ts-check
// metrics.js shows the engine's metrics, one column per technique and one
// row per metric (engine.MetricFields), in display units. Every metric is
// best at zero; the best value of each row is highlighted. Two values are
// never ranked: a negative added latency (a display that leads the truth,
// overshoot rather than a win) and the underrun of a technique that draws
// past its newest packet by design (epic, epicfix: always 100%, see
// engine.UnderrunByDesign); both are marked and explained instead.

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
    /** @type {boolean[]} per technique, whether its underrun is 100% by design */
    this.byDesign = [];
    /** @type {HTMLTableCellElement[]} the game-delay cell of each technique */
    this.delayCells = [];
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
    // The delay a game built on each technique's library has with these
    // settings, counted the library's way (Mirror: bufferTime plus
    // NetworkTransform's offset): what the designer should expect to ship,
    // in steady state and, beside it, as the run's state has it now.
    const delays = t.tHead?.insertRow();
    if (delays) {
      delays.className = 'game-delay';
      const th = document.createElement('th');
      th.scope = 'row';
      th.title = "The display delay behind the newest snapshot that a game built on the technique's library has, counted the way the library counts it. " +
        'First the steady-state figure these settings give on a steady link; "now" is the delay the technique\'s state gives on the latest frame ' +
        "(Mirror's bufferTime as dynamic adjustment moves it, the buffer's adaptive delay, NGO's and Source's clocks, geckos' time offset), averaged over the entities. " +
        '– where the technique has no such delay.';
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
   * showDelays displays each technique's game delay: in steady state
   * (interplab.delays) and, beside it, on the latest frame
   * (interplab.liveDelays), s: "100 (now 187)".
   * @param {number[]} delays
   * @param {number[]} live
   */
  showDelays(delays, live) {
    this.delayCells.forEach((td, i) => {
      const steady = formatShown(delays[i] * 1000);
      const now = live[i] * 1000;
      td.textContent = Number.isFinite(now) ? `${steady} (now ${formatShown(now)})` : steady;
      td.dataset.steady = String(delays[i]);
      td.dataset.live = String(live[i]);
      td.title = Number.isFinite(now)
        ? `${steady} ms in steady state with these settings; ${formatShown(now)} ms now, from the technique's state on the latest frame.`
        : '';
    });
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
      // is never best. An underrun by design is never ranked either.
      /** @param {number} i @param {number} v */
      const unranked = (i, v) => (f.name === 'addedLatency' && v < 0) || (f.name === 'underrun' && this.byDesign[i]);
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
        td.textContent = f.unit === 'count' ? String(Math.round(v * f.scale)) : formatShown(v * f.scale);
        td.dataset.value = String(v);
        const skip = unranked(i, v);
        td.classList.toggle('best', !skip && Math.abs(v) === best && best < worst); // a tie for all is no news
        td.classList.toggle('unranked', skip);
        if (f.name === 'addedLatency') {
          td.title = v < 0 ? `The display leads the truth by ${formatShown(-v * f.scale)} ms: overshoot, not a lower latency; never marked best.` : '';
        } else if (f.name === 'underrun' && this.byDesign[i]) {
          td.textContent += ' †';
          td.title = `${this.techs[i]} draws at the estimated server time, ahead of every packet, by design: its underrun is always 100% and not a fault. Its starved figure is frozen (held after slopTime without an update).`;
        }
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
