// @ts-check
// jobs.js runs the sweep (/sweep), tuner (/tune) and population
// (/population) pages: it starts a job from the form (POST /api/sweeps,
// /api/tunes or /api/populations), follows its progress over
// the job's WebSocket (protocol in cmd/lab/internal/jobs/ws.go), cancels
// it, and draws the charts the server renders (GET {page}/chart, ECharts
// options).

import { byId, maybeId } from './dom.js';
import { readable } from './format.js';

/**
 * @typedef {import('./types/interplab').JobStatus} JobStatus
 * @typedef {import('./types/interplab').JobAccepted} JobAccepted
 * @typedef {import('./types/interplab').ApiError} ApiError
 * @typedef {{name: string, min: string, max: string, steps: number}} AxisRequest
 */

const form = byId('job-form', HTMLFormElement);
const kind = form.dataset.kind;
const box = byId('job', HTMLElement);
const progress = byId('progress', HTMLProgressElement);
const progressText = byId('progress-text', HTMLElement);
const cancel = byId('cancel', HTMLButtonElement);
const start = byId('start', HTMLButtonElement);
const CHART_EVERY_MS = 500; // partial charts are fetched at most this often

// request builds the job's JSON from the form.
function request() {
  const f = new FormData(form);
  const val = (/** @type {string} */ name) => (f.get(name) ?? '').toString().trim();
  const int = (/** @type {string} */ name) => (val(name) === '' ? 0 : Number(val(name)));
  if (kind === 'sweep') {
    /** @returns {AxisRequest} */
    const axis = (/** @type {string} */ a) => ({ name: val(a + '.name'), min: val(a + '.min'), max: val(a + '.max'), steps: int(a + '.steps') });
    /** @type {{technique: string, base: string, x: AxisRequest, y?: AxisRequest, metric: string}} */
    const req = { technique: val('technique'), base: val('base'), x: axis('x'), metric: val('metric') };
    if (val('y.name') !== '') req.y = axis('y');
    return req;
  }
  if (kind === 'population') {
    /** @type {{base: string, population: string, techniques: string[], entities: number, rounds: number, round: number, seed?: number}} */
    const req = {
      base: val('base'), population: val('population'), techniques: f.getAll('techniques').map(String),
      entities: int('entities'), rounds: int('rounds'), round: int('round'),
    };
    if (val('seed') !== '') req.seed = int('seed');
    return req;
  }
  /** @type {Record<string, number>} */
  const weights = {};
  for (const n of ['errP95', 'addedLatency', 'snaps', 'underrun']) weights[n] = Number(val('weights.' + n) || 0);
  /** @type {{metric: string, max: string}[]} */
  const constraints = [];
  const metrics = form.querySelectorAll('select[name="constraint.metric"]');
  const maxes = form.querySelectorAll('input[name="constraint.max"]');
  metrics.forEach((sel, i) => {
    const max = maxes[i];
    if (!(sel instanceof HTMLSelectElement) || !(max instanceof HTMLInputElement) || sel.value === '') return;
    // As typed: a plain number is in the unit shown, which the server reads
    // it in (engine.ParseMetric), so an error quotes what was typed.
    constraints.push({ metric: sel.value, max: max.value.trim() });
  });
  /** @type {{technique: string, base: string, motions: string[], weights: Record<string, number>, constraints: {metric: string, max: string}[], budget: number, seed: number, seeds: number, population?: {name: string, entities: number, rounds: number, round?: number}}} */
  const req = {
    technique: val('technique'), base: val('base'), motions: f.getAll('motions').map(String),
    weights, constraints, budget: int('budget'), seed: int('seed'), seeds: int('seeds'),
  };
  if (val('population') !== '') {
    // Each entity of a population has its own motion: no mix.
    req.motions = [];
    req.population = { name: val('population'), entities: int('population.entities'), rounds: int('population.rounds') };
    if (val('population.round') !== '') req.population.round = Number(val('population.round'));
  }
  return req;
}

/**
 * showError shows a refused request and marks the input of its field (a
 * setting of the base marks the base).
 * @param {string} text
 * @param {string} [field]
 */
function showError(text, field) {
  const p = byId('job-error', HTMLElement);
  p.textContent = text;
  p.hidden = !text;
  p.dataset.field = field || '';
  for (const el of form.querySelectorAll('[aria-invalid]')) el.removeAttribute('aria-invalid');
  if (!field) return;
  if (field === 'points') field = 'x.steps';
  // constraints are only counted among the rows that are set
  const el = form.querySelector(`[data-field="${CSS.escape(field)}"]`) ?? form.querySelector('[data-field="base"]');
  if (!(el instanceof HTMLElement)) return;
  el.setAttribute('aria-invalid', 'true');
  el.focus();
}

/** @param {Pick<JobStatus, 'state' | 'done' | 'total' | 'error'>} st */
function setState(st) {
  box.hidden = false;
  box.dataset.state = st.state;
  progress.max = st.total || 1;
  progress.value = st.done;
  progressText.textContent = `${st.done} / ${st.total} · ${st.state}` + (st.error ? ': ' + st.error : '');
  cancel.hidden = st.state !== 'running';
  const csv = maybeId('csv', HTMLAnchorElement);
  if (csv) csv.hidden = st.state === 'running';
  start.disabled = st.state === 'running';
}

// chart draws the options from url into the chart element id.
let lastChart = 0;
/** @type {ReturnType<typeof setTimeout> | null} */
let chartTimer = null;
/** @param {boolean} force */
async function drawChart(force) {
  if (kind !== 'sweep' || !box.dataset.chart) return;
  const wait = lastChart + CHART_EVERY_MS - Date.now();
  if (!force && wait > 0) {
    chartTimer ??= setTimeout(() => { chartTimer = null; drawChart(true); }, wait);
    return;
  }
  lastChart = Date.now();
  const url = box.dataset.chart + '?metric=' + encodeURIComponent(byId('metric', HTMLSelectElement).value);
  const res = await fetch(url);
  if (!res.ok) return;
  const { option } = await res.json();
  const el = byId('sweep-chart', HTMLElement);
  labChart(el, option);
  el.dataset.drawn = String(option.series?.[0]?.data?.length ?? 0);
}

// watch follows the job until it ends.
function watch() {
  const proto = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(proto + '//' + location.host + box.dataset.ws);
  let ended = false;
  ws.onmessage = (ev) => {
    /** @type {JobStatus} */
    const msg = JSON.parse(ev.data);
    setState(msg);
    if (msg.type === 'progress' && msg.items?.length) {
      if (kind === 'sweep') drawChart(false);
      else if (kind === 'tune') showBest(msg.items);
    }
    if (msg.type === 'end') {
      ended = true;
      ws.close();
      if (kind === 'tune' && msg.state !== 'failed') location.replace(box.dataset.page ?? '');
      else if (kind === 'population' && msg.state === 'done') location.replace(box.dataset.page ?? '');
      else drawChart(true);
    }
  };
  ws.onclose = () => {
    if (!ended) showError('lost the connection to the server; reload to see the job', '');
  };
  cancel.onclick = async () => {
    cancel.disabled = true;
    await fetch(`/api/jobs/${box.dataset.id}/cancel`, { method: 'POST' });
    cancel.disabled = false;
  };
}

let bestCost = Infinity;
/** @param {unknown[]} items the tuner's candidates, as server/tune.go tuneItem */
function showBest(items) {
  for (const it of /** @type {{feasible: boolean, cost: number}[]} */ (items)) if (it.feasible) bestCost = Math.min(bestCost, it.cost);
  if (bestCost < Infinity) progressText.textContent += ` · least feasible cost ${readable(bestCost, 1, 4)}`;
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  showError('', '');
  start.disabled = true;
  let res;
  try {
    res = await fetch(form.dataset.api ?? '', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request()),
    });
  } catch (err) {
    start.disabled = false;
    showError('could not reach the server: ' + (err instanceof Error ? err.message : err), '');
    return;
  }
  if (res.status !== 202) {
    /** @type {ApiError} */
    const body = await res.json();
    start.disabled = false;
    showError(body.error, body.field);
    return;
  }
  /** @type {JobAccepted} */
  const body = await res.json();
  history.pushState(null, '', body.page);
  Object.assign(box.dataset, { id: body.id, ws: body.ws, page: body.page, chart: body.page + '/chart', state: 'running' });
  const csv = maybeId('csv', HTMLAnchorElement);
  if (csv) csv.href = body.page + '/data.csv';
  document.getElementById('tune-result')?.remove();
  document.getElementById('population-result')?.remove();
  setState({ state: 'running', done: 0, total: body.total });
  watch();
});

// The axis inputs start at a parameter's whole range when it is chosen.
for (const sel of form.querySelectorAll('select.axis-name')) {
  if (!(sel instanceof HTMLSelectElement)) continue;
  const axis = sel.name.split('.')[0];
  /** @param {string} name */
  const input = (name) => {
    const el = form.elements.namedItem(axis + '.' + name);
    return el instanceof HTMLInputElement ? el : null;
  };
  const unit = () => {
    const o = sel.selectedOptions[0];
    const shown = form.querySelector(`[data-unit-of="${axis}"]`);
    if (shown) shown.textContent = o?.dataset.unit ? 'plain numbers in ' + o.dataset.unit : '';
    // A knob with no effect in the base (the engine's inert rules) says so.
    const note = form.querySelector(`[data-inert-of="${axis}"]`);
    const why = o?.dataset.inert ?? '';
    if (note instanceof HTMLElement) {
      note.textContent = why ? `No effect with the base settings: ${why}. Sweeping it gives one flat line (unless the other axis changes that).` : '';
      note.hidden = why === '';
    }
  };
  sel.addEventListener('change', () => {
    const o = sel.selectedOptions[0];
    for (const name of ['min', 'max', 'steps']) {
      const el = input(name);
      if (el) el.value = o?.dataset[name] ?? '';
    }
    unit();
  });
  unit();
}

// The tuner's hint says what the base's network allows the chosen
// technique's added latency (the server's engine.LatencyFloor, per option).
const floorHint = maybeId('floor', HTMLElement);
if (kind === 'tune' && floorHint) {
  const technique = form.elements.namedItem('technique');
  if (technique instanceof HTMLSelectElement) {
    technique.addEventListener('change', () => {
      const floor = technique.selectedOptions[0]?.dataset.floor ?? '';
      floorHint.textContent = floor;
      floorHint.hidden = floor === '';
    });
  }
}

maybeId('metric', HTMLSelectElement)?.addEventListener('change', () => drawChart(true));
if (box.dataset.state === 'running') watch();
