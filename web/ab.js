// @ts-check
// ab.js is the lab page's side-by-side A/B view. "Pin" pins the current
// settings (the menu beside it pins a preset or a saved session's latest
// revision instead); a second canvas then runs the pinned settings in a
// second simulation, stepped with the same simulated time as the first, and
// a table shows, per technique run by both, every metric's delta: current −
// pinned. The engine is seeded and deterministic, so when the settings that
// shape the packets and the motion are equal the two runs see the same
// packets; when they differ the view says which. Every change of the
// current settings restarts both runs, so the deltas always compare the two
// settings over the same time from t = 0, never a mix of before and after
// the change. "Unpin" closes it.
//
// The pinned simulation runs in a worker (abworker.js) with its own
// instance of the engine, so that it takes another core instead of half of
// every animation frame. The page hands it each frame's simulated time once
// it has stepped and drawn its own frame (two steps at once crowd the cores
// the compositor needs too); the answer comes back while the page waits for
// the next frame, so the pinned view draws a frame behind the current one.
// While the worker is busy the time adds up and goes with the next step, so
// a slow machine shows it further behind, never a different run. The
// deltas compare the two runs at the same simulated time: when the page
// shows its metrics it sends the worker the time owed and asks for the
// metrics at the time that reaches.

import { View } from './canvas.js';
import { techColor, libraryFirst, fillLegend } from './colors.js';
import { presetValues } from './url.js';
import { fromJSON, readable } from './format.js';
import { inertWhy } from './inert.js';

/**
 * @typedef {import('./types/interplab').Interplab} Interplab
 * @typedef {import('./types/interplab').Param} Param
 * @typedef {import('./types/interplab').MetricField} MetricField
 * @typedef {{engine: Interplab, params: Param[], values: () => Float64Array, restart: () => void,
 *   setFocus: (i: number) => void, dots: () => boolean, watch: (f: () => void) => void, replay: boolean,
 *   frames: () => number, primary: () => string}} ABPage
 *   what the A/B view needs of the lab page
 * @typedef {{op: 'created', gen: number, error: string, techniques: string[], entities: number, poseStride: number}
 *   | {op: 'frame', gen: number, frames: number, time: number, poses: Float32Array<ArrayBuffer>, packets: Float64Array<ArrayBuffer>, np: number,
 *      metrics: Float64Array | null, ask: number, stepMs: number}
 *   | {op: 'failed', error: string}} WorkerReply
 *   what abworker.js answers
 */

// The parameters that shape the packets and the motion: with these equal,
// the pinned run sees the current run's packets. renderRate and the
// techniques' own settings only change what the client draws.
const SHAPING_GROUPS = new Set(['network', 'scenario']);
const NOT_SHAPING = new Set(['renderRate', 'techniques']);

export class AB {
  /** @param {ABPage} page */
  constructor(page) {
    this.page = page;
    /** @type {Worker | null} the pinned simulation's worker, started at the first pin */
    this.worker = null;
    this.gen = 0; // the run the worker's answers must be of
    this.pinned = false;
    /** @type {{values: Float64Array<ArrayBuffer>, label: string} | null} a pin the worker has not answered yet */
    this.pinning = null;
    this.label = '';
    this.values = new Float64Array(0);
    /** @type {string[]} the pinned run's techniques, in its rows' order */
    this.techs = [];
    /** @type {string[]} the delta table's columns: the pinned run's techniques, the library the designer is on first */
    this.cols = [];
    this.entities = 0;
    this.poses = new Float32Array(0);
    /** @type {Float32Array | null} a poses buffer the view no longer draws, for the worker to fill */
    this.spare = null;
    this.owed = 0; // simulated seconds the page has stepped and the worker not yet
    this.busy = 0; // steps sent and not answered
    this.time = 0;
    this.frames = 0;
    this.stepMs = 0; // the worker's step time, summed over stepCount steps
    this.stepCount = 0;
    /** @type {{id: number, techs: string[], values: Float64Array, frames: number} | null} the page's metrics awaiting the pinned run's */
    this.asked = null;
    this.asks = 0; // numbers the requests for the pinned run's metrics
    this.deltaFrames = -1; // the frame the deltas are of
    this.headings = true; // whether the worker's engine writes headings
    this.fields = page.engine.metricFields();
    /** @type {Record<string, Record<string, number>>} the latest deltas, per technique and metric, in stored units */
    this.deltas = {};
    /** @type {string[]} the shaping parameters whose values differ */
    this.differs = [];
    /** @type {string[]} the parameters whose values differ but act in neither run (engine inert rules) */
    this.inert = [];
    /** whether the only differences are such knobs: the runs are the same */
    this.inertOnly = false;
    this.restarting = false;
    this.sessionsAsked = false;
    const ui = this.build();
    this.pinButton = ui.pinButton;
    this.from = ui.from;
    this.error = ui.error;
    this.pane = ui.pane;
    this.head = ui.head;
    this.note = ui.note;
    this.canvas = ui.canvas;
    this.legend = ui.legend;
    this.section = ui.section;
    this.table = ui.table;
    this.view = new View(ui.canvas, (i) => this.page.setFocus(i));
    this.wire();
    page.watch(() => this.changed());
  }

  // build adds the Pin controls to the toolbar, the pane beside the view
  // and the delta table under the metrics.
  build() {
    const bar = document.querySelector('.stage .toolbar');
    const stage = document.querySelector('.stage');
    const view = document.querySelector('.stage .view');
    const metrics = document.querySelector('section.metrics');
    if (!bar || !stage || !view || !metrics) throw new Error('ab.js: the lab page has no .stage .toolbar, .view or section.metrics');
    const box = Object.assign(document.createElement('span'), { className: 'ab-controls' });
    const pinButton = Object.assign(document.createElement('button'), {
      type: 'button', id: 'ab-pin', textContent: 'Pin',
      title: 'Pin these settings: a second view runs the same packets with them, with the metric deltas (current − pinned)',
    });
    const from = Object.assign(document.createElement('select'), { id: 'ab-from', title: 'Pin a preset or a saved session instead' });
    from.append(new Option('Pin…', ''));
    const error = Object.assign(document.createElement('span'), { className: 'ab-error', id: 'ab-error', hidden: true });
    box.append(pinButton, from, error);
    bar.insertBefore(box, bar.querySelector('.clock'));
    if (this.page.replay) {
      pinButton.disabled = true;
      from.disabled = true;
      pinButton.title = 'A/B needs the link and motion scripts: not in a replay';
    }

    const pane = Object.assign(document.createElement('div'), { className: 'ab-pane', id: 'ab-pane', hidden: true });
    const head = Object.assign(document.createElement('p'), { className: 'ab-head', id: 'ab-head' });
    const note = Object.assign(document.createElement('p'), { className: 'ab-note', id: 'ab-note' });
    const canvas = Object.assign(document.createElement('canvas'), { id: 'ab-view' });
    canvas.setAttribute('aria-label', 'The pinned settings: the same packets');
    const wrap = Object.assign(document.createElement('div'), { className: 'ab-canvas' });
    const legend = Object.assign(document.createElement('div'), { className: 'legend', id: 'ab-legend' });
    wrap.append(canvas, legend);
    pane.append(head, note, wrap);
    view.after(pane);

    const section = Object.assign(document.createElement('div'), { className: 'ab-deltas', id: 'ab-deltas-box', hidden: true });
    const h = Object.assign(document.createElement('h2'), { textContent: 'A/B: current − pinned ' });
    h.append(Object.assign(document.createElement('small'), { textContent: 'per technique run by both; green: the current settings are lower (better)' }));
    const table = Object.assign(document.createElement('table'), { id: 'ab-deltas' });
    section.append(h, table);
    metrics.append(section);

    return { pinButton, from, error, pane, head, note, canvas, legend, section, table };
  }

  wire() {
    this.pinButton.addEventListener('click', () => {
      if (this.pinned) this.unpin();
      else this.pin(Float64Array.from(this.page.values()), 'the settings at ' + new Date().toLocaleTimeString());
    });
    this.from.addEventListener('focus', () => this.fillFrom(true));
    this.from.addEventListener('pointerdown', () => this.fillFrom(true));
    this.from.addEventListener('change', () => this.pinFrom());
    this.fillFrom(false);
  }

  // fillFrom lists what can be pinned: the presets (custom ones included,
  // from the page's picker) and, once asked (sessions), the latest
  // revisions of saved sessions.
  /** @param {boolean} withSessions */
  fillFrom(withSessions) {
    const keep = this.from.value;
    const presets = Object.assign(document.createElement('optgroup'), { label: 'Presets' });
    for (const o of document.querySelectorAll('#preset option')) {
      if (!(o instanceof HTMLOptionElement)) continue;
      const opt = new Option(o.textContent ?? o.value, 'preset:' + o.value);
      opt.dataset.query = o.dataset.query ?? '';
      presets.append(opt);
    }
    const head = this.from.options[0];
    const listed = this.from.querySelector('optgroup.ab-sessions');
    this.from.replaceChildren(head, presets);
    if (listed) this.from.append(listed);
    this.from.value = keep;
    if (withSessions && !this.sessionsAsked) {
      this.sessionsAsked = true;
      fetch('/api/sessions').then((r) => (r.ok ? r.json() : null)).then((/** @type {{sessions?: {id: string, name: string, rev: number}[]} | null} */ body) => {
        const list = body?.sessions ?? [];
        if (list.length === 0) return;
        const g = Object.assign(document.createElement('optgroup'), { label: 'Saved sessions (latest revision)', className: 'ab-sessions' });
        for (const s of list.slice(0, 30)) g.append(new Option(`${s.name || s.id} (rev ${s.rev})`, `session:${s.id}@${s.rev}`));
        this.from.append(g);
      }).catch(() => { this.sessionsAsked = false; });
    }
  }

  async pinFrom() {
    const opt = this.from.selectedOptions[0];
    const v = this.from.value;
    this.from.value = '';
    if (!opt || !v) return;
    if (v.startsWith('preset:')) {
      this.pin(presetValues(this.page.engine, this.page.params, opt.dataset.query ?? ''), 'preset ' + (opt.textContent ?? v.slice(7)));
      return;
    }
    const m = /^session:([^@]+)@(\d+)$/.exec(v);
    if (!m) return;
    try {
      const resp = await fetch(`/api/sessions/${encodeURIComponent(m[1])}/revisions/${m[2]}`);
      /** @type {import('./types/interplab').Revision & import('./types/interplab').ApiError} */
      const r = await resp.json();
      if (!resp.ok) throw new Error(r.error || `${resp.status} ${resp.statusText}`);
      this.pin(this.settingsValues(r.settings), `session ${r.name || r.id} rev ${r.rev}`);
    } catch (e) {
      this.fail('could not pin the session: ' + (e instanceof Error ? e.message : String(e)));
    }
  }

  /**
   * settingsValues reads settings as the sessions API gives them into values
   * in table order; keys left out keep the defaults.
   * @param {Record<string, unknown>} settings
   */
  settingsValues(settings) {
    const e = this.page.engine;
    return Float64Array.from(this.page.params, (p) => {
      const v = settings[p.name];
      if (v === undefined) return p.default;
      const r = fromJSON(e, p.name, v);
      return r.error ? p.default : r.value;
    });
  }

  /**
   * pin runs values in the second view, labelled label, and restarts both
   * runs so that they start together; the worker checks the values first.
   * @param {Float64Array} values
   * @param {string} label
   */
  pin(values, label) {
    const w = this.start();
    if (!w) return;
    this.pinning = { values: Float64Array.from(values), label };
    this.gen++;
    w.postMessage({ op: 'create', gen: this.gen, values: this.pinning.values });
  }

  // start returns the worker, started on first use.
  start() {
    if (this.worker) return this.worker;
    try {
      const w = new Worker('/static/abworker.js', { type: 'module' });
      w.onmessage = (ev) => this.answer(ev.data);
      w.onerror = (ev) => this.fail('the A/B view\'s worker stopped: ' + (ev.message || 'it could not load'));
      this.worker = w;
    } catch (e) {
      this.fail('the A/B view could not start its worker: ' + (e instanceof Error ? e.message : String(e)));
    }
    return this.worker;
  }

  /** @param {WorkerReply} m */
  answer(m) {
    switch (m.op) {
      case 'failed':
        this.fail('the A/B view\'s engine did not start: ' + m.error);
        return;
      case 'created':
        if (m.gen !== this.gen) return;
        if (this.pinning) {
          const p = this.pinning;
          this.pinning = null;
          if (m.error) {
            this.fail('cannot pin ' + p.label + ': ' + m.error);
            return;
          }
          this.pinned = true;
          this.showPinned(p.values, p.label);
          return; // showPinned restarts both: the restart's answer sets the view up
        }
        this.techs = m.techniques;
        this.entities = m.entities;
        this.view.reset(this.techs, this.entities, m.poseStride);
        this.view.dots = this.page.dots();
        this.buildTable();
        fillLegend(this.legend, this.cols); // the pinned view's colours, in the table's order
        return;
      case 'frame': {
        this.busy--;
        if (m.gen !== this.gen || !this.pinned) {
          this.spare = m.poses;
          return;
        }
        this.spare = this.poses;
        this.poses = m.poses;
        this.view.update(this.poses, m.frames > 0);
        this.view.addPackets(m.packets, m.np, this.page.engine.packetStride, m.time);
        this.frames = m.frames;
        this.time = m.time;
        this.stepMs += m.stepMs;
        this.stepCount++;
        const a = this.asked;
        if (m.metrics && a && m.ask === a.id) {
          // The worker has stepped all the time the page had when it asked:
          // both runs are at the same simulated time (the same frame when
          // their render rates agree).
          this.asked = null;
          this.compare(a.techs, a.values, m.metrics);
          this.deltaFrames = a.frames;
        }
        if (this.owed > 0 && this.busy === 0) this.send(0);
      }
    }
  }

  /**
   * send hands the worker the simulated time owed; ask, if not 0, asks for
   * the run's metrics at the time that reaches, answered with that number.
   * @param {number} ask
   */
  send(ask) {
    const w = this.worker;
    if (!w) return;
    const poses = this.spare;
    this.spare = null;
    w.postMessage({ op: 'step', gen: this.gen, dt: this.owed, poses, metrics: ask !== 0, ask }, poses ? [poses.buffer] : []);
    this.owed = 0;
    this.busy++;
  }

  /**
   * showPinned opens the view on the pinned values.
   * @param {Float64Array<ArrayBuffer>} values
   * @param {string} label
   */
  showPinned(values, label) {
    this.error.hidden = true;
    this.values = values;
    this.label = label;
    this.pinButton.textContent = 'Unpin';
    this.pinButton.classList.add('on');
    this.pinButton.title = 'Close the A/B view';
    this.pane.hidden = false;
    this.section.hidden = false;
    this.canvas.closest('.stage')?.classList.add('ab-on');
    this.head.replaceChildren('Pinned: ', Object.assign(document.createElement('b'), { textContent: label }));
    this.compareSettings();
    this.restartBoth();
  }

  unpin() {
    this.pinned = false;
    this.gen++; // frames in flight are dropped
    this.asked = null;
    this.pinButton.textContent = 'Pin';
    this.pinButton.classList.remove('on');
    this.pinButton.title = 'Pin these settings: a second view runs the same packets with them, with the metric deltas (current − pinned)';
    this.pane.hidden = true;
    this.section.hidden = true;
    this.canvas.closest('.stage')?.classList.remove('ab-on');
    this.deltas = {};
  }

  /** @param {string} text */
  fail(text) {
    this.error.textContent = text;
    this.error.hidden = false;
  }

  // compareSettings says whether the pinned run sees the current packets.
  compareSettings() {
    const e = this.page.engine;
    const now = this.page.values();
    this.differs = this.page.params
      .filter((p, i) => SHAPING_GROUPS.has(p.group) && !NOT_SHAPING.has(p.name) && e.format(p.name, now[i]) !== e.format(p.name, this.values[i]))
      .map((p) => p.name);
    const params = this.page.params;
    const changedRows = params.filter((p, i) => e.format(p.name, now[i]) !== e.format(p.name, this.values[i]));
    // A knob with no effect in either run (the engine's inert rules:
    // Mirror's bufferTimeMultiplier while dynamicAdjustment is on) is no
    // difference: both runs draw the same with it at any value.
    /** @type {string[]} */
    const inert = [];
    /** @type {string[]} */
    const whys = [];
    for (const p of changedRows) {
      const a = inertWhy(params, now, p);
      const b = inertWhy(params, this.values, p);
      if (a !== '' && b !== '') {
        inert.push(p.name);
        if (!whys.includes(a)) whys.push(a);
      }
    }
    const changed = changedRows.map((p) => p.name).filter((n) => !inert.includes(n));
    this.inert = inert;
    this.inertOnly = inert.length > 0 && changed.length === 0 && this.differs.length === 0;
    const inertNote = inert.length === 0 ? ''
      : ` ${inert.join(', ')} ${inert.length === 1 ? 'differs but has' : 'differ but have'} no effect in either run (${whys.join('; ')}).`;
    this.note.classList.remove('ab-error');
    this.note.classList.toggle('ab-warn', this.differs.length > 0);
    this.note.textContent = this.differs.length > 0
      ? `Different packets: the network or motion settings differ (${this.differs.join(', ')}), so the pinned run sees another network; the deltas mix both changes.${inertNote}`
      : changed.length > 0
        ? `Same packets (same seed, network and motion); differs in ${changed.join(', ')}.${inertNote}`
        : inert.length > 0
          ? `Same packets and, in effect, the same settings:${inertNote} The runs are the same; change a knob that acts to compare.`
          : 'Same packets and the same settings: change a setting to compare.';
  }

  // changed follows every change of the current settings: both runs
  // restart, so the deltas compare like with like.
  changed() {
    if (!this.pinned || this.restarting) return;
    this.compareSettings();
    this.restartBoth();
  }

  restartBoth() {
    this.restarting = true;
    try {
      this.page.restart(); // calls restarted() below
    } finally {
      this.restarting = false;
    }
  }

  // restarted follows a restart of the current run: the pinned one goes
  // back to time 0 too.
  restarted() {
    const w = this.worker;
    if (!this.pinned || !w) return;
    this.gen++;
    w.postMessage({ op: 'restart', gen: this.gen });
    this.owed = 0;
    this.time = 0;
    this.frames = 0;
    this.asked = null;
    this.deltaFrames = -1;
    this.deltas = {};
  }

  /** @param {number} i the focus entity */
  setFocus(i) {
    if (!this.worker || !this.pinned) return;
    const f = Math.min(i, Math.max(0, this.entities - 1));
    this.worker.postMessage({ op: 'focus', entity: f });
    this.view.setFocus(f);
  }

  /** @param {number} dt simulated seconds, as the current run steps */
  step(dt) {
    if (!this.pinned) return;
    const headings = this.view.needsHeadings();
    if (headings !== this.headings) {
      this.headings = headings;
      this.worker?.postMessage({ op: 'headings', on: headings });
    }
    this.owed += dt;
    if (this.busy === 0) this.send(0);
  }

  draw() {
    if (!this.pinned) return;
    this.view.dots = this.page.dots();
    this.view.draw(this.time);
  }

  // recolor redraws the pinned view's colours in the page's theme (it changed).
  recolor() {
    if (!this.pinned || this.techs.length === 0) return;
    this.view.recolor();
    this.buildTable();
    fillLegend(this.legend, this.cols);
  }

  buildTable() {
    this.cols = libraryFirst(this.techs, this.page.primary());
    const t = this.table;
    t.replaceChildren();
    const head = t.createTHead().insertRow();
    head.append(document.createElement('th'));
    for (const name of this.cols) {
      const th = Object.assign(document.createElement('th'), { textContent: name });
      th.style.color = techColor(name);
      head.append(th);
    }
    const body = t.createTBody();
    for (const f of this.fields) {
      const tr = body.insertRow();
      tr.dataset.metric = f.name;
      const th = Object.assign(document.createElement('th'), { scope: 'row', title: f.doc });
      th.append(f.name + ' ', Object.assign(document.createElement('small'), { textContent: f.display || f.unit }));
      tr.append(th);
      for (const name of this.cols) {
        const td = tr.insertCell();
        td.dataset.tech = name;
        td.textContent = '–';
      }
    }
  }

  /**
   * showDeltas shows current − pinned for every technique both run, once
   * the pinned run has reached the current run's frame.
   * @param {string[]} techs the current run's techniques
   * @param {Float64Array} values the current run's metrics (interplab.metrics)
   */
  showDeltas(techs, values) {
    if (!this.pinned) return;
    this.asked = { id: ++this.asks, techs: techs.slice(), values: values.slice(), frames: this.page.frames() };
    this.send(this.asked.id);
  }

  /**
   * compare shows current − pinned from the two runs' metrics at one frame.
   * @param {string[]} techs the current run's techniques
   * @param {Float64Array} values the current run's metrics
   * @param {Float64Array} pinned the pinned run's metrics
   */
  compare(techs, values, pinned) {
    const nf = this.fields.length;
    /** @type {Record<string, Record<string, number>>} */
    const out = {};
    const rows = this.table.tBodies[0]?.rows ?? [];
    this.cols.forEach((name, c) => {
      const i = this.techs.indexOf(name);
      const j = techs.indexOf(name);
      out[name] = {};
      this.fields.forEach((f, k) => {
        const td = rows[k]?.cells[c + 1];
        const d = j < 0 ? NaN : values[j * nf + k] - pinned[i * nf + k];
        out[name][f.name] = d;
        if (!td) return;
        // Only inert knobs differ: the runs are the same, not "0 better".
        td.textContent = j < 0 ? 'not run now' : this.inertOnly && d === 0 ? 'same' : signed(d * f.scale, f.unit === 'count');
        td.dataset.delta = String(d);
        td.classList.toggle('ab-better', d < 0);
        td.classList.toggle('ab-worse', d > 0);
      });
    });
    this.deltas = out;
  }

  // stepStats is the worker's step time so far, for lab.measure.
  stepStats() {
    return { ms: this.stepMs, steps: this.stepCount };
  }

  // state is what tests read (lab.ab()).
  state() {
    return {
      pinned: this.pinned,
      label: this.label,
      pinning: this.pinning !== null,
      time: this.time,
      frames: this.frames,
      deltaFrames: this.deltaFrames,
      techniques: this.techs,
      differs: this.differs,
      inert: this.inert,
      note: this.note.textContent,
      deltas: this.deltas,
    };
  }
}

/**
 * signed prints a delta in display units with its sign, its size as the
 * metrics table prints values (readable, three significant digits).
 * @param {number} x
 * @param {boolean} count
 */
function signed(x, count) {
  if (!Number.isFinite(x)) return '–';
  if (count) x = Math.round(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  const t = count ? String(a) : readable(a, 1, 3);
  return (x > 0 ? '+' : '−') + t;
}
