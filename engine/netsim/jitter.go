package netsim

import (
	"math"
	"strconv"

	"interplab/engine/geom"
)

// ExtraDelay returns the extra delay, in seconds, at quantile u in (0, 1) of
// the distribution dist with mean jitter (≥ 0, seconds); see Link for the
// distributions. It is non-negative and non-decreasing in u. It panics on an
// unknown distribution when jitter > 0.
//
// It is jitterScale(k, jitter) · jitterUnit(k, u), k the distribution's
// kind: the part that depends on u alone, which costs an Exp, a Log or a
// normal quantile, is jitterUnit, so that the link can work it out for
// several packets at once (see delayDraws), and the two make the same
// rounded products as the formulas written out.
func ExtraDelay(dist string, jitter, u float64) float64 {
	if jitter == 0 {
		return 0
	}
	return extraDelayOf(jitterKindOf(dist), dist, jitter, u)
}

// extraDelayOf is ExtraDelay for jitter ≠ 0, with k the kind of dist.
func extraDelayOf(k jitterKind, dist string, jitter, u float64) float64 {
	if k == jitterUnknown {
		panic("engine: unknown jitterDist " + strconv.Quote(dist))
	}
	return float64(jitterScale(k, jitter) * jitterUnit(k, u))
}

// jitterKind is a jitter distribution by number, in the order of
// JitterDists, so that a packet's delay tells it by an integer rather than
// by its name.
type jitterKind int8

const (
	jitterUniform jitterKind = iota
	jitterNormal
	jitterPareto
	jitterLognormal

	jitterUnknown jitterKind = -1 // a name not among JitterDists
	jitterNone    jitterKind = -2 // no distribution: what delayDraws' units hold when none were worked out
)

// jitterKindOf returns the kind of the distribution named dist.
func jitterKindOf(dist string) jitterKind {
	switch dist {
	case "uniform":
		return jitterUniform
	case "normal":
		return jitterNormal
	case "pareto":
		return jitterPareto
	case "lognormal":
		return jitterLognormal
	}
	return jitterUnknown
}

// kindCache is the kind of the distribution a setting names, found again
// only when the name has changed: a link reads the setting on every send.
type kindCache struct {
	name string
	kind jitterKind
}

// newKindCache returns a cache that holds the kind of the empty name.
func newKindCache() kindCache { return kindCache{kind: jitterKindOf("")} }

// of returns jitterKindOf(dist).
func (c *kindCache) of(dist string) jitterKind {
	if !sameString(dist, c.name) {
		c.name, c.kind = dist, jitterKindOf(dist)
	}
	return c.kind
}

// jitterScale returns the factor of distribution k (a known kind) at mean
// jitter that multiplies jitterUnit: jitter times jitterScales[k], one
// rounded product (for lognormal, times 1, exact), with neither a switch
// nor a branch.
func jitterScale(k jitterKind, jitter float64) float64 {
	return jitter * jitterScales[k&3]
}

// jitterScales are the factors of jitterScale by kind, in the order of
// the kinds.
var jitterScales = [4]float64{
	jitterUniform:   2,                      // uniform on [0, 2·jitter]: 2·jitter·u
	jitterNormal:    math.Sqrt(math.Pi / 2), // σ of the half-normal
	jitterPareto:    linkParetoShape - 1,    // λ of the Lomax
	jitterLognormal: 1,                      // lognormal: jitter itself
}

// jitterUnit returns the part of the extra delay at quantile u in (0, 1) of
// distribution k (a known kind) that does not depend on the mean. (The
// link's batches work it out in stages, with the same arithmetic: see
// delayDraws.fill.)
func jitterUnit(k jitterKind, u float64) float64 {
	switch k {
	case jitterUniform:
		return u
	case jitterNormal:
		// The upper half of N(0, σ²): Φ⁻¹(1 − (1−u)/2) = −Φ⁻¹((1−u)/2).
		// (1−u)/2 is exact, while 1 − (1−u)/2 may round to 1, whose
		// quantile is infinite.
		return -geom.NormQuantile((1 - u) / 2)
	case jitterPareto:
		const a = linkParetoShape
		return geom.Exp(-geom.Log(1-u)/a) - 1
	}
	const sigma = linkLognormalSigma
	z := geom.NormQuantile(u)
	return geom.Exp(float64(sigma*z) - sigma*sigma/2)
}

// delayBatch is the number of packets (or pings) whose delay draws are
// taken at once (see delayDraws).
const delayBatch = 8

// delayDraws holds a random stream's delay draws for the next packets of a
// link (or the next pings of a clock), taken delayBatch at a time, two a
// packet as Send takes them, with the first ways draws of each already
// turned into their jitterUnit. Worked out one draw at a time, that unit
// is a chain of dependent operations (a normal quantile, then an Exp)
// whose latency the processor waits out on every send; worked out for
// several in one loop, the chains overlap. The numbers, and the arithmetic
// on each, are the same.
type delayDraws struct {
	u    [delayBatch][2]float64 // the two draws of each
	unit [delayBatch][2]float64 // jitterUnit(kind, u[i][j]) for j < ways
	kind jitterKind             // the kind unit holds; jitterNone when it holds none
	ways int                    // draws of each worked out ahead: 1 (a packet's duplicate is rare) or 2
	next int                    // the next one's index; delayBatch when all are taken
}

// newDelayDraws returns an empty batch that works out the first ways (1 or
// 2) draws of each packet ahead.
func newDelayDraws(ways int) delayDraws {
	return delayDraws{kind: jitterNone, ways: ways, next: delayBatch}
}

// take returns the index of the next packet's draws, drawing the next
// batch from r when the batch is used up. It works the units out for
// kind, unless kind is jitterUnknown.
func (d *delayDraws) take(r *geom.RNG, kind jitterKind) int {
	if d.next == delayBatch {
		d.fill(r, kind)
	}
	i := d.next
	d.next++
	return i
}

// fill draws the next batch from r and works its units out for kind.
func (d *delayDraws) fill(r *geom.RNG, kind jitterKind) {
	for i := range d.u {
		d.u[i] = [2]float64{r.Open(), r.Open()}
	}
	d.kind, d.next = kind, 0
	if kind == jitterUnknown {
		d.kind = jitterNone // which no kind asked for equals
		return
	}
	// jitterUnit, stage by stage: a loop whose body is one stage is short
	// enough for the processor to run several draws' chains at once.
	for j := range d.ways {
		switch kind {
		case jitterPareto:
			const a = linkParetoShape
			for i := range d.u {
				d.unit[i][j] = geom.Log(1 - d.u[i][j])
			}
			for i := range d.unit {
				d.unit[i][j] = geom.Exp(-d.unit[i][j]/a) - 1
			}
		case jitterLognormal:
			const sigma = linkLognormalSigma
			for i := range d.u {
				d.unit[i][j] = geom.NormQuantile(d.u[i][j])
			}
			for i := range d.unit {
				d.unit[i][j] = geom.Exp(float64(sigma*d.unit[i][j]) - sigma*sigma/2)
			}
		default:
			for i := range d.u {
				d.unit[i][j] = jitterUnit(kind, d.u[i][j])
			}
		}
	}
}

// extra returns ExtraDelay(dist, jitter, u) for draw j (0 or 1) u of
// packet i, k the kind of dist (found once by the caller), from its unit
// when it was worked out for that kind.
func (d *delayDraws) extra(k jitterKind, dist string, jitter float64, i, j int) float64 {
	if x, ok := d.kept(k, jitter, i, j); ok {
		return x
	}
	if jitter == 0 {
		return 0
	}
	return extraDelayOf(k, dist, jitter, d.u[i][j])
}

// kept returns extra(k, dist, jitter, i, j) and true when draw j of
// packet i had its unit worked out for kind k and jitter is not 0, as on
// nearly every send: small enough to inline where extra, with its call
// aside, is not, so that a send and a ping take it first and call
// extra only when it says false.
func (d *delayDraws) kept(k jitterKind, jitter float64, i, j int) (float64, bool) {
	if jitter != 0 && k == d.kind && j < d.ways {
		return float64(jitterScale(k, jitter) * d.unit[i&(delayBatch-1)][j&1]), true
	}
	return 0, false
}
