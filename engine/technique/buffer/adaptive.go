package buffer

import "math"

// Adaptive delay: the buffer measures how far apart new snapshots arrive and
// renders far enough in the past to ride out all but the worst 5% of gaps
// (the guide's "rolling 95th-percentile inter-arrival time" plus a margin).

// adaptMaxWindow is the largest rolling window of inter-arrival times, in
// packets; it is the adaptWindow parameter's maximum.
const adaptMaxWindow = 256

// delaySlew is how fast the delay in use may follow its target, in seconds
// of delay per second of elapsed time. At 0.1 the render clock runs between
// 0.9 and 1.1 times real speed while the delay moves, so a jump in the
// target (a slider moved, a burst of jitter measured) shows as a brief slow
// or fast motion instead of a pop forward or a stall.
const delaySlew = 0.1

// jitterWindow is the rolling window of the last inter-arrival times and
// their 95th percentile. It keeps the times twice: in arrival order, to know
// which one leaves the window, and sorted, so the percentile is one index.
// Once the window is full, adding a time replaces the oldest in place: one
// search for the oldest and a shift of only the times between it and the
// new one (a third of the window on average, against a search and a shift
// of half the window each to take one out and put one in). A population
// entity adds one every packet, and this was a tenth of its CPU.
//
// The times are kept as their IEEE 754 bits: for times ≥ 0, which is all
// add takes, the bits order as the numbers do, and an integer comparison
// lets the search step by a conditional move instead of a branch that
// random times mispredict half the time. It never allocates unless the
// window is made longer than it has been.
type jitterWindow struct {
	hist   []uint64 // ring of the kept times in arrival order; len is its capacity
	head   int      // index in hist of the oldest kept time
	sorted []uint64 // the kept times in ascending order
}

// newJitterWindow returns an empty window with room for size times.
func newJitterWindow(size int) jitterWindow {
	size = adaptClampWindow(size)
	return jitterWindow{hist: make([]uint64, size), sorted: make([]uint64, 0, size)}
}

// adaptClampWindow returns size limited to [1, adaptMaxWindow].
func adaptClampWindow(size int) int {
	if size < 1 {
		return 1
	}
	if size > adaptMaxWindow {
		return adaptMaxWindow
	}
	return size
}

// len returns the number of times in the window.
func (w *jitterWindow) len() int { return len(w.sorted) }

// add puts the inter-arrival time dt (s) into a window of the newest size
// times, dropping the oldest ones beyond it. A dt that is not positive (or
// not a number) counts as 0.
func (w *jitterWindow) add(dt float64, size int) {
	if !(dt > 0) {
		dt = 0 // +0: its bits order below every positive time's
	}
	x := math.Float64bits(dt)
	size = adaptClampWindow(size)
	if n := len(w.sorted); n == size {
		// Full: the oldest leaves and x takes its place in the ring.
		old := w.hist[w.head]
		i := w.head + n
		if i >= len(w.hist) {
			i -= len(w.hist)
		}
		w.hist[i] = x
		if w.head++; w.head == len(w.hist) {
			w.head = 0
		}
		w.replace(old, x)
		return
	}
	w.trim(size - 1)
	if len(w.sorted) == len(w.hist) {
		w.grow(size)
	}
	n := len(w.sorted)
	i := w.head + n
	if i >= len(w.hist) {
		i -= len(w.hist)
	}
	w.hist[i] = x
	j := adaptSearch(w.sorted, x)
	w.sorted = w.sorted[:n+1]
	copy(w.sorted[j+1:], w.sorted[j:n])
	w.sorted[j] = x
}

// replace takes old, which is in sorted, out of it and puts x in: the
// times between the two move one place towards old's, and x goes in the
// place left. Equal times are alike, so which of several equal to old
// leaves does not matter.
func (w *jitterWindow) replace(old, x uint64) {
	s := w.sorted
	k := adaptSearch(s, old)
	if x > old {
		for k+1 < len(s) && s[k+1] < x {
			s[k] = s[k+1]
			k++
		}
	} else {
		for k > 0 && s[k-1] > x {
			s[k] = s[k-1]
			k--
		}
	}
	s[k] = x
}

// trim drops the oldest times until at most size are left.
func (w *jitterWindow) trim(size int) {
	if size < 0 {
		size = 0
	}
	for len(w.sorted) > size {
		old := w.hist[w.head]
		w.head++
		if w.head == len(w.hist) {
			w.head = 0
		}
		j := adaptSearch(w.sorted, old) // old is in sorted: the first equal one
		copy(w.sorted[j:], w.sorted[j+1:])
		w.sorted = w.sorted[:len(w.sorted)-1]
	}
}

// grow makes room for size times, keeping the ones held in arrival order.
// It allocates, which happens only when the window is lengthened.
func (w *jitterWindow) grow(size int) {
	if size <= len(w.hist) {
		return
	}
	hist := make([]uint64, size)
	n := len(w.sorted)
	for k := 0; k < n; k++ {
		hist[k] = w.hist[(w.head+k)%len(w.hist)]
	}
	sorted := make([]uint64, n, size)
	copy(sorted, w.sorted)
	w.hist, w.head, w.sorted = hist, 0, sorted
}

// p95 returns the 95th percentile of the window by nearest rank (the
// smallest time at least 95% of the window is no larger than), and false
// when the window is empty.
func (w *jitterWindow) p95() (float64, bool) {
	n := len(w.sorted)
	if n == 0 {
		return 0, false
	}
	return math.Float64frombits(w.sorted[(95*n+99)/100-1]), true
}

// adaptSearch returns the first index i in ascending a with a[i] >= x
// (len(a) if none), for the bits of times ≥ 0, which are below 2⁶³. The
// answer is in [base, base+n] throughout and each step halves n without a
// branch: a[i] − x as a signed number is negative exactly when a[i] < x,
// and its sign, spread over the word, masks the step. (The compiler keeps
// a branch for an if on it inside a loop, which random times mispredict
// half the time.)
func adaptSearch(a []uint64, x uint64) int {
	base, n := 0, len(a)
	for n > 1 {
		half := n >> 1
		below := int(int64(a[base+half-1]-x) >> 63) // -1 when a[base+half-1] < x, else 0
		base += half & below
		n -= half
	}
	if n == 1 {
		base += int(int64(a[base]-x)>>63) & 1
	}
	return base
}

// adaptiveDelay returns the delay the buffer aims for under s, in seconds:
// s.Delay when fixed; when adaptive, min(s.DelayCap, max(s.Delay, p95 of the
// window + s.Margin)), the cap winning should it be set below the base (which
// Validate refuses). It is never negative. A shortened s.AdaptWindow
// drops the oldest times at once.
func adaptiveDelay(s *Settings, w *jitterWindow) float64 {
	d := s.Delay
	if s.Adaptive {
		if len(w.sorted) > s.AdaptWindow {
			w.trim(adaptClampWindow(s.AdaptWindow))
		}
		if p, ok := w.p95(); ok && p+s.Margin > d {
			d = p + s.Margin
		}
		if d > s.DelayCap {
			d = s.DelayCap
		}
	}
	if !(d > 0) {
		return 0
	}
	return d
}
