// @ts-check
// bootworker.js downloads and compiles the engine (/lab.wasm) for the page's
// head (boot.js) and posts the compiled WebAssembly.Module back. In the page
// itself, the browser hands each piece of a streaming compilation's
// download to the compiler on the main thread (Chromium does): during a cold
// start that thread is busy parsing, styling and laying out the page, and
// the module's 0.8 MB waited for it. Here the stream is fed on this
// worker's own thread. A classic worker script, so that every browser runs
// it; it must not import anything.

const url = '/lab.wasm';
fetch(url)
  .then((response) => {
    if (!response.ok) {
      throw new Error(`${url}: ${response.status} ${response.statusText} (run make wasm)`);
    }
    return WebAssembly.compileStreaming(response);
  })
  .then(
    (module) => postMessage({ module }),
    (err) => postMessage({ error: String(err?.message ?? err) }),
  );
