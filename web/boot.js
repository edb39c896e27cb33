// @ts-check
// boot.js downloads, compiles and starts the engine before the page's body
// is parsed. It is the first script of the head, before wasm_exec.js (Go's
// runtime, which it needs only once the module is compiled) and the style
// sheets (a script after them waits for them); the browser's preload
// scanner fetches it first as soon as the head arrives. It starts a worker
// (bootworker.js) that downloads and compiles /lab.wasm on its own thread
// and posts the module back (compiling it here when the worker cannot
// start), and the Go program starts in the first pause of the main thread after it,
// while the page is still being parsed, styled and laid out and lab.js's
// modules load; loadEngine (engine.js) then finds it started, in
// globalThis.interplabBoot. As an async module, boot.js ran only when the
// main thread was done with the page's first style and layout (0.6 s into
// a cold start on a loaded machine, long after the engine had arrived),
// and the program started only once lab.js and its modules had run. It
// must not import anything (a classic script cannot), so it repeats
// compileEngine's and loadEngine's few lines.

{
  const url = '/lab.wasm';
  /** @returns {Promise<WebAssembly.Module>} the module, fetched and compiled on this thread */
  const here = () => fetch(url).then((response) => {
    if (!response.ok) {
      throw new Error(`${url}: ${response.status} ${response.statusText} (run make wasm)`);
    }
    return WebAssembly.compileStreaming(response);
  });
  /** @type {Promise<WebAssembly.Module>} */
  let module;
  try {
    // The worker downloads and compiles it off the main thread
    // (bootworker.js); a browser that cannot start it, or cannot post a
    // module back, compiles it here.
    const worker = new Worker('/static/bootworker.js');
    module = new Promise((resolve, reject) => {
      worker.onmessage = (e) => {
        worker.terminate();
        if (e.data.module instanceof WebAssembly.Module) resolve(e.data.module);
        else reject(new Error(e.data.error ?? 'bootworker.js posted no module'));
      };
      worker.onmessageerror = () => {
        worker.terminate();
        resolve(here());
      };
      worker.onerror = (e) => {
        e.preventDefault();
        worker.terminate();
        resolve(here());
      };
    });
  } catch {
    module = here();
  }
  const started = module.then(async (m) => {
    // wasm_exec.js, the head's next script, has run unless the module
    // came first: then it runs before the document is parsed.
    if (typeof globalThis.Go !== 'function' && document.readyState === 'loading') {
      await new Promise((resolve) => document.addEventListener('DOMContentLoaded', resolve, { once: true }));
    }
    const Go = globalThis.Go;
    if (typeof Go !== 'function') {
      throw new Error('wasm_exec.js did not load: the server has no /static/dist/wasm_exec.js (run make wasm)');
    }
    const go = new Go();
    const instance = await WebAssembly.instantiate(m, go.importObject);
    go.run(instance).catch((err) => console.error('interplab exited:', err));
    const lab = globalThis.interplab;
    if (!lab) {
      throw new Error('the WebAssembly module started without defining interplab');
    }
    lab.memory = /** @type {WebAssembly.Memory} */ (instance.exports.mem); // for engine.js Pull's views
    return lab;
  });
  // A failure is reported by loadEngine, which awaits it, not as an
  // unhandled rejection before that.
  started.catch(() => {});
  globalThis.interplabBoot = { url, module, started };
}
