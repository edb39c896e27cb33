// @ts-check
// abworker.js runs the A/B view's pinned simulation (ab.js) in a module
// worker: its own instance of the engine, on another core, so that an
// animation frame of the page holds one simulation's step instead of two.
// It answers ab.js's messages in the order they come:
//
//	{op: 'create', gen, values}   → {op: 'created', gen, error, techniques, entities, poseStride}
//	{op: 'restart', gen}          → the same answer
//	{op: 'focus', entity}
//	{op: 'headings', on}          whether the poses need headings (not for dots)
//	{op: 'step', gen, dt, poses?, metrics, ask}
//	                              → {op: 'frame', gen, frames, time, poses, packets, np, metrics, ask, stepMs}
//
// gen numbers the runs: ab.js drops the frames of a run it has restarted.
// The poses buffer travels back and forth transferred, never copied
// between threads; a step message hands back the one the page no longer
// draws, and the worker copies each frame's poses into it from where the
// engine wrote them (engine.js Pull). metrics asks
// for the run's metrics with the frame (ab.js asks when it shows deltas),
// and ask comes back with them to say which request they answer.
// A step longer than the engine's 1 s cut is stepped in parts, so that a
// catch-up (lab.advance) reaches the same frame as the page's run.

import { loadEngine, Pull } from './engine.js';

/** @typedef {import('./types/interplab').Interplab} Interplab */

/** @type {MessageEvent['data'][]} messages that came before the engine */
const early = [];
/** @type {((m: any) => void) | null} */
let handle = null;
self.onmessage = (ev) => {
  if (handle) handle(ev.data);
  else early.push(ev.data);
};

try {
  // wasm_exec.js is a classic script that defines globalThis.Go; imported
  // by a computed name so that the type checker does not look for it.
  const execURL = '/static/dist/wasm_exec.js';
  await import(execURL);
  const sim = await loadEngine('/lab.wasm');
  const pulled = new Pull(sim);
  let metrics = new Float64Array(0);
  /** @param {number} gen @param {string} error */
  const created = (gen, error) => {
    self.postMessage({
      op: 'created', gen, error,
      techniques: error ? [] : sim.techniques(), entities: error ? 0 : sim.entities(), poseStride: sim.poseStride,
    });
  };
  handle = (m) => {
    switch (m.op) {
      case 'create':
        created(m.gen, sim.create(m.values));
        break;
      case 'restart':
        sim.restart();
        created(m.gen, '');
        break;
      case 'focus':
        sim.setFocus(m.entity);
        break;
      case 'headings':
        sim.setHeadings(m.on);
        break;
      case 'step': {
        const t0 = performance.now();
        for (let left = m.dt; left > 0; left -= 0.5) sim.step(Math.min(left, 0.5));
        const stepMs = performance.now() - t0;
        // One call into Go for the poses, the timeline, frames and time
        // (each call costs tens of microseconds whatever it does), read
        // where Go wrote them, then copied here, in JavaScript, into the
        // buffer that goes to the page: a typed array passed into Go costs
        // its runtime a finalizer, and one that comes back transferred is
        // a new object each time.
        pulled.pull();
        const { frames, time, np } = pulled;
        const view = pulled.poses();
        /** @type {Float32Array<ArrayBuffer>} */
        let poses = m.poses ?? new Float32Array(0);
        if (poses.length !== view.length) poses = new Float32Array(view.length);
        poses.set(view);
        const packets = pulled.packets().slice(0, np * sim.packetStride);
        /** @type {Float64Array | null} */
        let mv = null;
        if (m.metrics) {
          const k = sim.metrics(metrics);
          if (k !== metrics.length) {
            metrics = new Float64Array(k);
            sim.metrics(metrics);
          }
          mv = metrics.slice();
        }
        self.postMessage({ op: 'frame', gen: m.gen, frames, time, poses, packets, np, metrics: mv, ask: m.ask, stepMs },
          { transfer: [poses.buffer, packets.buffer] });
        break;
      }
    }
  };
  for (const m of early.splice(0)) handle(m);
} catch (err) {
  self.postMessage({ op: 'failed', error: err instanceof Error ? err.message : String(err) });
}
