package fit

import (
	"math"
	"slices"

	"interplab/engine/param"
)

// timeline is the slow part of the delays: the clock drift (a slope) and
// the levels the delay sits at between changes (latency steps and
// spikes), on the fit's timeline.
type timeline struct {
	drift float64   // s of delay per s
	segs  []segment // in time order, covering the trace
	base  float64   // level of the first segment, s
}

// segment is a stretch of the trace at one delay level.
type segment struct {
	from, to float64 // s
	level    float64 // median delay less the drift, s
	floor    float64 // 5th percentile of the delays less the drift, s: where the latency sits
	spike    bool    // a short raised stretch that came back: a spike
}

// window is a stretch of sends the timeline is read from.
type window struct {
	t        float64 // centre, s
	from, to float64 // s
	low, mid float64 // smallest and median of the first copies' delays, s
}

// shift returns the level above the base at time t, s.
func (tl *timeline) shift(t float64) float64 {
	for i := range tl.segs {
		if t < tl.segs[i].to || i == len(tl.segs)-1 {
			return tl.segs[i].floor - tl.base
		}
	}
	return 0
}

// windows cuts the sends not in ex nor skip (if not nil) into windows of w
// seconds and reads the delay floor (the smallest) and median of each that
// has at least three arrivals.
func windows(s *stream, ex []bool, w float64, skip []bool) []window {
	var out []window
	var buf []float64
	k := 0
	for from := 0.0; from <= s.span(); from += w {
		buf = buf[:0]
		for ; k < len(s.sent) && s.sent[k] < from+w; k++ {
			if !ex[k] && !math.IsNaN(s.first[k]) && (skip == nil || !skip[k]) {
				buf = append(buf, s.first[k])
			}
		}
		if len(buf) < 3 {
			continue
		}
		slices.Sort(buf)
		out = append(out, window{t: from + w/2, from: from, to: from + w, low: buf[0], mid: median(buf)})
	}
	return out
}

// fitTimeline measures the drift and the delay levels. The changes are
// found on half-second windows' medians less the drift, by binary
// segmentation, then refined to the packet; the drift is the common slope,
// within the stretches between changes (a step does not tilt it), first of
// those medians, then of the delay floors of two-second windows, the
// copies sent ahead of the latency left out. Spike sends are marked in ex.
func (l *Link) fitTimeline(s *stream, ex []bool) *timeline {
	const w, wFloor = 0.5, 2.0
	win := windows(s, ex, w, nil)
	tl := &timeline{}
	if len(win) < 8 {
		tl.segs = []segment{{from: 0, to: s.span()}}
		l.warn("scenario", "too few arrivals to look for latency steps, spikes and outages")
		return tl
	}
	measureDrift := s.span() >= MinDriftSpan
	if !measureDrift {
		l.warn("clockDrift", "the trace spans "+param.FormatNumber(round(s.span(), 0.1))+" s: want at least "+
			param.FormatNumber(MinDriftSpan)+" s to measure clock drift; 0 assumed")
	}
	findChanges := s.span() >= MinChangeSpan
	if !findChanges {
		l.warn("scenario", "the trace spans "+param.FormatNumber(round(s.span(), 0.1))+" s: want at least "+
			param.FormatNumber(MinChangeSpan)+" s to look for latency steps, spikes and outages")
	}
	mid := func(wd window) float64 { return wd.mid }
	low := func(wd window) float64 { return wd.low }
	if measureDrift {
		tl.drift = laggedSlope(win)
	}
	for range 2 {
		tl.segs = segmentWindows(win, tl.drift, findChanges)
		if measureDrift {
			tl.drift = pooledSlope(win, tl.segs, mid)
		}
	}
	tl.segs = segmentWindows(win, tl.drift, findChanges)
	if measureDrift {
		ahead := sentAhead(s, ex, tl)
		floors := windows(s, ex, wFloor, ahead)
		tl.drift = pooledSlope(floors, tl.segs, low)
		tl.segs = segmentWindows(win, tl.drift, findChanges)
		tl.drift = pooledSlope(floors, tl.segs, low)
		tl.segs = segmentWindows(win, tl.drift, findChanges)
	}
	tl.segs[0].from, tl.segs[len(tl.segs)-1].to = 0, s.span()
	refine(s, ex, tl)
	confirm(s, ex, tl)
	markSpikes(tl)
	floors(s, ex, tl)
	tl.base = tl.segs[0].floor
	// The floors' scatter about the line and levels: how straight the
	// drift is.
	floors := windows(s, ex, wFloor, sentAhead(s, ex, tl))
	var sum, sq float64
	n := 0
	for _, wd := range floors {
		i, ok := within(tl.segs, wd)
		if !ok || tl.segs[i].spike {
			continue
		}
		r := wd.low - tl.drift*wd.t - tl.segs[i].level
		sum += r
		sq += r * r
		n++
	}
	if n > 0 {
		m := sum / float64(n)
		l.Goodness.DriftRMS = round(math.Sqrt(max(0, sq/float64(n)-m*m)), 1e-6)
	}
	for k := range s.sent {
		if tl.segs[segAt(tl.segs, s.sent[k])].spike {
			ex[k] = true
		}
	}
	l.ClockDrift = round(tl.drift, 1e-8)
	return tl
}

// floors sets each segment's floor from its sends' first copies (the
// copies sent ahead left out): a step moves the latency, which the floor
// tracks more closely than the median, which the jitter's tail moves too.
// A segment with too few arrivals keeps its median's distance from the
// first segment.
func floors(s *stream, ex []bool, tl *timeline) {
	ahead := sentAhead(s, ex, tl)
	for i := range tl.segs {
		sg := &tl.segs[i]
		var r []float64
		k, _ := slices.BinarySearch(s.sent, sg.from)
		for ; k < len(s.sent) && s.sent[k] < sg.to; k++ {
			if !ex[k] && !ahead[k] && !math.IsNaN(s.first[k]) {
				r = append(r, s.first[k]-tl.drift*s.sent[k])
			}
		}
		if len(r) >= MinDelays {
			sg.floor = quantile(r, 0.05)
		} else {
			sg.floor = math.NaN()
		}
	}
	for i := range tl.segs {
		if math.IsNaN(tl.segs[i].floor) {
			ref := 0
			for ref < len(tl.segs) && math.IsNaN(tl.segs[ref].floor) {
				ref++
			}
			if ref == len(tl.segs) {
				tl.segs[i].floor = tl.segs[i].level
				continue
			}
			tl.segs[i].floor = tl.segs[ref].floor + tl.segs[i].level - tl.segs[ref].level
		}
	}
}

// sentAhead marks the sends whose first copy came far below the delay
// floor (see cutAhead): copies that skipped the latency.
func sentAhead(s *stream, ex []bool, tl *timeline) []bool {
	r := make([]float64, 0, len(s.sent))
	for k := range s.sent {
		if !ex[k] && !math.IsNaN(s.first[k]) {
			r = append(r, s.first[k]-tl.drift*s.sent[k]-tl.segs[segAt(tl.segs, s.sent[k])].level)
		}
	}
	ahead := make([]bool, len(s.sent))
	if len(r) == 0 {
		return ahead
	}
	cut := cutAhead(r)
	for k := range s.sent {
		if !ex[k] && !math.IsNaN(s.first[k]) && s.first[k]-tl.drift*s.sent[k]-tl.segs[segAt(tl.segs, s.sent[k])].level < cut {
			ahead[k] = true
		}
	}
	return ahead
}

// cutAhead returns the delay below which a copy is taken to have skipped
// the latency: three times the spread from the 10th percentile to the
// median, and 2 ms, below the 10th percentile. It sorts a copy of x.
func cutAhead(x []float64) float64 {
	q := slices.Clone(x)
	q10, q50 := quantile(q, 0.1), quantile(q, 0.5)
	return q10 - 3*(q50-q10) - 0.002
}

// within returns the segment that holds all of the window wd.
func within(segs []segment, wd window) (int, bool) {
	i := segAt(segs, wd.t)
	return i, wd.from >= segs[i].from && wd.to <= segs[i].to
}

// segAt returns the index of the segment holding time t.
func segAt(segs []segment, t float64) int {
	for i := range segs {
		if t < segs[i].to {
			return i
		}
	}
	return len(segs) - 1
}

// laggedSlope is a first, robust slope of the windows' medians: the median
// of the slopes between windows a quarter of the trace apart, which a
// step or two cannot move far.
func laggedSlope(win []window) float64 {
	lag := max(1, len(win)/4)
	var sl []float64
	for i := 0; i+lag < len(win); i++ {
		sl = append(sl, (win[i+lag].mid-win[i].mid)/(win[i+lag].t-win[i].t))
	}
	return median(sl)
}

// pooledSlope is the least-squares slope of y over the windows that lie
// within one segment, with one intercept per segment (spikes left out).
func pooledSlope(win []window, segs []segment, y func(window) float64) float64 {
	type acc struct{ n, st, sy, stt, sty float64 }
	a := make([]acc, len(segs))
	for _, wd := range win {
		i, ok := within(segs, wd)
		if !ok || segs[i].spike {
			continue
		}
		v := y(wd)
		a[i].n++
		a[i].st += wd.t
		a[i].sy += v
		a[i].stt += wd.t * wd.t
		a[i].sty += wd.t * v
	}
	var num, den float64
	for _, c := range a {
		if c.n < 2 {
			continue
		}
		num += c.sty - c.st*c.sy/c.n
		den += c.stt - c.st*c.st/c.n
	}
	if den <= 0 {
		return 0
	}
	return num / den
}

// segmentWindows splits the windows' medians less the drift into stretches
// of one level by binary segmentation: a split is kept when the two sides'
// means differ by at least 6 standard errors and 2 ms.
func segmentWindows(win []window, drift float64, find bool) []segment {
	m := make([]float64, len(win))
	for i, wd := range win {
		m[i] = wd.mid - drift*wd.t
	}
	// The noise of one window's median, from successive differences,
	// which steps barely touch.
	d := make([]float64, 0, len(m))
	for i := 1; i < len(m); i++ {
		d = append(d, math.Abs(m[i]-m[i-1]))
	}
	sigma := max(1.4826*median(d)/math.Sqrt2, 1e-4)
	var cuts []int
	if find {
		cuts = split(m, 0, len(m), sigma, nil)
	}
	slices.Sort(cuts)
	var segs []segment
	lo := 0
	for _, c := range append(cuts, len(m)) {
		lv := slices.Clone(m[lo:c])
		segs = append(segs, segment{from: win[lo].from, to: win[c-1].to, level: median(lv)})
		lo = c
	}
	for i := 1; i < len(segs); i++ {
		segs[i].from = segs[i-1].to // cover the gaps of windows without arrivals
	}
	return segs
}

// split returns the cuts of m[lo:hi] (indices where a new level starts).
func split(m []float64, lo, hi int, sigma float64, cuts []int) []int {
	n := hi - lo
	if n < 4 || len(cuts) >= 64 {
		return cuts
	}
	var total float64
	for _, v := range m[lo:hi] {
		total += v
	}
	best, bestZ, bestD := -1, 0.0, 0.0
	var left float64
	for c := lo + 1; c < hi; c++ {
		left += m[c-1]
		if c-lo < 2 || hi-c < 2 {
			continue // a level is at least two windows
		}
		n1, n2 := float64(c-lo), float64(hi-c)
		diff := (total-left)/n2 - left/n1
		z := math.Abs(diff) * math.Sqrt(n1*n2/float64(n)) / sigma
		if z > bestZ {
			best, bestZ, bestD = c, z, diff
		}
	}
	if best < 0 || bestZ < 6 || math.Abs(bestD) < 0.002 {
		return cuts
	}
	cuts = append(cuts, best)
	cuts = split(m, lo, best, sigma, cuts)
	return split(m, best, hi, sigma, cuts)
}

// refine moves each change between two segments to the send where the
// delays' absolute deviations from the two levels are least, within a
// second either side (two of the windows the change was found on).
func refine(s *stream, ex []bool, tl *timeline) {
	const reach = 1.0
	for i := 1; i < len(tl.segs); i++ {
		a, b := &tl.segs[i-1], &tl.segs[i]
		lo, hi := max(a.from, b.from-reach), min(b.to, b.from+reach)
		k0, _ := slices.BinarySearch(s.sent, lo)
		var ts, rs []float64
		for k := k0; k < len(s.sent) && s.sent[k] < hi; k++ {
			if !ex[k] && !math.IsNaN(s.first[k]) {
				ts = append(ts, s.sent[k])
				rs = append(rs, s.first[k]-tl.drift*s.sent[k])
			}
		}
		if len(ts) < 2 {
			continue
		}
		// cost(c) = Σ_{j<c} |r_j − a| + Σ_{j≥c} |r_j − b|, by running sums.
		var right float64
		for _, r := range rs {
			right += math.Abs(r - b.level)
		}
		left := 0.0
		best, bestCost := -1, math.Inf(1)
		for c := 1; c < len(ts); c++ {
			left += math.Abs(rs[c-1] - a.level)
			right -= math.Abs(rs[c-1] - b.level)
			if cost := left + right; cost < bestCost {
				best, bestCost = c, cost
			}
		}
		at := (ts[best-1] + ts[best]) / 2
		a.to, b.from = at, at
	}
}

// markSpikes marks the short raised stretches that come back to the level
// before them as spikes, and merges what is either side of a spike into
// one level when they differ by less than the change threshold.
func markSpikes(tl *timeline) {
	for i := 1; i+1 < len(tl.segs); i++ {
		p, c, n := tl.segs[i-1], tl.segs[i], tl.segs[i+1]
		if c.to-c.from <= spikeMaxFor && c.level > p.level && c.level > n.level &&
			math.Abs(n.level-p.level) < 0.002 && !p.spike {
			tl.segs[i].spike = true
			tl.segs[i+1].level = p.level
		}
	}
}

// confirm merges the changes that the packets do not bear out: the delays
// either side of a change, less the drift, must differ by a Mann–Whitney
// z of at least 5 (window medians of a heavy-tailed jitter wander more
// than the segmentation's noise estimate allows for).
func confirm(s *stream, ex []bool, tl *timeline) {
	for again := true; again && len(tl.segs) > 1; {
		again = false
		for i := 1; i < len(tl.segs); i++ {
			a, b := tl.segs[i-1], tl.segs[i]
			var xa, xb []float64
			for k := range s.sent {
				if ex[k] || math.IsNaN(s.first[k]) {
					continue
				}
				r := s.first[k] - tl.drift*s.sent[k]
				switch t := s.sent[k]; {
				case t >= a.from && t < a.to:
					xa = append(xa, r)
				case t >= b.from && t < b.to:
					xb = append(xb, r)
				}
			}
			if mannWhitneyZ(xa, xb) >= 5 {
				continue
			}
			a.to = b.to
			all := append(xa, xb...)
			if len(all) > 0 {
				a.level = median(all)
			}
			tl.segs[i-1] = a
			tl.segs = slices.Delete(tl.segs, i, i+1)
			again = true
			break
		}
	}
}

// mannWhitneyZ returns |z| of the Mann–Whitney U test of a against b (the
// normal approximation, ties ranked by their mean); 0 if either is empty.
func mannWhitneyZ(a, b []float64) float64 {
	n1, n2 := float64(len(a)), float64(len(b))
	if n1 == 0 || n2 == 0 {
		return 0
	}
	type v struct {
		x    float64
		from bool // a
	}
	all := make([]v, 0, len(a)+len(b))
	for _, x := range a {
		all = append(all, v{x, true})
	}
	for _, x := range b {
		all = append(all, v{x, false})
	}
	slices.SortFunc(all, func(p, q v) int {
		switch {
		case p.x < q.x:
			return -1
		case p.x > q.x:
			return 1
		}
		return 0
	})
	var ra float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		rank := float64(i+j+1) / 2 // mean of ranks i+1..j
		for k := i; k < j; k++ {
			if all[k].from {
				ra += rank
			}
		}
		i = j
	}
	u := ra - n1*(n1+1)/2
	mu := n1 * n2 / 2
	sd := math.Sqrt(n1 * n2 * (n1 + n2 + 1) / 12)
	return math.Abs(u-mu) / sd
}
