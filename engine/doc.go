// Package engine is Interp Lab's single source of truth: the lab's Settings
// (one flat JSON object built from each group's struct), the one parameter
// table that names every setting, the one list of techniques, the
// simulation runner (Sim) and its metrics, runs and their phases, replays
// of recorded traces, and the advice the page shows. It is what the page
// (through WebAssembly), the server's charts and the lab CLI run, so the
// same settings and seed give the same numbers everywhere.
//
// The parts it is built from live in packages below it, each importing only
// those below itself (engine/layers_test.go holds the order):
//
//   - engine/geom: vectors, quaternions, deterministic math, the RNG;
//   - engine/param: a parameter row, its kinds and units, field errors;
//   - engine/technique: the interface a technique plugs into, and one
//     package per technique below it (epic, snap, buffer, mirror, ngo,
//     source, geckos, unreal), which never imports another or the engine;
//   - engine/netsim: the link, the client's clock, scenarios, the network's
//     settings, the game engines' own simulators; engine/motion: the motion
//     scripts of the ground truth.
//
// Sweeps, tunings and population runs (engine/study) sit above it and use
// only what it exports. Time and randomness are always arguments, never
// read from the environment.
//
// Units: times in seconds, distances in metres, speeds in metres per second,
// rates in hertz, fractions in [0, 1].
package engine
