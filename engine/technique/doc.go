// Package technique is the interface an interpolation technique plugs into:
// the snapshots it receives, the Sample it displays each frame, the
// Technique of one entity and the Batch of many that share their packets,
// the clock it reads, the Env of the run it may know of, and the Def that
// the engine's technique list holds.
//
// Each technique lives in a package of its own below this one
// (technique/epic, technique/buffer, technique/mirror, ...), with its code,
// its settings struct and their parameter rows, its Def, and for a library
// the loader of the cases recorded from the real library. A technique
// imports only this package, engine/geom and engine/param: never another
// technique, never the simulation that runs it. Adding one is its package
// plus one row in the engine's technique list (and its settings field).
package technique
