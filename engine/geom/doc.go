// Package geom is the engine's shared math: vectors and quaternions, the
// deterministic functions (logarithm, exponential, sine and cosine, the
// normal quantile, cubic Hermite weights, slerp) that give the same bits
// natively, with fused multiply-add and under WebAssembly, and the seeded
// random generator.
//
// It uses the standard library only, and every package of the engine may
// use it. Units: metres, seconds, radians.
package geom
