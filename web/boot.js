// @ts-check
// boot.js starts downloading and compiling the engine before the page's
// body is parsed. It is a classic script at the top of the head, before
// the style sheets (a script after them waits for them); the browser's
// preload scanner fetches it, and /lab.wasm (the head's preload), as soon
// as the head arrives. The compilation then runs on the browser's
// background threads while the main thread parses, styles and lays out the
// page and loads lab.js's modules, and loadEngine (engine.js) takes it
// from globalThis.interplabBoot. As an async module, boot.js ran only when
// the main thread was done with the page's first style and layout: 0.6 s
// into a cold start on a loaded machine, where the engine had long arrived.
// It must not import anything (a classic script cannot), so it repeats
// compileEngine's few lines.

{
  const url = '/lab.wasm';
  const module = fetch(url).then((response) => {
    if (!response.ok) {
      throw new Error(`${url}: ${response.status} ${response.statusText} (run make wasm)`);
    }
    return WebAssembly.compileStreaming(response);
  });
  // A failure is reported by loadEngine, which awaits it, not as an
  // unhandled rejection before that.
  module.catch(() => {});
  globalThis.interplabBoot = { url, module };
}
