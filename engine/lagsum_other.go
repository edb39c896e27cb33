//go:build !amd64

package engine

// addSq2 adds (xs[j] − dx)² + (ys[j] − dy)² to sse[j] for every j of sse,
// each product rounded on its own (see addSq2Go).
func addSq2(sse, xs, ys []float64, dx, dy float64) { addSq2Go(sse, xs, ys, dx, dy) }
