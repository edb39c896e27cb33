// @ts-check
// ab.js is the lab page's side-by-side A/B view. "Pin" pins the current
// settings (the menu beside it pins a preset or a saved session's latest
// revision instead); a second canvas then runs the pinned settings in a
// second simulation of the same module (interplab.spawn), stepped with the
// same simulated time as the first, and a table shows, per technique run
// by both, every metric's delta: current − pinned. The engine is seeded
// and deterministic, so when the settings that shape the packets and the
// motion are equal the two runs see the same packets; when they differ the
// view says which. Every change of the current settings restarts both runs,
// so the deltas always compare the two settings over the same time from
// t = 0, never a mix of before and after the change. "Unpin" closes it.

import { View } from './canvas.js';
import { techColor } from './colors.js';
import { presetValues } from './url.js';

/**
 * @typedef {import('./types/interplab').Interplab} Interplab
 * @typedef {import('./types/interplab').Param} Param
 * @typedef {import('./types/interplab').MetricField} MetricField
 * @typedef {{engine: Interplab, params: Param[], values: () => Float64Array, restart: () => void,
 *   setFocus: (i: number) => void, dots: () => boolean, watch: (f: () => void) => void, replay: boolean}} ABPage
 *   what the A/B view needs of the lab page
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
    /** @type {Interplab | null} the second simulation, spawned at the first pin */
    this.sim = null;
    this.pinned = false;
    this.label = '';
    this.values = new Float64Array(0);
    /** @type {string[]} */
    this.techs = [];
    this.entities = 0;
    this.poses = new Float32Array(0);
    this.metricValues = new Float64Array(0);
    this.lastFrames = 0;
    this.fields = page.engine.metricFields();
    this.pk = new Float64Array(1024 * page.engine.packetStride);
    this.fr = new Float64Array(1024 * page.engine.frameStride);
    /** @type {Record<string, Record<string, number>>} the latest deltas, per technique and metric, in stored units */
    this.deltas = {};
    /** @type {string[]} the shaping parameters whose values differ */
    this.differs = [];
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
    wrap.append(canvas);
    pane.append(head, note, wrap);
    view.after(pane);

    const section = Object.assign(document.createElement('div'), { className: 'ab-deltas', id: 'ab-deltas-box', hidden: true });
    const h = Object.assign(document.createElement('h2'), { textContent: 'A/B: current − pinned ' });
    h.append(Object.assign(document.createElement('small'), { textContent: 'per technique run by both; green: the current settings are lower (better)' }));
    const table = Object.assign(document.createElement('table'), { id: 'ab-deltas' });
    section.append(h, table);
    metrics.append(section);

    return { pinButton, from, error, pane, head, note, canvas, section, table };
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
      const r = e.parse(p.name, Array.isArray(v) ? v.join(',') : String(v));
      return r.error ? p.default : r.value;
    });
  }

  /**
   * pin runs values in the second view, labelled label, and restarts both
   * runs so that they start together.
   * @param {Float64Array} values
   * @param {string} label
   */
  pin(values, label) {
    this.sim ??= this.page.engine.spawn();
    const err = this.sim.create(values);
    if (err) {
      this.fail('cannot pin ' + label + ': ' + err);
      return;
    }
    this.error.hidden = true;
    this.pinned = true;
    this.values = Float64Array.from(values);
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
    const changed = this.page.params.filter((p, i) => e.format(p.name, now[i]) !== e.format(p.name, this.values[i])).map((p) => p.name);
    this.note.classList.remove('ab-error');
    this.note.classList.toggle('ab-warn', this.differs.length > 0);
    this.note.textContent = this.differs.length > 0
      ? `Different packets: the network or motion settings differ (${this.differs.join(', ')}), so the pinned run sees another network; the deltas mix both changes.`
      : changed.length > 0
        ? `Same packets (same seed, network and motion); differs in ${changed.join(', ')}.`
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
    const s = this.sim;
    if (!this.pinned || !s) return;
    s.restart();
    this.techs = s.techniques();
    this.entities = s.entities();
    this.view.reset(this.techs, this.entities, s.poseStride);
    this.view.dots = this.page.dots();
    this.lastFrames = -1;
    this.pull();
    this.buildTable();
  }

  /** @param {number} i the focus entity */
  setFocus(i) {
    if (!this.sim || !this.pinned) return;
    const f = Math.min(i, Math.max(0, this.entities - 1));
    this.sim.setFocus(f);
    this.view.setFocus(f);
  }

  /** @param {number} dt simulated seconds, as the current run steps */
  step(dt) {
    if (this.pinned && this.sim) this.sim.step(dt);
  }

  pull() {
    const s = this.sim;
    if (!this.pinned || !s || s.frames() === this.lastFrames) return;
    let n = s.poses(this.poses);
    if (n !== this.poses.length) {
      this.poses = new Float32Array(n);
      s.poses(this.poses);
    }
    this.view.update(this.poses, s.frames() > 0);
    const [np] = s.timeline(this.pk, this.fr);
    this.view.addPackets(this.pk, np, this.page.engine.packetStride, s.time());
    this.lastFrames = s.frames();
  }

  draw() {
    if (!this.pinned || !this.sim) return;
    this.view.dots = this.page.dots();
    this.view.draw(this.sim.time());
  }

  buildTable() {
    const t = this.table;
    t.replaceChildren();
    const head = t.createTHead().insertRow();
    head.append(document.createElement('th'));
    for (const name of this.techs) {
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
      for (const name of this.techs) {
        const td = tr.insertCell();
        td.dataset.tech = name;
        td.textContent = '–';
      }
    }
  }

  /**
   * showDeltas shows current − pinned for every technique both run.
   * @param {string[]} techs the current run's techniques
   * @param {Float64Array} values the current run's metrics (interplab.metrics)
   */
  showDeltas(techs, values) {
    const s = this.sim;
    if (!this.pinned || !s) return;
    const n = s.metrics(this.metricValues);
    if (n !== this.metricValues.length) {
      this.metricValues = new Float64Array(n);
      s.metrics(this.metricValues);
    }
    const nf = this.fields.length;
    /** @type {Record<string, Record<string, number>>} */
    const out = {};
    const rows = this.table.tBodies[0]?.rows ?? [];
    this.techs.forEach((name, i) => {
      const j = techs.indexOf(name);
      out[name] = {};
      this.fields.forEach((f, k) => {
        const td = rows[k]?.cells[i + 1];
        const d = j < 0 ? NaN : values[j * nf + k] - this.metricValues[i * nf + k];
        out[name][f.name] = d;
        if (!td) return;
        td.textContent = j < 0 ? 'not run now' : signed(d * f.scale, f.unit === 'count');
        td.dataset.delta = String(d);
        td.classList.toggle('ab-better', d < 0);
        td.classList.toggle('ab-worse', d > 0);
      });
    });
    this.deltas = out;
  }

  // state is what tests read (lab.ab()).
  state() {
    return {
      pinned: this.pinned,
      label: this.label,
      time: this.sim?.time() ?? 0,
      frames: this.sim?.frames() ?? 0,
      techniques: this.techs,
      differs: this.differs,
      note: this.note.textContent,
      deltas: this.deltas,
    };
  }
}

/**
 * signed prints a delta in display units with its sign.
 * @param {number} x
 * @param {boolean} count
 */
function signed(x, count) {
  if (!Number.isFinite(x)) return '–';
  if (count) x = Math.round(x);
  if (x === 0) return '0';
  const a = Math.abs(x);
  const t = count ? String(a) : a >= 100 ? a.toFixed(0) : a >= 10 ? a.toFixed(1) : a >= 0.01 ? a.toFixed(2) : a.toPrecision(2);
  return (x > 0 ? '+' : '−') + t;
}
