// @ts-check
// lab.js is the page's glue: it starts the engine with the values of the
// controls, runs it once per animation frame, hands each frame to the view,
// the timeline and the metrics panel, applies every control change on the
// next frame (restarting only when the engine says so), and keeps the
// address bar a share link of the running state. On /?trace=NAME it replays
// that recorded trace (interplab.createReplay) instead of the link and motion
// scripts; see replay.js.

import { loadEngine, Pull } from './engine.js';
import { Controls } from './controls.js';
import { presetValues, shareQuery, mirror, exportURL, previewURL } from './url.js';
import { View } from './canvas.js';
import { Timeline } from './timeline.js';
import { MetricsPanel } from './metrics.js';
import { libraryFirst, fillLegend, onThemeChange, readColors } from './colors.js';
import { initSession, copyText } from './session.js';
import { initJobLinks } from './joblinks.js';
import { loadReplay } from './replay.js';
import { Capture, download, recordingExt, stamp } from './capture.js';
import { byId, maybeId } from './dom.js';
import { show } from './format.js';
import { ScenarioEditor } from './scenario.js';
import { AB } from './ab.js';
import { initPresets } from './presets.js';

/**
 * @typedef {import('./types/interplab').Interplab} Interplab
 * @typedef {import('./types/interplab').Param} Param
 * @typedef {{name: string, flat: Float64Array, names: string[], ignored: string[], fixed?: Map<string, number>}} Replay
 *   a recorded trace the page replays (replay.js), with the values it fixes
 *   and the parameters that do not shape its packets
 */

const PANEL_EVERY = 250; // ms between refreshes of the metrics and readouts
// MAX_DT caps the simulated time one animation frame advances, s: when the
// engine cannot keep up (thousands of entities) the run slows down instead
// of stepping ever more frames per animation frame.
const MAX_DT = 0.05;

class Lab {
  /**
   * @param {Interplab} engine the interplab object
   * @param {Param[]} params its parameter table (engine.params())
   * @param {Replay | null} replay the trace to replay (see loadReplay), or null
   * @param {string[]} replayErrors why a requested replay could not start
   */
  constructor(engine, params, replay, replayErrors) {
    this.engine = engine;
    this.replay = replay;
    this.params = params;
    this.controls = new Controls(byId('controls', HTMLFormElement), this.params, (name, text) => engine.parse(name, text));
    this.view = new View(byId('view', HTMLCanvasElement), (i) => this.setFocus(i));
    this.timeline = new Timeline(byId('timeline', HTMLCanvasElement), engine);
    this.capture = new Capture({
      views: () => this.captureViews(),
      timeline: byId('timeline', HTMLCanvasElement),
      tables: () => [byId('metrics', HTMLTableElement), ...(this.ab?.pinned ? [this.ab.table] : [])],
      title: () => this.captureTitle(),
      settings: () => this.changedSettings(),
      link: () => this.session?.link() ?? location.href,
      clock: () => `t = ${this.engine.time().toFixed(2)} s · frame ${this.engine.frames()}`,
    });
    /** @type {{link: () => string, saved: () => Float64Array} | null} on a session's page: its revision's link with the unsaved changes, and its saved values (session.js) */
    this.session = null;
    this.metrics = new MetricsPanel(byId('metrics', HTMLTableElement), engine.metricFields());
    /** @type {Map<string, {v: number, error: string}>} a value the engine refused, retried after each change */
    this.pending = new Map();
    /** @type {string[]} */
    this.runErrors = [];
    this.linkErrors = [...document.querySelectorAll('#error-list li')].map((li) => li.textContent).concat(replayErrors);
    this.preset = byId('preset', HTMLSelectElement).value;
    /**
     * @type {Float64Array | null} the preset's values (base), read from
     * the engine when first needed: the first frame does not need them
     * (the run starts from the controls' values), and their first reading
     * (the engine's parsing of the preset's query, compiled at its first
     * call) was a tenth of the set-up before it
     */
    this.baseValues = null;
    /** the preset's query (its option's data-query) that base reads */
    this.baseQuery = byId('preset', HTMLSelectElement).selectedOptions[0]?.dataset.query ?? '';
    this.paused = false;
    this.speed = 1;
    this.focus = 0;
    this.metricValues = new Float64Array(0);
    this.pulled = new Pull(engine); // each frame out of the engine, viewed where Go wrote it
    this.view.reload = () => this.pulled.poses();
    this.simTime = 0; // the simulated time of the frame pulled last, s
    this.perf = { step: 0, draw: 0, fps: 0, last: 0, panel: 0 }; // smoothed ms, fps; timestamps
    /** @type {((now: number, stepMs: number, drawMs: number, stepped: number) => void)[]} */
    this.samplers = [];
    /** @type {(() => void)[]} called after every change of the settings */
    this.watchers = [];
    /** @type {string[]} */
    this.techs = [];
    this.entities = 0;
    this.values = new Float64Array(0);
    this.lastFrames = 0;
    /** @type {string | undefined} the share query of the state shown; undefined until it is known */
    this.query = undefined;
    /** @type {number | undefined} entities before the stress view raised them */
    this.beforeStress = undefined;
    /** @type {{name: string, from: number, to: number, at: number}[]} the designer's changes, for undo */
    this.undoStack = [];
    /** @type {{name: string, from: number, to: number, at: number}[]} undone changes, for redo */
    this.redoStack = [];
    /** @type {AB | null} the A/B view (ab.js), made in start */
    this.ab = null;
    /** the library techniques (the server lists them on the side panel), to tell them from the lab's own */
    this.libraries = new Set((byId('controls', HTMLFormElement).dataset.libraries ?? '').split(' ').filter(Boolean));
    /** @type {string | null} the library the side panel was last arranged for ("" for none); null before the first time */
    this.arrangedFor = null;
    this.headings = true; // whether the engine writes headings into the poses
    /** the custom scenario's text the run has (scenario custom reads it); the link's at first */
    this.scenarioText = byId('scenario-text', HTMLTextAreaElement).value;
    this.scenarioIndex = this.params.findIndex((p) => p.name === 'scenario');
    this.idealIndex = this.params.findIndex((p) => p.name === 'ideal');
    this.scenarioEditor = new ScenarioEditor(engine, (text) => this.applyScenario(text), () => {
      const p = this.params[this.scenarioIndex];
      return engine.builtinScenario(p.choices[this.values[this.scenarioIndex]] ?? '');
    });
  }

  /** base is the values of the preset the page started from or chose last, in table order (presetValues). */
  get base() {
    this.baseValues ??= presetValues(this.engine, this.params, this.baseQuery);
    return this.baseValues;
  }

  /** @param {Float64Array} v */
  set base(v) {
    this.baseValues = v;
  }

  // customScenario tells whether the run's scenario is the custom one.
  customScenario() {
    const p = this.params[this.scenarioIndex];
    return p.choices[this.values[this.scenarioIndex]] === 'custom';
  }

  /**
   * applyScenario runs text as the custom scenario, selecting it if it was
   * not; it returns "" or the engine's error.
   * @param {string} text
   */
  applyScenario(text) {
    const r = this.engine.setScenarioText(text);
    if (r.error) return r.error;
    this.scenarioText = text;
    if (!this.customScenario()) {
      const v = this.params[this.scenarioIndex].choices.indexOf('custom');
      this.controls.setValue('scenario', v);
      this.userChange('scenario', v);
    } else {
      if (r.restarted) this.restarted();
      this.updateURL();
    }
    return '';
  }

  // toggleNetwork switches the impairments off and on (the ideal setting):
  // the same packets with and without the network.
  toggleNetwork() {
    const v = this.values[this.idealIndex] ? 0 : 1;
    this.controls.setValue('ideal', v);
    this.userChange('ideal', v);
  }

  // showNetwork makes the toolbar's toggle say whether the network is on.
  showNetwork() {
    const on = !this.values[this.idealIndex];
    const b = byId('network-toggle', HTMLButtonElement);
    b.setAttribute('aria-pressed', String(on));
    b.textContent = on ? 'Network on' : 'Network off';
  }

  /**
   * userChange applies a change the designer made on a control and
   * records it for undo. Moves of one slider within a second are one step;
   * a value the engine refuses is not recorded.
   * @param {string} name
   * @param {number} v
   */
  userChange(name, v) {
    const i = this.params.findIndex((p) => p.name === name);
    const from = this.values[i];
    this.change(name, v);
    if (i < 0 || this.values[i] === from) return;
    this.followRate(name);
    const now = performance.now();
    const last = this.undoStack.at(-1);
    if (last && last.name === name && now - last.at < 1000) {
      last.to = this.values[i];
      last.at = now;
    } else {
      this.undoStack.push({ name, from, to: this.values[i], at: now });
      if (this.undoStack.length > 200) this.undoStack.shift();
    }
    this.redoStack = [];
  }

  /**
   * followRate makes the lab's tickRate and sendRate follow the library's
   * rate knob (engine Settings.GameRate) when name is that knob: in the
   * game they are one setting (Mirror's NetworkManager.sendRate), so
   * setting mirror.sendRate = 60 sets the server's send and tick rates to
   * 60 Hz too. Set apart afterwards, the advice says they disagree.
   * @param {string} name the parameter just changed
   */
  followRate(name) {
    const g = this.engine.gameRate();
    if (g.knob === '' || g.knob !== name) return;
    // The engine refuses a send rate above the tick rate: a value refused
    // on the way is pending and retried by the next change.
    for (const [n, v] of /** @type {[string, number][]} */ ([['tickRate', g.tick], ['sendRate', g.send], ['tickRate', g.tick]])) {
      const i = this.params.findIndex((p) => p.name === n);
      if (this.values[i] === v && !this.pending.has(n)) continue;
      this.controls.setValue(n, v);
      this.change(n, v);
    }
  }

  /**
   * undo reverts the designer's last change (redo: false) or applies the
   * last undone one again (redo: true).
   * @param {boolean} redo
   */
  undo(redo) {
    const from = redo ? this.redoStack : this.undoStack;
    const to = redo ? this.undoStack : this.redoStack;
    const e = from.pop();
    if (!e) return;
    const v = redo ? e.to : e.from;
    this.controls.setValue(e.name, v);
    this.change(e.name, v);
    this.followRate(e.name);
    e.at = 0; // an undone step never merges with the next change
    to.push(e);
  }

  /**
   * start creates the run and asks for the first animation frame, with
   * what that frame shows: the run, the side panel as the run's settings
   * mark it, the advice, the network toggle and, on a first visit, the
   * library question. What the frame does not need waits for the task
   * after it, so the page is first drawn sooner: the address bar's
   * canonical link and the export links, the controls' and buttons'
   * listeners (a person cannot act on a page before it is drawn), the A/B
   * view and then (the session, the preset list, the job links); the page
   * is ready (data-ready) after then.
   * @param {() => void} then the rest of the page's set-up
   */
  start(then) {
    if (this.replay) this.fixReplayControls();
    this.create(this.controls.values());
    // A clean link is rewritten in canonical form (table order, only what
    // differs); a link with errors stays as it is, to be read and fixed.
    const clean = this.linkErrors.length === 0 && this.runErrors.length === 0;
    if (clean) this.showAdvice(); // what updateURL shows; create marked the inert knobs
    this.showNetwork();
    if (this.scenarioText !== '') this.scenarioEditor.check();
    this.wireLibraryPicker(byId('preset', HTMLSelectElement));
    requestAnimationFrame((t) => {
      this.frame(t);
      // A task queued from an animation frame runs once the frame is drawn.
      setTimeout(() => {
        if (clean) this.writeLink();
        this.controls.listen((name, v) => this.userChange(name, v));
        this.wire();
        onThemeChange(() => this.recolor());
        this.ab = new AB({
          engine: this.engine, params: this.params, values: () => this.values, replay: !!this.replay,
          restart: () => { this.engine.restart(); this.restarted(); },
          setFocus: (i) => this.setFocus(i), dots: () => this.view.dots, watch: (f) => this.watchers.push(f),
          frames: () => this.engine.frames(), primary: () => this.primary(),
        });
        then();
        document.documentElement.dataset.ready = '1';
      });
    });
  }

  /**
   * create starts a new run from values; if the engine refuses them it says
   * why and runs the preset instead, so the page is never empty.
   * @param {Float64Array} values
   */
  create(values) {
    const replay = this.replay;
    const run = (/** @type {Float64Array} */ v) => (replay ? this.engine.createReplay(v, replay.flat) : this.engine.create(v, this.scenarioText));
    const err = run(values);
    this.runErrors = err ? [err] : [];
    if (err && run(this.base) === '') values = this.base;
    this.values = Float64Array.from(values);
    if (this.replay?.fixed) {
      // What the trace fixes is the trace's, whatever values held.
      for (const [name, v] of this.replay.fixed) {
        this.values[this.params.findIndex((p) => p.name === name)] = v;
        this.controls.setValue(name, v);
      }
    }
    this.pending.clear();
    this.restarted();
    this.renderErrors();
    this.controls.markInert(this.values);
  }

  // restarted resizes everything for the run's techniques and entities.
  restarted() {
    const e = this.engine;
    this.techs = e.techniques();
    this.entities = e.entities();
    this.showTechniqueControls();
    this.focus = Math.min(this.focus, Math.max(0, this.entities - 1));
    e.setFocus(this.focus);
    this.view.reset(this.techs, this.entities, e.poseStride);
    this.view.setFocus(this.focus);
    this.timeline.setTechniques(this.techs);
    this.metrics.setTechniques(this.techs, e.underrunByDesign());
    this.legend();
    this.pull();
    this.ab?.restarted();
    this.showMetrics();
  }

  /**
   * change applies a designer's change of parameter name to v.
   * @param {string} name
   * @param {number} v
   */
  change(name, v) {
    const r = this.engine.set(name, v);
    const i = this.params.findIndex((p) => p.name === name);
    let restarted = r.restarted;
    if (r.error) {
      this.pending.set(name, { v, error: r.error });
    } else {
      this.pending.delete(name);
      this.values[i] = v;
      // A refused value may be allowed now (sendRate after tickRate moved).
      for (const [n, p] of this.pending) {
        const again = this.engine.set(n, p.v);
        if (again.error) {
          p.error = again.error;
          continue;
        }
        this.pending.delete(n);
        this.values[this.params.findIndex((q) => q.name === n)] = p.v;
        restarted ||= again.restarted;
      }
    }
    for (const p of this.params) this.controls.mark(p.name, this.pending.get(p.name)?.error ?? '');
    this.linkErrors = []; // the link's state is gone once the designer moves on
    this.runErrors = [];
    if (restarted) this.restarted();
    this.renderErrors();
    this.updateURL();
  }

  // fixReplayControls records the values the server showed for the
  // parameters the trace fixes, and disables their controls with a note.
  fixReplayControls() {
    const replay = this.replay;
    if (!replay) return;
    /** @type {Map<string, number>} */
    const fixed = new Map();
    for (const name of replay.names) {
      const p = this.params.find((q) => q.name === name);
      if (!p) continue;
      fixed.set(name, this.controls.value(p));
      for (const el of this.controls.inputs(name)) el.disabled = true;
      const field = this.controls.inputs(name)[0]?.closest('.field');
      if (field && !field.querySelector('.trace-fixed')) {
        field.classList.add('fixed');
        field.append(Object.assign(document.createElement('p'), {
          className: 'trace-fixed',
          textContent: `from the trace ${replay.name}`,
        }));
      }
    }
    replay.fixed = fixed;
    // The network sliders stay live (they shape the client clock's pings)
    // but say they do not change the replayed packets.
    for (const name of replay.ignored) {
      const field = this.controls.inputs(name)[0]?.closest('.field');
      if (field && !field.querySelector('.trace-ignored')) {
        field.classList.add('replay-ignored');
        field.append(Object.assign(document.createElement('p'), {
          className: 'trace-fixed trace-ignored',
          textContent: name === 'motion' ? 'unused in a replay' : "replay: shapes only the clock's pings, not the packets",
        }));
      }
    }
    byId('stress', HTMLInputElement).disabled = true; // it changes entities
  }

  // updateURL writes the share link of the running state (writeLink) and
  // shows what follows from the settings: the advice and the inert knobs.
  updateURL() {
    this.writeLink();
    this.showAdvice();
    this.controls.markInert(this.values);
    for (const f of this.watchers) f();
  }

  // writeLink puts the share link of the running state in the address bar
  // (on a session's page, only its unsaved changes: session.js) and in the
  // export links.
  writeLink() {
    let q = shareQuery(this.engine, this.params, this.preset, this.base, this.values);
    if (this.customScenario() && this.scenarioText !== '') {
      q += (q ? '&' : '') + 'scenarioText=' + encodeURIComponent(this.scenarioText);
    }
    if (this.replay) {
      // The address names the trace and leaves out what the trace fixes.
      const shown = Float64Array.from(this.values);
      for (const name of this.replay.fixed?.keys() ?? []) {
        const i = this.params.findIndex((p) => p.name === name);
        shown[i] = this.base[i];
      }
      const rest = shareQuery(this.engine, this.params, this.preset, this.base, shown);
      mirror('trace=' + encodeURIComponent(this.replay.name) + (rest ? '&' + rest : ''));
      maybeId('trace-leave', HTMLAnchorElement)?.setAttribute('href', '/?' + q);
    } else if (!maybeId('session', HTMLElement)) {
      mirror(q); // a session's page carries only its unsaved changes (session.js)
    }
    this.exportLinks(q);
    this.query = q;
  }

  /**
   * exportLinks points the export links and their 'vs' previews at the state
   * of query; on a session page the exports name the session's revision
   * (from=session:ID@REV), which the export's heading names.
   * @param {string} query
   */
  exportLinks(query) {
    const bar = maybeId('session', HTMLElement);
    const from = bar ? `session:${bar.dataset.id}@${bar.dataset.rev}` : '';
    for (const a of document.querySelectorAll('a.export')) {
      if (a instanceof HTMLAnchorElement) a.href = exportURL(a.dataset.format ?? '', query, from);
    }
    for (const a of document.querySelectorAll('a.export-preview')) {
      if (a instanceof HTMLAnchorElement) a.href = previewURL(a.dataset.netsim ?? '', query, (a.dataset.versions ?? '').split(' ').filter(Boolean));
    }
  }

  renderErrors() {
    const list = [...this.linkErrors, ...this.runErrors, ...[...this.pending.values()].map((p) => p.error)];
    const box = byId('errors', HTMLElement);
    byId('error-list', HTMLElement).replaceChildren(...list.map((t) => Object.assign(document.createElement('li'), { textContent: t })));
    const title = box.querySelector('strong');
    if (title) title.textContent = this.linkErrors.length
      ? 'This link has settings the lab cannot use:'
      : 'The engine refused:';
    box.hidden = list.length === 0;
  }

  /** @param {HTMLOptionElement} opt */
  choosePreset(opt) {
    this.preset = opt.value;
    this.base = presetValues(this.engine, this.params, opt.dataset.query ?? '');
    this.params.forEach((p, i) => this.controls.setValue(p.name, this.base[i]));
    for (const p of this.params) this.controls.mark(p.name, '');
    this.linkErrors = [];
    this.undoStack = [];
    this.redoStack = [];
    byId('preset-doc', HTMLElement).textContent = opt.dataset.doc ?? '';
    if (opt.dataset.custom !== undefined) {
      // A custom preset lives on this lab only: the link carries its
      // values against the defaults, so it opens anywhere.
      this.preset = '';
      this.base = presetValues(this.engine, this.params, '');
    }
    this.create(this.controls.values());
    this.updateURL();
  }

  /** @param {number} i */
  setFocus(i) {
    this.focus = i;
    this.engine.setFocus(i);
    this.view.setFocus(i);
    this.timeline.clear();
    byId('focus', HTMLElement).textContent = String(i);
    this.ab?.setFocus(i);
  }

  // pull takes the latest frame out of the engine: one call into Go
  // (interplab.pull, where poses, timeline, frames and time were four),
  // which copies nothing: the view and the timeline read the poses and
  // records where Go wrote them (engine.js Pull).
  pull() {
    const p = this.pulled;
    p.pull();
    this.simTime = p.time;
    this.view.update(p.poses(), p.frames > 0); // no trail from before the first frame
    this.view.addPackets(p.packets(), p.np, this.engine.packetStride, p.time);
    this.timeline.add(p.packets(), p.np, p.frameRecords(), p.nf);
    this.lastFrames = p.frames;
  }

  // wireCapture wires the PNG and Record buttons.
  wireCapture() {
    const c = this.capture;
    const record = byId('record', HTMLButtonElement);
    byId('snapshot', HTMLButtonElement).addEventListener('click', async () => {
      download(await c.png(), `interplab-${stamp()}.png`);
    });
    /** @type {number | undefined} */
    let tick;
    c.onRecorded = (blob) => {
      clearInterval(tick);
      record.textContent = 'Record';
      record.classList.remove('on');
      download(blob, `interplab-${stamp()}.${recordingExt(blob.type)}`);
    };
    c.onEmpty = (message) => {
      clearInterval(tick);
      record.textContent = 'Record';
      record.classList.remove('on');
      this.runErrors = [message];
      this.renderErrors();
    };
    record.addEventListener('click', async () => {
      if (c.recording) {
        c.stop();
        return;
      }
      if (c.starting) return;
      // Choosing how to record asks the browser's encoders, which answer
      // asynchronously: the button says so meanwhile.
      record.textContent = 'Starting…';
      try {
        await c.record();
      } catch (e) {
        record.textContent = 'Record';
        this.runErrors = [String(e instanceof Error ? e.message : e)];
        this.renderErrors();
        return;
      }
      record.classList.add('on');
      record.textContent = 'Stop (0 s)';
      tick = window.setInterval(() => {
        record.textContent = `Stop (${c.elapsed().toFixed(0)} s)`;
      }, 250);
    });
  }

  /**
   * wireLibraryPicker asks a first-time visitor which library their game is
   * on (once per browser) and starts from that library's preset; the
   * Library… button asks again.
   * @param {HTMLSelectElement} preset
   */
  wireLibraryPicker(preset) {
    const dialog = maybeId('library-start', HTMLDialogElement);
    if (!dialog) return;
    const KEY = 'interplab.library';
    dialog.addEventListener('close', () => {
      document.body.classList.remove('picking');
      const v = dialog.returnValue;
      try {
        localStorage.setItem(KEY, v || 'dismissed');
      } catch {
        // storage refused (private mode): the picker shows again next time
      }
      if (!v) return; // Escape: keep what is shown
      const name = v === 'lab' ? '' : v;
      const opt = [...preset.options].find((o) => o.value === name);
      if (!opt) return;
      preset.value = name;
      this.choosePreset(opt);
    });
    // The error banners wait while the question is asked (body.picking
    // hides them): the answer, a preset, clears a link's errors.
    const open = () => {
      dialog.returnValue = '';
      document.body.classList.add('picking');
      dialog.showModal();
    };
    maybeId('library-open', HTMLButtonElement)?.addEventListener('click', open);
    // The browser's storage is read only on a page that asks (a first
    // visit's): its first read in a new profile cost the first frame of
    // every page a few ms.
    if (dialog.dataset.first !== undefined && storedAnswer(KEY) === null) open();
  }

  // showAdvice lists the library knobs that disagree with the lab's network
  // (engine.Advice), so a designer who moves the send rate moves Mirror's too.
  showAdvice() {
    const list = this.engine.advice();
    const box = maybeId('advice', HTMLElement);
    if (!box) return;
    box.hidden = list.length === 0;
    byId('advice-summary', HTMLElement).textContent = list.length === 1
      ? 'A library setting is not as the game would run it (open for which)'
      : `${list.length} library settings are not as the game would run them (open for which)`;
    byId('advice-list', HTMLElement).replaceChildren(...list.map((t) => Object.assign(document.createElement('li'), { textContent: t })));
  }

  /**
   * primary returns the library technique the designer is on: the first
   * library technique running, as engine's PrimaryTechnique picks it; ""
   * when only the lab's own run.
   */
  primary() {
    return this.techs.find((t) => this.libraries.has(t)) ?? '';
  }

  // showTechniqueControls shows the settings and the exports of the
  // selected techniques only: a library's knobs and its export appear with
  // its technique. On a library the side panel starts on it (the order of
  // templates' groupRank): under the "Compare with the lab's techniques"
  // toggle, its knobs, the other libraries running, the scenario and the
  // network, then the lab's own techniques, folded when they come in; the
  // library's export comes first.
  showTechniqueControls() {
    const on = new Set(this.techs);
    const lib = this.primary();
    const switched = this.arrangedFor !== null && (this.arrangedFor === '') !== (lib === '');
    this.arrangedFor = lib;
    for (const f of byId('controls', HTMLFormElement).children) {
      if (!(f instanceof HTMLFieldSetElement)) continue;
      const techs = (f.dataset.techniques ?? '').split(' ').filter(Boolean);
      const library = techs.some((t) => this.libraries.has(t));
      const hide = techs.length > 0 && !techs.some((t) => on.has(t));
      const appears = f.hidden && !hide;
      f.hidden = hide;
      const rank = lib === '' ? 0 : library && techs.includes(lib) ? 0 : library && !hide ? 1 : techs.length === 0 ? 2 : 3;
      f.style.order = String(rank);
      const body = f.querySelector(':scope > details');
      if (!(body instanceof HTMLDetailsElement)) continue;
      // A group that comes in, or the lab's when the designer moves between
      // a library and the lab, opens as the server would render it; the
      // rest keep what the designer folded or unfolded.
      if (library && appears) body.open = true;
      else if (techs.length > 0 && !library && (appears || switched)) body.open = lib === '';
    }
    const compare = maybeId('compare-lab', HTMLElement);
    if (compare) {
      compare.hidden = lib === '';
      compare.style.order = '-1';
      byId('compare-lab-toggle', HTMLInputElement).checked = this.techs.some((t) => !this.libraries.has(t));
    }
    for (const a of document.querySelectorAll('a.export')) {
      if (!(a instanceof HTMLElement)) continue;
      if (a.dataset.technique) a.hidden = !on.has(a.dataset.technique);
      a.style.order = lib !== '' && a.dataset.technique === lib ? '-1' : '0';
      a.classList.toggle('primary', lib !== '' && a.dataset.technique === lib);
    }
  }

  /**
   * compareLab brings the lab's buffer and EPIC in beside the library the
   * designer is on (on), or takes every one of the lab's techniques out
   * (off): a designer change of the techniques, undone by Ctrl+Z.
   * @param {boolean} on
   */
  compareLab(on) {
    const i = this.params.findIndex((p) => p.name === 'techniques');
    const p = this.params[i];
    let mask = this.values[i];
    p.choices.forEach((c, k) => {
      if (this.libraries.has(c)) return;
      if (!on) mask &= ~(1 << k);
      else if (c === 'buffer' || c === 'epic') mask |= 1 << k;
    });
    this.controls.setValue('techniques', mask);
    this.userChange('techniques', mask);
  }

  showMetrics() {
    const n = this.engine.metrics(this.metricValues);
    if (n !== this.metricValues.length) {
      this.metricValues = new Float64Array(n);
      this.engine.metrics(this.metricValues);
    }
    this.metrics.show(this.metricValues);
    this.metrics.showDelays(this.engine.delays(), this.engine.liveDelays());
    this.ab?.showDeltas(this.techs, this.metricValues);
    byId('clock', HTMLElement).textContent = `t = ${this.engine.time().toFixed(2)} s · frame ${this.engine.frames()}`;
  }

  draw() {
    const t0 = performance.now();
    this.view.draw(this.simTime);
    this.timeline.draw();
    this.ab?.draw();
    if (this.capture.recording) this.capture.frame();
    return performance.now() - t0;
  }

  // captureViews is what a capture shows: the view, and with the A/B view
  // pinned the pinned run's beside it, each with its legend (the library
  // the designer is on first, as on the page).
  captureViews() {
    const lib = this.primary();
    const ab = this.ab?.pinned ? this.ab : null;
    const views = [{ canvas: this.view.canvas, title: ab ? 'current settings' : 'the view', legend: libraryFirst(this.techs, lib) }];
    if (ab) views.push({ canvas: ab.canvas, title: 'pinned: ' + ab.label, legend: libraryFirst(ab.techs, lib) });
    return views;
  }

  // captureTitle says what a capture shows: the session and its revision,
  // the replayed trace, or the preset.
  captureTitle() {
    const s = maybeId('session', HTMLElement);
    if (s) return `session “${s.dataset.name ?? ''}”, revision ${s.dataset.rev ?? '?'}` + (s.dataset.unsaved === 'true' ? ', with unsaved changes' : '');
    const opt = byId('preset', HTMLSelectElement).selectedOptions[0];
    const preset = opt?.value ? (opt.textContent ?? opt.value).replace(/\s+/g, ' ').trim() : '';
    const what = opt?.dataset.custom !== undefined ? `custom preset ${preset} (its values against the lab's defaults)`
      : preset ? `preset ${preset} (${opt.value})` : "the lab's defaults";
    return this.replay ? `replay of the trace ${this.replay.name}, ${what}` : what;
  }

  /**
   * changedSettings lists the settings that differ from what the page
   * started from (the preset, or on a session's page its saved revision),
   * in display units: "latency = 120 ms (preset: 50 ms)".
   * @returns {{from: string, list: string[]}}
   */
  changedSettings() {
    const e = this.engine;
    const saved = this.session?.saved() ?? null;
    const base = saved ?? this.base;
    const was = saved ? 'saved' : this.preset ? 'preset' : 'default';
    const from = saved ? 'the saved revision' : this.preset ? 'the preset' : "the lab's defaults";
    const out = [];
    for (const [i, p] of this.params.entries()) {
      if (e.format(p.name, this.values[i]) === e.format(p.name, base[i])) continue;
      out.push(`${p.name} = ${show(e, p, this.values[i])} (${was}: ${show(e, p, base[i])})`);
    }
    if (this.customScenario() && this.scenarioText !== '') out.push('scenarioText = ' + this.scenarioText.replaceAll('\n', ' ⏎ '));
    return { from, list: out };
  }

  // renderRate returns the run's client render rate, Hz.
  renderRate() {
    const i = this.params.findIndex((q) => q.name === 'renderRate');
    return this.values[i] > 0 ? this.values[i] : 60;
  }

  /** @param {number} now */
  frame(now) {
    const p = this.perf;
    const real = p.last ? (now - p.last) / 1000 : 0;
    // With the A/B view open two runs step each frame (the pinned one in its
    // worker): at most one render frame of simulated time per animation
    // frame, so a machine that cannot keep up shows both in slow motion
    // instead of falling behind further with every catch-up frame.
    // The first animation frame steps one render frame, so that the first
    // frame drawn shows the run, not the empty scene before it.
    const dt = p.last ? Math.min(real, this.ab?.pinned ? 1 / this.renderRate() : MAX_DT) : 1 / this.renderRate();
    // The metrics panel was filled when the run was created (restarted):
    // the first frame leaves it to the refresh PANEL_EVERY later, so the
    // page's first paint costs one layout, not a second one after the
    // panel's text changed, and no calls into the engine for it.
    if (!p.last) p.panel = now;
    p.last = now;
    let stepMs = 0;
    // The frame count of the last pull: every step that renders a frame is
    // followed by a pull, so this is frames() without a call into Go.
    const before = this.lastFrames;
    const headings = this.view.needsHeadings();
    if (headings !== this.headings) {
      this.headings = headings;
      this.engine.setHeadings(headings); // the stress view's dots need none
    }
    const stepping = !this.paused && dt > 0;
    let after = before;
    if (stepping) {
      const t0 = performance.now();
      after = this.engine.step(dt * this.speed);
      stepMs = performance.now() - t0;
    }
    // Each call into Go costs tens of microseconds whatever it does: a
    // frame makes two (step, pull), where it made nine.
    if (after !== this.lastFrames) {
      // The benchmarks' cold start: from navigation to the first simulated
      // frame, and to that frame painted (a task posted from a frame's
      // callback runs after the browser has styled, laid it out and painted
      // it).
      if (this.lastFrames === 0 && performance.getEntriesByName('lab-first-frame').length === 0) {
        performance.mark('lab-first-frame');
        const ch = new MessageChannel();
        ch.port1.onmessage = () => performance.mark('lab-first-frame-painted');
        ch.port2.postMessage(null);
      }
      this.pull();
    }
    const drawMs = this.draw();
    // The pinned run steps in its worker after this thread's step and draw,
    // while this thread waits for the next frame. Started first, the two
    // steps ran at once and crowded the cores the compositor needs too: this
    // thread's step took longer and frames were dropped. Either way the
    // answer is drawn at the next frame.
    if (stepping) this.ab?.step(dt * this.speed);
    const stepped = after - before;
    for (const s of this.samplers) s(now, stepMs, drawMs, stepped);
    p.step += (stepMs - p.step) * 0.1;
    p.draw += (drawMs - p.draw) * 0.1;
    if (real > 0) p.fps += (1 / real - p.fps) * 0.1;
    if (now - p.panel > PANEL_EVERY) {
      p.panel = now;
      this.showMetrics();
      byId('perf', HTMLElement).textContent =
        `step ${p.step.toFixed(2)} ms · draw ${p.draw.toFixed(2)} ms · ${p.fps.toFixed(0)} fps · ` +
        `${this.entities} × ${this.techs.length}`;
    }
    requestAnimationFrame((t) => this.frame(t));
  }

  /**
   * advance renders exactly n more frames, stepping a quarter frame at a
   * time so that no frame is skipped whatever the rounding.
   * @param {number} n
   */
  advance(n) {
    const e = this.engine;
    const rate = this.values[this.params.findIndex((p) => p.name === 'renderRate')];
    const target = e.frames() + n;
    while (e.frames() < target) {
      e.step(1 / rate / 4);
      this.ab?.step(1 / rate / 4);
    }
    this.pull();
    this.showMetrics();
    this.draw();
    return e.frames();
  }

  /** @param {boolean} on */
  setPaused(on) {
    this.paused = on;
    byId('pause', HTMLButtonElement).textContent = on ? 'Play' : 'Pause';
    byId('pause', HTMLButtonElement).classList.toggle('on', on);
  }

  // legend names the colours of the view: the ground truth, then the
  // library the designer is on, then the rest.
  // recolor redraws everything coloured by technique in the page's theme,
  // which changed while the page was open.
  recolor() {
    this.view.recolor();
    this.legend();
    this.metrics.setTechniques(this.techs, this.engine.underrunByDesign());
    this.showMetrics();
    this.ab?.recolor();
  }

  legend() {
    fillLegend(byId('legend', HTMLElement), libraryFirst(this.techs, this.primary()));
  }

  wire() {
    const preset = byId('preset', HTMLSelectElement);
    preset.addEventListener('change', () => this.choosePreset(preset.selectedOptions[0]));
    this.wireCapture();
    // A save moves the session to a new revision: the links name it when used.
    for (const a of document.querySelectorAll('a.export')) a.addEventListener('click', () => this.exportLinks(this.query ?? ''));
    byId('pause', HTMLButtonElement).addEventListener('click', () => this.setPaused(!this.paused));
    byId('step', HTMLButtonElement).addEventListener('click', () => {
      this.setPaused(true);
      this.advance(1);
    });
    byId('restart', HTMLButtonElement).addEventListener('click', () => {
      this.engine.restart();
      this.restarted();
    });
    const speed = byId('speed', HTMLInputElement);
    speed.addEventListener('input', () => {
      this.speed = Number(speed.value);
      byId('speed-out', HTMLElement).textContent = this.speed.toFixed(2) + '×';
    });
    byId('zoom-in', HTMLButtonElement).addEventListener('click', () => this.view.zoom(1.5));
    byId('zoom-out', HTMLButtonElement).addEventListener('click', () => this.view.zoom(1 / 1.5));
    byId('zoom-fit', HTMLButtonElement).addEventListener('click', () => this.view.fit());
    const stress = byId('stress', HTMLInputElement);
    stress.addEventListener('change', () => this.stress(stress.checked));
    byId('copy-link', HTMLButtonElement).addEventListener('click', () => this.copyLink());
    const compare = maybeId('compare-lab-toggle', HTMLInputElement);
    compare?.addEventListener('change', () => this.compareLab(compare.checked));
    byId('network-toggle', HTMLButtonElement).addEventListener('click', () => this.toggleNetwork());
    this.watchers.push(() => this.showNetwork());
    document.addEventListener('keydown', (e) => {
      // Ctrl+Z undoes a slider change, Ctrl+Shift+Z (or Ctrl+Y) redoes it;
      // in a text box they stay the box's own.
      const key = e.key.toLowerCase();
      if ((e.ctrlKey || e.metaKey) && !e.altKey && (key === 'z' || key === 'y')) {
        const t = e.target;
        const typing = t instanceof HTMLTextAreaElement || (t instanceof HTMLInputElement && (t.type === 'text' || t.type === 'number' || t.type === 'search'));
        if (typing || maybeId('save-dialog', HTMLDialogElement)?.open) return;
        e.preventDefault();
        this.undo(key === 'y' || e.shiftKey);
        return;
      }
      if ((e.target instanceof Element && e.target.closest('input, select, textarea, button, a')) || e.ctrlKey || e.metaKey || e.altKey) return;
      const act = {
        ' ': () => this.setPaused(!this.paused),
        '.': () => byId('step', HTMLButtonElement).click(),
        r: () => byId('restart', HTMLButtonElement).click(),
        '+': () => this.view.zoom(1.5),
        '=': () => this.view.zoom(1.5),
        '-': () => this.view.zoom(1 / 1.5),
        0: () => this.view.fit(),
      }[e.key];
      if (act) {
        e.preventDefault();
        act();
      }
    });
  }

  /**
   * stress switches to the dot view; with few entities it also raises the
   * count to the table's maximum, and switching back restores it.
   * @param {boolean} on
   */
  stress(on) {
    this.view.dots = on;
    const p = this.params.find((q) => q.name === 'entities');
    if (!p) return;
    if (on && this.entities < 1000 && !this.replay) {
      this.beforeStress = this.entities;
      this.controls.setValue('entities', p.max);
      this.change('entities', p.max);
    } else if (!on && this.beforeStress !== undefined) {
      this.controls.setValue('entities', this.beforeStress);
      this.change('entities', this.beforeStress);
      this.beforeStress = undefined;
    }
  }

  // copyLink copies the page's link: the state it shows (the address), or
  // on a session's page the session's name alone (/s/ID, /s/ID/r/N): see
  // session.js for why, and for the link with the unsaved changes.
  copyLink() {
    return copyText(maybeId('session', HTMLElement) ? location.origin + location.pathname : location.href);
  }

  // hooks is what tests and benchmarks drive (globalThis.lab).
  hooks() {
    const nf = this.engine.metricFields().map((f) => f.name);
    return {
      pause: () => this.setPaused(true),
      resume: () => this.setPaused(false),
      restart: () => {
        this.engine.restart();
        this.restarted();
      },
      advance: (/** @type {number} */ n) => this.advance(n),
      state: () => ({
        time: this.engine.time(),
        frames: this.engine.frames(),
        techniques: this.techs,
        entities: this.entities,
        focus: this.focus,
        paused: this.paused,
        trace: this.replay?.name ?? '',
      }),
      capture: this.capture,
      ab: () => this.ab?.state(),
      settings: () => Object.fromEntries(this.params.map((p, i) => [p.name, this.engine.format(p.name, this.values[i])])),
      history: () => ({ undo: this.undoStack.length, redo: this.redoStack.length }),
      poses: () => Array.from(this.view.poses),
      // whether the view draws the poses where the engine wrote them (engine.js Pull), not a copy
      posesOnMemory: () => this.view.poses.buffer === this.engine.memory.buffer,
      pose: (/** @type {number} */ row, /** @type {number} */ e) => {
        const k = this.engine.poseStride;
        return Array.from(this.pulled.poses().subarray((row * this.entities + e) * k, (row * this.entities + e + 1) * k));
      },
      screen: (/** @type {number} */ row, /** @type {number} */ e) => this.view.screenOf(row, e),
      // the view's colours: the ground truth's, then each technique's
      colors: () => this.view.colors.slice(),
      // the scale bar's box in the view, in page coordinates (CSS pixels)
      scaleBox: () => {
        const r = this.view.canvas.getBoundingClientRect();
        const b = this.view.scaleBox;
        return { x: r.x + b.x, y: r.y + b.y, w: b.w, h: b.h };
      },
      metrics: () => {
        this.showMetrics();
        /** @type {Record<string, Record<string, number>>} */
        const out = {};
        this.techs.forEach((t, i) => {
          out[t] = Object.fromEntries(nf.map((f, j) => [f, this.metricValues[i * nf.length + j]]));
        });
        return out;
      },
      // measure samples seconds of animation frames: fps, engine step and
      // draw time per frame.
      measure: (/** @type {number} */ seconds) => new Promise((resolve) => {
        const acc = { start: 0, frames: 0, wall: 0, step: 0, draw: 0, stepMax: 0, simFrames: 0 };
        let ab0 = this.ab?.stepStats() ?? { ms: 0, steps: 0 };
        /** @type {(now: number, step: number, draw: number, stepped: number) => void} */
        const s = (now, step, draw, stepped) => {
          if (!acc.start) {
            acc.start = now; // the first sample only starts the clock
            ab0 = this.ab?.stepStats() ?? ab0;
            return;
          }
          acc.frames++;
          acc.wall = (now - acc.start) / 1000;
          acc.step += step;
          acc.simFrames += stepped;
          acc.draw += draw;
          acc.stepMax = Math.max(acc.stepMax, step);
          if (acc.wall >= seconds) {
            this.samplers = this.samplers.filter((x) => x !== s);
            const ab1 = this.ab?.stepStats() ?? ab0;
            resolve({
              fps: acc.frames / acc.wall,
              stepMs: acc.step / acc.frames, // per animation frame
              stepMsPerSimFrame: acc.step / Math.max(1, acc.simFrames), // per engine frame (1/renderRate)
              simFrames: acc.simFrames,
              stepMaxMs: acc.stepMax,
              drawMs: acc.draw / acc.frames,
              // the A/B view's pinned run, stepped in its worker: ms per step
              // (a step is one animation frame's time, or more when it lagged)
              pinnedStepMs: ab1.steps > ab0.steps ? (ab1.ms - ab0.ms) / (ab1.steps - ab0.steps) : 0,
              frames: acc.frames,
              entities: this.entities,
              techniques: this.techs.length,
            });
          }
        };
        this.samplers.push(s);
      }),
    };
  }
}

/**
 * storedAnswer returns the browser's stored value of key, or null when
 * there is none or the storage is refused (private mode).
 * @param {string} key
 */
function storedAnswer(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/** @param {string} message */
function fatal(message) {
  byId('error-list', HTMLElement).replaceChildren(Object.assign(document.createElement('li'), { textContent: message }));
  const box = byId('errors', HTMLElement);
  const title = box.querySelector('strong');
  if (title) title.textContent = 'The lab could not start:';
  box.hidden = false;
}

/**
 * placeFields puts the side panel's controls in place: the server renders
 * each group's fields inside a <template> (under the group's title), so
 * that the parser builds none of the page's ~230 form controls. Built by
 * the parser, they cost a cold start in Chromium a style and layout of the
 * whole panel when parsing ended and its form extraction (autofill) over
 * every control at DOMContentLoaded, about 300 ms of the main thread that
 * the engine's start waited for; placed here, once the engine is there and
 * before anything looks a control up, they are laid out once, with the
 * first frame. Before then (a slow engine) the panel shows its groups'
 * titles.
 */
function placeFields() {
  for (const t of document.querySelectorAll('#controls template.group-fields')) {
    if (t instanceof HTMLTemplateElement) t.replaceWith(t.content);
  }
}

/** @type {Interplab} */
let engine;
try {
  engine = await loadEngine('/lab.wasm');
} catch (err) {
  placeFields(); // the link's settings stay readable beside the error
  fatal(err instanceof Error ? err.message : String(err));
  throw err;
}
const params = engine.params();
// The colours first, while the page's style is as the parser left it (see readColors).
readColors(['truth', ...(params.find((p) => p.name === 'techniques')?.choices ?? [])]);
placeFields();
const { replay, errors: replayErrors } = await loadReplay(maybeId('trace-banner', HTMLElement));
const lab = new Lab(engine, params, replay, replayErrors);
lab.start(() => {
  lab.session = initSession({
    engine,
    params: lab.params,
    values: () => lab.values,
    query: () => lab.query,
    set: (name, v) => {
      lab.controls.setValue(name, v);
      lab.change(name, v);
    },
    watch: (f) => lab.watchers.push(f),
    scenarioText: () => (lab.customScenario() ? lab.scenarioText : ''),
    applyScenario: (text) => lab.applyScenario(text),
  }).capture;
  initPresets({
    engine, params: lab.params, values: () => lab.values, choose: (opt) => lab.choosePreset(opt),
    scenarioText: () => (lab.customScenario() ? lab.scenarioText : ''),
  });
  initJobLinks({ query: () => lab.query, watch: (f) => lab.watchers.push(f) });
  globalThis.lab = lab.hooks();
});
