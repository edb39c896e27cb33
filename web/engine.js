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
  return lab;
}
