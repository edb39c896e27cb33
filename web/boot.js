// @ts-check
// boot.js starts downloading and compiling the engine as soon as the page
// opens, while the page's other modules load: the page includes it as an
// async module, which runs as soon as it and engine.js arrive, where
// lab.js runs only once every module it imports has. loadEngine (in lab.js)
// then finds the compilation under way, or done.

import { compileEngine } from './engine.js';

compileEngine('/lab.wasm');
