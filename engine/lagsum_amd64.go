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
