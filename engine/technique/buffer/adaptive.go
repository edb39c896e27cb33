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
// their 95th percentile by nearest rank: of n times, the smallest of the
// k = topCount(n) largest (k is 3 of the default 40, 13 of 256). It keeps
// the times in arrival order, to know which one leaves, and which k of
// them are the largest, in ascending order, so the percentile is one read.
//
// Once the window is full, a new time replaces the oldest and the top
// changes only when one of them is in it: the new time enters when it is
// larger than the least of the top (that one leaving it), and a top time
// that leaves the window is followed by the largest of the rest, found by
// a scan of the window. Both happen about k times in n, so a packet
// mostly costs a comparison or two (with a sorted copy of the window, a
// search and a shift of half of it to take one time out and as much to
// put one in, which were a tenth of a population entity's CPU). Equal
// times are alike: whichever of them are in the top, its least is the
// same. Filling up, or a changed window size, rebuilds the top from the
// window. It never allocates unless the window is made longer than it has
// been.
type jitterWindow struct {
	hist  []float64 // ring of the kept times in arrival order; len is its capacity
	head  int       // index in hist of the oldest kept time
	n     int       // times kept
	inTop []bool    // by hist index: that time is in top; false for every slot not kept
	top   []int32   // hist indices of the topCount(n) largest kept times, ascending by time
	// least is the least time of the top, hist[top[0]], the p95; −∞ while
	// the top is empty (every time is ≥ 0, so any beats it). topInsert,
	// offer and rebuild keep it (topRemove leaves it to the topInsert
	// that follows): a frame, and a packet that leaves the top as it
	// is, read it without the top and its checks.
	least float64
}

// adaptMaxTop bounds topCount over window sizes up to adaptMaxWindow.
const adaptMaxTop = 16

// topCount is how many of n times are at or above their 95th percentile
// by nearest rank: n − (⌈0.95 n⌉ − 1), 0 for none.
func topCount(n int) int {
	if n <= 0 {
		return 0
	}
	return n - ((95*n+99)/100 - 1)
}

// newJitterWindow returns an empty window with room for size times.
func newJitterWindow(size int) jitterWindow {
	size = adaptClampWindow(size)
	return jitterWindow{hist: make([]float64, size), inTop: make([]bool, size), top: make([]int32, 0, adaptMaxTop), least: math.Inf(-1)}
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
func (w *jitterWindow) len() int { return w.n }

// slot returns the hist index of the i-th oldest kept time (i may be n:
// the slot the next time goes in).
func (w *jitterWindow) slot(i int) int {
	s := w.head + i
	if s >= len(w.hist) {
		s -= len(w.hist)
	}
	return s
}

// add puts the inter-arrival time dt (s) into a window of the newest size
// times, dropping the oldest ones beyond it. A dt that is not positive (or
// not a number) counts as 0.
func (w *jitterWindow) add(dt float64, size int) {
	if !(dt > 0) {
		dt = 0
	}
	size = adaptClampWindow(size)
	if w.n != size {
		w.resize(dt, size)
		return
	}
	// The window is full: dt replaces its oldest time. Most packets end
	// here with the top as it was: the oldest is not in it, and dt does
	// not beat its least (offer's test, on the least kept).
	old, in := w.head, w.slot(w.n) // in is old itself when the ring is exactly full
	if w.head++; w.head == len(w.hist) {
		w.head = 0
	}
	w.hist[in] = dt
	if w.inTop[old] {
		w.replaceTop(old)
	} else if dt > w.least {
		w.offer(in, len(w.top))
	}
}

// resize is add for a window that is not full at size times: it drops the
// oldest times beyond size − 1, keeps dt and makes the top anew.
func (w *jitterWindow) resize(dt float64, size int) {
	w.trim(size - 1)
	if w.n == len(w.hist) {
		w.grow(size)
	}
	w.hist[w.slot(w.n)] = dt
	w.n++
	w.rebuild()
}

// replaceTop takes hist index old, which has left the full window, out of
// the top, and puts the largest of the rest in its place.
func (w *jitterWindow) replaceTop(old int) {
	w.inTop[old] = false
	w.topRemove(old)
	// Every time is ≥ 0, so any beats −1; a ring exactly full (the window
	// never shortened) is all kept, and scanned straight.
	best, bestT := -1, -1.0
	if w.n == len(w.hist) {
		inTop := w.inTop[:len(w.hist)]
		for s, t := range w.hist {
			if t > bestT && !inTop[s] {
				best, bestT = s, t
			}
		}
	} else {
		for i := range w.n {
			if s := w.slot(i); w.hist[s] > bestT && !w.inTop[s] {
				best, bestT = s, w.hist[s]
			}
		}
	}
	w.topInsert(best)
}

// offer puts hist index s in a top of at most k times when there is room
// or its time is larger than the least of the top, which then leaves it.
func (w *jitterWindow) offer(s, k int) {
	t := w.top
	if len(t) < k {
		w.topInsert(s)
		return
	}
	x := w.hist[s]
	if !(x > w.least) {
		return
	}
	// The least leaves and s enters: the times above it that are no
	// larger than x move down one, and s goes after them, where
	// topRemove and topInsert would put it.
	w.inTop[t[0]] = false
	i := 0
	for ; i+1 < len(t) && w.hist[t[i+1]] <= x; i++ {
		t[i] = t[i+1]
	}
	t[i] = int32(s)
	w.inTop[s] = true
	w.least = w.hist[t[0]]
}

// topRemove takes hist index s out of top, leaving least to the
// topInsert that follows.
func (w *jitterWindow) topRemove(s int) {
	t := w.top
	for i, v := range t {
		if int(v) == s {
			copy(t[i:], t[i+1:])
			w.top = t[:len(t)-1]
			return
		}
	}
}

// topInsert puts hist index s in top, in its order by time.
func (w *jitterWindow) topInsert(s int) {
	t := w.top[:len(w.top)+1]
	i := len(t) - 1
	for i > 0 && w.hist[t[i-1]] > w.hist[s] {
		t[i] = t[i-1]
		i--
	}
	t[i] = int32(s)
	w.top = t
	w.inTop[s] = true
	w.least = w.hist[t[0]]
}

// rebuild makes top anew from the kept times, after the window changed
// its length.
func (w *jitterWindow) rebuild() {
	for _, s := range w.top {
		w.inTop[s] = false
	}
	w.top, w.least = w.top[:0], math.Inf(-1)
	k := topCount(w.n)
	for i := range w.n {
		w.offer(w.slot(i), k)
	}
}

// trim drops the oldest times until at most size are left.
func (w *jitterWindow) trim(size int) {
	if size < 0 {
		size = 0
	}
	if w.n <= size {
		return
	}
	for w.n > size {
		w.inTop[w.head] = false
		if w.head++; w.head == len(w.hist) {
			w.head = 0
		}
		w.n--
	}
	w.rebuild()
}

// grow makes room for size times, keeping the ones held in arrival order.
// It allocates, which happens only when the window is lengthened.
func (w *jitterWindow) grow(size int) {
	if size <= len(w.hist) {
		return
	}
	hist := make([]float64, size)
	for i := range w.n {
		hist[i] = w.hist[w.slot(i)]
	}
	w.hist, w.inTop, w.head = hist, make([]bool, size), 0
	w.top = w.top[:0]
	w.rebuild()
}

// p95 returns the 95th percentile of the window by nearest rank (the
// smallest time at least 95% of the window is no larger than), and false
// when the window is empty.
func (w *jitterWindow) p95() (float64, bool) {
	// The top holds a time whenever the window does, and its least is
	// the p95.
	if len(w.top) > 0 {
		return w.least, true
	}
	return 0, false
}

// adaptiveDelay returns the delay the buffer aims for under s, in seconds
// (see delayFor). A shortened s.AdaptWindow drops the oldest times at once.
func adaptiveDelay(s *Settings, w *jitterWindow) float64 {
	if s.Adaptive && w.n > s.AdaptWindow {
		w.trim(adaptClampWindow(s.AdaptWindow))
	}
	return delayFor(s, w.least)
}

// delayFor returns the delay the buffer aims for under s with least the
// least time of the window's top (its p95; −∞ for an empty window, which
// no sum with the margin makes larger than the delay): s.Delay when fixed;
// when adaptive, min(s.DelayCap, max(s.Delay, least + s.Margin)), the cap
// winning should it be set below the base (which Validate refuses). It is
// never negative. Small enough to inline into FrameLean, whose frames ask
// for it every time.
func delayFor(s *Settings, least float64) float64 {
	d := s.Delay
	if s.Adaptive {
		if p := least + s.Margin; p > d {
			d = p
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
