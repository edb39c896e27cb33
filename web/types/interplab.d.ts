// Types of what the page's JavaScript talks to: the interplab object the
// WebAssembly module puts on globalThis (wasm/main_js.go, wasm/lab_js.go),
// and the JSON the lab's server answers. The modules in web/ use them through
// JSDoc (// @ts-check, checked by tsc --noEmit in make test). The names of
// Interplab's members are checked against wasm/lab_js.go by .ci/tsc-check, so
// a member renamed in Go breaks the build, not the page.

/** A row of the parameter table (engine.Param; wasm/lab_js.go params). */
export interface Param {
  name: string;
  group: string;
  kind: 'float' | 'int' | 'bool' | 'enum' | 'set';
  unit: string;
  min: number;
  max: number;
  step: number;
  /** an index for an enum, 0 or 1 for a bool, a bit mask for a set */
  default: number;
  choices: string[];
  doc: string;
  restart: boolean;
  display: string;
  scale: number;
  /** the rules under which the row has no effect (engine/param.Inert) */
  inert: InertRule[];
}

/**
 * A rule under which a row has no effect (engine/param.Inert): while the row
 * named when holds a value in [from, to] (stored units; 1 for a bool that is
 * on, an enum's index); when "" it holds always.
 */
export interface InertRule {
  when: string;
  from: number;
  to: number;
  why: string;
}

/** A field of engine.Metrics (wasm/lab_js.go metricFields). */
export interface MetricField {
  name: string;
  unit: string;
  display: string;
  scale: number;
  doc: string;
}

/** What interplab.set answers (engine.Sim.Set). */
export interface SetResult {
  error: string;
  restarted: boolean;
}

/** What interplab.parse answers (engine Param.Parse); value is NaN on error. */
export interface ParseResult {
  value: number;
  error: string;
}

/** What interplab.checkScenario answers (engine.CheckScenarioText, engine.SampleScenario). */
export interface ScenarioCheck {
  /** "" or the engine's message, naming the line and field */
  error: string;
  /** 1-based line of the error; 0 when it is not one line's */
  line: number;
  field: string;
  title: string;
  /** samples written to dst, each scenarioStride numbers */
  samples: number;
  /** when the scenario disturbs the link, s */
  start: number;
  end: number;
  /** the run's duration the samples span, s */
  duration: number;
}

/** The interplab object (wasm/main_js.go documents every member). */
export interface Interplab {
  create(settings: Float64Array, scenarioText?: string): string;
  createReplay(settings: Float64Array, trace: Float64Array): string;
  set(name: string, value: number): SetResult;
  restart(): void;
  /** advances dt simulated seconds and returns frames() */
  step(dt: number): number;
  poses(dst: Float32Array): number;
  /**
   * poses and timeline in one call (one call into Go costs tens of µs),
   * copying nothing: returns the byte address in memory of 8 float64s:
   * [frames(), time(), the poses' length (as poses returns it), np, nf,
   * the poses' address, the packets', the frames'] (engine.js, Pull)
   */
  pull(): number;
  metrics(dst: Float64Array): number;
  timeline(packets: Float64Array, frames: Float64Array): [number, number];
  setFocus(entity: number): void;
  /** Whether poses carries headings (default true); off, each reads (1, 0). Kept across create. */
  setHeadings(on: boolean): void;
  techniques(): string[];
  /** per running technique, the game's display delay behind the newest snapshot in steady state (engine.EffectiveDelay), s; NaN where none */
  delays(): number[];
  /** per running technique, that delay as the technique's state has it on the latest frame (engine.Sim.LiveDelays), s; NaN where none or nothing drawn yet */
  liveDelays(): number[];
  /** engine.Advice: library knobs that disagree with the lab's network, as sentences */
  advice(): string[];
  /**
   * engine Settings.GameRate: the rate knob of the library the settings are
   * on (mirror.sendRate, ...; "" when none) and the send and tick rates, Hz,
   * it gives the lab
   */
  gameRate(): { knob: string; send: number; tick: number };
  /** per running technique, whether it draws past its newest packet by design (engine.UnderrunByDesign): its underrun is 100% and not a fault */
  underrunByDesign(): boolean[];
  time(): number;
  frames(): number;
  entities(): number;
  params(): Param[];
  metricFields(): MetricField[];
  format(name: string, value: number): string;
  parse(name: string, text: string): ParseResult;
  /** changes the custom scenario's text (engine.Sim.SetScenarioText) */
  setScenarioText(text: string): SetResult;
  /** checks text as the custom scenario and samples its conditions into dst */
  checkScenario(text: string, dst: Float64Array): ScenarioCheck;
  /** a built-in scenario's text, "" for an unknown name */
  builtinScenario(name: string): string;
  readonly poseStride: number;
  readonly packetStride: number;
  readonly frameStride: number;
  readonly frameTechStride: number;
  readonly maxTechniques: number;
  /** numbers per sample of checkScenario: latency, jitter, loss, bandwidth, extra delay, hiccup loss, down */
  readonly scenarioStride: number;
}

/**
 * What the loader (boot.js, engine.js's loadEngine) adds to the object Go
 * makes, declared apart from it: the interface above lists exactly what
 * lab.object exports (wasm/api_types_test.go checks it).
 */
export interface Interplab {
  /** the module's memory (the instance's exports.mem), for engine.js Pull's views */
  memory: WebAssembly.Memory;
}

/** Go's wasm_exec.js runtime (copied from $(go env GOROOT)/lib/wasm). */
export interface GoRuntime {
  importObject: WebAssembly.Imports;
  run(instance: WebAssembly.Instance): Promise<void>;
}

/** The API's one error shape (cmd/lab/internal/jsonapi). */
export interface ApiError {
  error: string;
  field?: string;
  line?: number;
  /** a 409's: what the request was stale against */
  current?: Revision;
}

/** A session's revision in the sessions API (cmd/lab/internal/server/sessions.go). */
export interface Revision {
  id: string;
  rev: number;
  name: string;
  notes: string;
  time: string;
  settings: Record<string, number | boolean | string | string[]>;
  /** on the answer to a save that changed nothing: no revision was made, this is the one edited */
  unchanged?: boolean;
}

/** A session in GET /api/sessions/{id}: its latest revision and history. */
export interface Session extends Revision {
  created: string;
  deleted?: string;
  revisions: { rev: number; name: string; time: string; changed: string[] }[];
}

/** A message of the live sync WebSocket (cmd/lab/internal/live/hub.go). */
export interface SyncMessage {
  type: 'config' | 'set' | 'error' | 'packet' | 'notice';
  session?: string;
  rev?: number;
  you?: string;
  from?: string;
  config?: { schema: number; settings: Record<string, number | boolean | string | string[]> };
  name?: string;
  value?: unknown;
  error?: string;
  field?: string;
  notice?: string;
}

/** The 202 answer of POST /api/sweeps and /api/tunes (server/jobs.go jobAccepted). */
export interface JobAccepted {
  id: string;
  kind: string;
  total: number;
  ws: string;
  page: string;
}

/** A job's status and its WebSocket messages (cmd/lab/internal/jobs Status). */
export interface JobStatus {
  type?: 'progress' | 'end';
  job: string;
  kind: string;
  state: 'running' | 'done' | 'cancelled' | 'failed' | 'interrupted';
  done: number;
  total: number;
  error?: string;
  items?: unknown[];
}

/** An ECharts chart, as much of it as the page uses. */
export interface EChart {
  setOption(option: unknown, notMerge?: boolean): void;
  resize(): void;
  dispose(): void;
  getDom(): HTMLElement;
}

declare global {
  var interplab: Interplab | undefined;
  var Go: { new (): GoRuntime } | undefined;
  /** The engine's compilation and start, begun by the page's head (boot.js). */
  var interplabBoot: { url: string; module: Promise<WebAssembly.Module>; started: Promise<Interplab> } | undefined;
  var echarts: {
    init(el: HTMLElement, theme: 'dark' | null, opts: { renderer: string }): EChart;
    getInstanceByDom(el: HTMLElement): EChart | undefined;
  };
  /** Draws a server-rendered chart's options in the page's theme (charts.js). */
  var labChart: (el: HTMLElement, option: unknown) => void;
  /** The lab's hooks for tests and benchmarks (lab.js hooks). */
  var lab: unknown;
}
