// @ts-check
// engine.js loads the lab's WebAssembly module and returns the interplab
// object it puts on globalThis (see wasm/main_js.go for its API).

/**
 * loadEngine fetches and starts the module at url. It needs wasm_exec.js
 * (globalThis.Go) and a server that sends Content-Type: application/wasm.
 * @param {string} url
 * @returns {Promise<import('./types/interplab').Interplab>} the interplab object
 */
export async function loadEngine(url) {
  const Go = globalThis.Go;
  if (typeof Go !== 'function') {
    throw new Error('wasm_exec.js did not load: the server has no /static/dist/wasm_exec.js (run make wasm)');
  }
  const go = new Go();
  const response = await fetch(url);
  if (!response.ok) {
    throw new Error(`${url}: ${response.status} ${response.statusText} (run make wasm)`);
  }
  const { instance } = await WebAssembly.instantiateStreaming(response, go.importObject);
  // run resolves only when the Go program exits, which it never does; the
  // interplab object exists as soon as main has started.
  go.run(instance).catch((err) => console.error('interplab exited:', err));
  const lab = globalThis.interplab;
  if (!lab) {
    throw new Error('the WebAssembly module started without defining interplab');
  }
  return lab;
}
