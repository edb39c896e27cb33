// Package engine is Interp Lab's single source of truth: the interpolation
// techniques a designer compares, the deterministic network link and motion
// scripts that feed them, the simulation runner, the metrics, and the one
// parameter table that names every setting.
//
// The page (through WebAssembly), the server's charts and the lab CLI all run
// the same code here, so the same settings and seed give the same numbers
// everywhere. The package uses the standard library only; time and randomness
// are always arguments, never read from the environment.
//
// Units: times in seconds, distances in metres, speeds in metres per second,
// rates in hertz, fractions in [0, 1].
package engine
