// @ts-check
// engine.js loads the lab's WebAssembly module and returns the interplab
// object it puts on globalThis (see wasm/main_js.go for its API).

/** @type {Map<string, Promise<WebAssembly.Module>>} the compilations begun, by URL */
const compiled = new Map();
// The page's head began one and started it (boot.js); a worker has none.
const boot = globalThis.interplabBoot;
if (boot) compiled.set(boot.url, boot.module);

/**
 * compileEngine starts fetching and compiling the module at url, once per
 * url (the page's head began /lab.wasm's: boot.js); loadEngine calls it
 * when it needs the module. It needs a server that sends Content-Type:
 * application/wasm.
 * @param {string} url
 * @returns {Promise<WebAssembly.Module>}
 */
export function compileEngine(url) {
  let p = compiled.get(url);
  if (!p) {
    p = fetch(url).then((response) => {
      if (!response.ok) {
        throw new Error(`${url}: ${response.status} ${response.statusText} (run make wasm)`);
      }
      return WebAssembly.compileStreaming(response);
    });
    // A compilation begun early that fails is reported by loadEngine,
    // which awaits it, not as an unhandled rejection before that.
    p.catch(() => {});
    compiled.set(url, p);
  }
  return p;
}

/**
 * loadEngine compiles (see compileEngine) and starts the module at url, or
 * returns the page's, which boot.js started. It needs wasm_exec.js
 * (globalThis.Go).
 * @param {string} url
 * @returns {Promise<import('./types/interplab').Interplab>} the interplab object
 */
export async function loadEngine(url) {
  if (boot?.url === url) return boot.started;
  const module = await compileEngine(url);
  const Go = globalThis.Go;
  if (typeof Go !== 'function') {
    throw new Error('wasm_exec.js did not load: the server has no /static/dist/wasm_exec.js (run make wasm)');
  }
  const go = new Go();
  const instance = await WebAssembly.instantiate(module, go.importObject);
  // run resolves only when the Go program exits, which it never does; the
  // interplab object exists as soon as main has started.
  go.run(instance).catch((err) => console.error('interplab exited:', err));
  const lab = globalThis.interplab;
  if (!lab) {
    throw new Error('the WebAssembly module started without defining interplab');
  }
  lab.memory = /** @type {WebAssembly.Memory} */ (instance.exports.mem); // for Pull's views
  return lab;
}

// The layout of interplab.pull's answer (wasm/lab_js.go).
const PULL_INFO = 8;

/**
 * Pull takes each new frame out of the engine in one call into Go
 * (interplab.pull) and reads it where Go wrote it, through typed-array
 * views onto the module's memory: nothing is copied and no typed array is
 * passed in (each would cost Go's runtime a finalizer). The views are made
 * again only when an address changes (a restart makes new poses) or the
 * memory grows: growing it detaches its buffer, and with it every view.
 * The poses stay where they are until the next pull (Go's collector never
 * moves an object and the module keeps the last pulled ones alive), so
 * poses() is right at any time, not only just after pull.
 */
export class Pull {
  /** @param {import('./types/interplab').Interplab} lab */
  constructor(lab) {
    this.lab = lab;
    /** @type {ArrayBuffer | null} the memory's buffer the views are on */
    this.buffer = null;
    this.infoAt = -1;
    this.info = new Float64Array(0);
    this.posesAt = -1;
    this.n = 0; // the poses' length
    this.posesView = new Float32Array(0);
    this.packetsAt = -1;
    this.packetsView = new Float64Array(0);
    this.framesAt = -1;
    this.framesView = new Float64Array(0);
    this.frames = 0; // frames(), at the pull
    this.time = 0; // time(), s
    this.np = 0; // packet records pulled: the first np of packets()
    this.nf = 0; // frame records pulled: the first nf of frameRecords()
  }

  // pull takes the latest frame: frames, time, np, nf, and the views
  // poses(), packets() and frameRecords().
  pull() {
    const at = this.lab.pull();
    this.fresh();
    if (at !== this.infoAt) {
      this.infoAt = at;
      this.info = new Float64Array(/** @type {ArrayBuffer} */ (this.buffer), at, PULL_INFO);
    }
    const buf = /** @type {ArrayBuffer} */ (this.buffer);
    const [frames, time, n, np, nf, posesAt, packetsAt, framesAt] = this.info;
    this.frames = frames;
    this.time = time;
    this.np = np;
    this.nf = nf;
    if (posesAt !== this.posesAt || n !== this.n) {
      this.posesAt = posesAt;
      this.n = n;
      this.posesView = new Float32Array(buf, posesAt, n);
    }
    // The records move when Go's slices of them grow: a view is kept while
    // its address holds and it is long enough.
    const pl = np * this.lab.packetStride;
    if (np > 0 && (packetsAt !== this.packetsAt || pl > this.packetsView.length)) {
      this.packetsAt = packetsAt;
      this.packetsView = new Float64Array(buf, packetsAt, pl);
    }
    const fl = nf * this.lab.frameStride;
    if (nf > 0 && (framesAt !== this.framesAt || fl > this.framesView.length)) {
      this.framesAt = framesAt;
      this.framesView = new Float64Array(buf, framesAt, fl);
    }
  }

  // fresh makes the views again if the memory has grown since they were
  // made (its buffer is then another, and theirs detached).
  fresh() {
    const buf = this.lab.memory.buffer;
    if (buf === this.buffer) return;
    this.buffer = buf;
    if (this.infoAt >= 0) this.info = new Float64Array(buf, this.infoAt, PULL_INFO);
    if (this.posesAt >= 0) this.posesView = new Float32Array(buf, this.posesAt, this.n);
    this.packetsAt = -1;
    this.packetsView = new Float64Array(0);
    this.framesAt = -1;
    this.framesView = new Float64Array(0);
  }

  // poses returns the last pull's poses (interplab.poses' layout, rewritten
  // by each step), viewed again if the memory has grown since.
  poses() {
    this.fresh();
    return this.posesView;
  }

  // packets returns the last pull's packet records: its first np (the
  // view may be longer). They are valid until the next pull or timeline.
  packets() {
    return this.packetsView;
  }

  // frameRecords returns the last pull's frame records: its first nf.
  frameRecords() {
    return this.framesView;
  }
}
