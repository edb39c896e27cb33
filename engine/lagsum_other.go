//go:build !amd64

package engine

// addSq2 adds (xs[j] − dx)² + (ys[j] − dy)² to sse[j] for every j of sse,
// each product rounded on its own (see addSq2Go).
func addSq2(sse, xs, ys []float64, dx, dy float64) { addSq2Go(sse, xs, ys, dx, dy) }

// addSq3 adds sq3 of (xs[j] − dx, ys[j] − dy, zs[j] − dz) to sse[j] for
// every j of sse (see addSq3Go).
func addSq3(sse, xs, ys, zs []float64, dx, dy, dz float64) { addSq3Go(sse, xs, ys, zs, dx, dy, dz) }
