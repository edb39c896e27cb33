package engine

// addSq2 adds (xs[j] − dx)² + (ys[j] − dy)² to sse[j] for every j of sse,
// each product rounded on its own: addSq2Go's sums, two candidates to an
// SSE2 instruction (lagsum_amd64.s). Each lane of a packed subtraction,
// multiplication or addition rounds as the scalar one does, and no
// multiply-add is fused, so the bits are addSq2Go's on every amd64 level.
// The added latency's window, 76 candidates a sample at 60 frames a
// second, was a tenth of a population's instructions in Go.
func addSq2(sse, xs, ys []float64, dx, dy float64) {
	addSq2SSE2(sse, xs[:len(sse)], ys[:len(sse)], dx, dy)
}

// addSq2SSE2 is addSq2 for xs and ys at least as long as sse.
//
//go:noescape
func addSq2SSE2(sse, xs, ys []float64, dx, dy float64)

// addSq3 adds sq3 of (xs[j] − dx, ys[j] − dy, zs[j] − dz) to sse[j] for
// every j of sse: addSq3Go's sums, two candidates to an SSE2 instruction,
// as addSq2.
func addSq3(sse, xs, ys, zs []float64, dx, dy, dz float64) {
	addSq3SSE2(sse, xs[:len(sse)], ys[:len(sse)], zs[:len(sse)], dx, dy, dz)
}

// addSq3SSE2 is addSq3 for xs, ys and zs at least as long as sse.
//
//go:noescape
func addSq3SSE2(sse, xs, ys, zs []float64, dx, dy, dz float64)
