package engine

import "math"

// Metrics summarises how one technique displayed its entities against the
// ground truth, over every frame since the start of a run. Frames where the
// technique had nothing to show yet (Mode Empty) are not counted.
type Metrics struct {
	Frames         int     `json:"frames"`         // entity-frames measured
	ErrRMS         float64 `json:"errRMS"`         // position error vs truth at the same instant, RMS, m
	ErrP95         float64 `json:"errP95"`         // its 95th percentile, m (from a histogram, within 1.6%)
	ErrMax         float64 `json:"errMax"`         // its maximum, m
	ErrAligned     float64 `json:"errAligned"`     // RMS error against the truth AddedLatency earlier: the path's shape, m
	AddedLatency   float64 `json:"addedLatency"`   // the delay d that best aligns display(t) with truth(t−d), s
	Snaps          int     `json:"snaps"`          // frames whose displayed step is faster than maxSpeed allows
	SnapMax        float64 `json:"snapMax"`        // the largest such step, m
	Underrun       float64 `json:"underrun"`       // share of entity-frames rendered past the newest snapshot
	UnderrunRounds float64 `json:"underrunRounds"` // share of entity-rounds with at least one underrun frame
	Extrapolating  float64 `json:"extrapolating"`  // share of entity-frames extrapolating
	Frozen         float64 `json:"frozen"`         // share of entity-frames holding a pose (Freeze or Hold), idle holds apart
	Idle           float64 `json:"idle"`           // share of entity-frames that are idle holds: the sender deliberately sent nothing new
	Smoothness     float64 `json:"smoothness"`     // RMS of displayed minus true acceleration, m/s²
}

// MetricField describes one field of Metrics for tables, panels and charts.
type MetricField struct {
	Name    string  // JSON key
	Unit    string  // SI unit of the value: "m", "s", "count", "fraction", "m/s²"
	Display string  // unit a designer reads: "cm", "ms", "%"...
	Scale   float64 // shown = value × Scale
	Doc     string  // one line
}

// MetricFields lists the fields of Metrics in the order of Metrics.Values.
// Every one is best at 0 but idle, which is no fault (a designer reads it,
// nothing ranks it); only AddedLatency can go below 0, when the display
// leads the truth.
var MetricFields = []MetricField{
	{"errRMS", "m", "cm", 100, "Position error against the truth at the same instant, root mean square."},
	{"errP95", "m", "cm", 100, "95th percentile of the position error."},
	{"errMax", "m", "cm", 100, "Largest position error."},
	{"errAligned", "m", "cm", 100, "RMS error against the truth shifted by the added latency: how wrong the path's shape is, whatever the delay."},
	{"addedLatency", "s", "ms", 1000, "Display delay d that best aligns the display at t with the truth at t−d."},
	{"snaps", "count", "", 1, "Frames whose displayed step is faster than the entity can move (1.5 × maxSpeed)."},
	{"snapMax", "m", "cm", 100, "Largest snap step."},
	{"underrun", "fraction", "%", 100, "Share of frames rendered past the newest received snapshot: the buffer ran dry. 100% by design for epic and epicfix, which always draw ahead of their newest packet (their starved figure is frozen)."},
	{"underrunRounds", "fraction", "%", 100, "Share of entities that underran at least once in a round (the guide's figure)."},
	{"extrapolating", "fraction", "%", 100, "Share of frames spent extrapolating."},
	{"frozen", "fraction", "%", 100, "Share of frames spent holding a pose: frozen past every limit, or a library that drew nothing (idle holds apart)."},
	{"idle", "fraction", "%", 100, "Share of frames holding while the sender deliberately sent nothing new (a send-on-change library's still entity): no fault, counted apart from underrun and frozen."},
	{"smoothness", "m/s²", "m/s²", 1, "RMS of displayed minus true acceleration: jerkiness the eye sees."},
}

// Values appends m's fields to dst in MetricFields order.
func (m Metrics) Values(dst []float64) []float64 {
	return append(dst, m.ErrRMS, m.ErrP95, m.ErrMax, m.ErrAligned, m.AddedLatency, float64(m.Snaps), m.SnapMax,
		m.Underrun, m.UnderrunRounds, m.Extrapolating, m.Frozen, m.Idle, m.Smoothness)
}

// snapFactor: a displayed step counts as a snap when it is faster than
// snapFactor × maxSpeed. The margin absorbs honest speed-ups, such as a
// client clock estimate slewing towards the server's.
const snapFactor = 1.5

// The error histogram for p95 counts squared errors, so the hot loop needs
// no square root: bin 0 holds squared errors below 2^histMinExp m², then
// histSub bins per octave up to 2^histMaxExp m², then one overflow bin. A bin
// spans at most 6.25% in squared error, about 3.1% in error.
const (
	histMinExp = -40 // squared: errors below about 1 µm
	histMaxExp = 24  // squared: errors above about 4 km
	histSub    = 16
	histBins   = 2 + (histMaxExp-histMinExp)*histSub
)

func histBin(sq float64) int {
	if sq < 0x1p-40 {
		return 0
	}
	bits := math.Float64bits(sq)
	exp := int(bits>>52&0x7ff) - 1023
	if exp >= histMaxExp {
		return histBins - 1
	}
	return 1 + (exp-histMinExp)*histSub + int(bits>>(52-4)&(histSub-1))
}

// histValue returns the error (not squared) at the geometric centre of bin i.
func histValue(i int) float64 {
	switch {
	case i == 0:
		return 0
	case i == histBins-1:
		return math.Ldexp(1, histMaxExp/2)
	}
	i--
	exp := i/histSub + histMinExp
	lo := math.Ldexp(1+float64(i%histSub)/histSub, exp)
	hi := math.Ldexp(1+float64(i%histSub+1)/histSub, exp)
	return math.Sqrt(math.Sqrt(lo * hi))
}

// acc accumulates one technique's metrics, streaming: fixed memory whatever
// the length of the run.
type acc struct {
	frames       int
	errSq        float64
	errMaxSq     float64
	hist         [histBins]uint32
	snaps        int
	snapMaxSq    float64
	underrun     int
	extrapolated int
	frozen       int
	idle         int
	accelFrames  int
	accelSq      float64
	rounds       int // entity-rounds completed
	roundsUnder  int // of those, with an underrun
	lagSSE       []float64
	lagFrames    int
}

func (a *acc) metrics(openRounds, openUnder int, lag lagGrid) Metrics {
	m := Metrics{Frames: a.frames, ErrMax: math.Sqrt(a.errMaxSq), Snaps: a.snaps, SnapMax: math.Sqrt(a.snapMaxSq)}
	if a.frames == 0 {
		return m
	}
	n := float64(a.frames)
	m.ErrRMS = math.Sqrt(a.errSq / n)
	// A bin's centre may lie above the largest error in it.
	m.ErrP95 = min(histValue(a.quantileBin(0.95)), m.ErrMax)
	m.Underrun = float64(a.underrun) / n
	m.Extrapolating = float64(a.extrapolated) / n
	m.Frozen = float64(a.frozen) / n
	m.Idle = float64(a.idle) / n
	if r := a.rounds + openRounds; r > 0 {
		m.UnderrunRounds = float64(a.roundsUnder+openUnder) / float64(r)
	}
	if a.accelFrames > 0 {
		m.Smoothness = math.Sqrt(a.accelSq / float64(a.accelFrames))
	}
	var sse float64
	m.AddedLatency, sse = lag.best(a.lagSSE, a.lagFrames)
	if a.lagFrames > 0 {
		m.ErrAligned = math.Sqrt(max(sse, 0) / float64(a.lagFrames))
	}
	return m
}

// quantileBin returns the histogram bin holding the q-quantile.
func (a *acc) quantileBin(q float64) int {
	need := uint64(math.Ceil(q * float64(a.frames)))
	var seen uint64
	for i, c := range a.hist {
		seen += uint64(c)
		if seen >= need && c > 0 {
			return i
		}
	}
	return histBins - 1
}

// lagGrid is the set of candidate display delays for the added-latency
// metric: whole render frames from −ahead to +behind. Delays between frames
// come from a parabola through the best candidate and its neighbours.
type lagGrid struct {
	period float64 // frame period, s
	ahead  int     // frames the display may lead the truth by
	behind int     // frames it may lag by
}

// The added-latency metric looks at most this far either way, and samples
// only the first latencyEntities entities: a delay is a property of the
// technique, not of one entity, and this keeps its cost fixed.
const (
	latencyAhead    = 0.25 // s
	latencyBehind   = 1.0  // s
	latencyEntities = 16
)

func newLagGrid(renderRate float64) lagGrid {
	return lagGrid{
		period: 1 / renderRate,
		ahead:  int(math.Ceil(latencyAhead * renderRate)),
		behind: int(math.Ceil(latencyBehind * renderRate)),
	}
}

func (g lagGrid) size() int { return g.ahead + g.behind + 1 }

// best returns the delay with the least summed squared error, refined
// between frames by a parabola through its neighbours, and that least sum
// (the parabola's vertex).
func (g lagGrid) best(sse []float64, frames int) (delay, least float64) {
	if frames == 0 || len(sse) == 0 {
		return 0, 0
	}
	j := 0
	for i, v := range sse {
		if v < sse[j] {
			j = i
		}
	}
	d, least := float64(j-g.ahead), sse[j]
	if j > 0 && j < len(sse)-1 {
		l, c, r := sse[j-1], sse[j], sse[j+1]
		if den := l - float64(2*c) + r; den > 0 {
			d += float64(0.5*(l-r)) / den
			least = c - float64((l-r)*(l-r))/float64(8*den)
		}
	}
	return float64(d * g.period), least
}
