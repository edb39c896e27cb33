package fit

import (
	"math"
	"strconv"

	"interplab/engine"
	"interplab/engine/study"
)

// PopulationOf summarises fitted links (one per capture, or per entity)
// as a population the population runs and the tuner take: the links'
// spread, not their average. Each parameter is drawn uniformly from the
// range with the links' mean and variance, less the variance each fit's
// own sampling adds (see spreadOf): a loss measured on 2,400 sends is off
// by a fifth at 1%, and a range read off the fitted values would be that
// much wider than the players'.
//
// The links' most common (jitterDist, lossModel) pair is the stable class;
// the rest, if any, the high-variance class (its most common pair), with
// their share. like gives what a fit cannot: the motion, the size (entities,
// rounds, round) and the seed. It fails with an *Error when links is
// empty.
func PopulationOf(links []*Link, like study.Population) (study.Population, error) {
	if len(links) == 0 {
		return study.Population{}, &Error{Part: "population", Msg: "no fitted links"}
	}
	p := like
	key := func(l *Link) string { return distOf(l) + "/" + l.LossModel }
	count := map[string]int{}
	for _, l := range links {
		count[key(l)]++
	}
	stableKey := ""
	for _, l := range links { // first-seen order breaks ties
		if k := key(l); stableKey == "" || count[k] > count[stableKey] {
			stableKey = k
		}
	}
	var stable, high []*Link
	for _, l := range links {
		if key(l) == stableKey {
			stable = append(stable, l)
		} else {
			high = append(high, l)
		}
	}
	hvKey := ""
	for _, l := range high {
		if k := key(l); hvKey == "" || count[k] > count[hvKey] {
			hvKey = k
		}
	}
	var hv []*Link
	for _, l := range high {
		if key(l) == hvKey {
			hv = append(hv, l)
		}
	}
	p.Latency = spreadOf(links, "latency", func(l *Link) float64 { return l.Latency }, nil)
	p.ClockDrift = spreadOf(links, "clockDrift", func(l *Link) float64 { return l.ClockDrift }, nil)
	p.Stable = linkSpreadOf(stable)
	p.HighVariance, p.HighVarianceShare = p.Stable, 0
	if len(hv) > 0 {
		p.HighVariance = linkSpreadOf(hv)
		p.HighVarianceShare = round(float64(len(high))/float64(len(links)), 1e-4)
	}
	if err := p.Validate(); err != nil {
		return study.Population{}, err
	}
	return p, nil
}

// distOf returns l's jitter distribution, normal for a link without
// jitter (any distribution draws no jitter at 0).
func distOf(l *Link) string {
	if l.JitterDist == "" {
		return "normal"
	}
	return l.JitterDist
}

// linkSpreadOf returns the jitter and loss spread of one class of links.
func linkSpreadOf(links []*Link) study.LinkSpread {
	ls := study.LinkSpread{
		JitterDist: distOf(links[0]),
		LossModel:  links[0].LossModel,
		Jitter:     spreadOf(links, "jitter", func(l *Link) float64 { return l.Jitter }, jitterNoise),
		Loss:       spreadOf(links, "loss", func(l *Link) float64 { return l.Loss }, lossNoise),
	}
	ls.BurstLength = study.Spread{Min: 1, Max: 1}
	if ls.LossModel == "burst" {
		ls.BurstLength = spreadOf(links, "burstLength", func(l *Link) float64 { return max(1, l.BurstLength) }, burstNoise)
	}
	return ls
}

// spreadOf returns the uniform range with the mean and variance of f over
// links, the variance less noise's mean (each fit's own sampling variance,
// which a range read off the fitted values would add to the players'
// spread), clamped to the parameter's range and rounded to 1e-7.
func spreadOf(links []*Link, name string, f func(*Link) float64, noise func(*Link) float64) study.Spread {
	var sum, sq, nv float64
	n := float64(len(links))
	for _, l := range links {
		v := f(l)
		sum += v
		sq += v * v
		if noise != nil {
			nv += noise(l)
		}
	}
	mean := sum / n
	v := 0.0
	if len(links) > 1 {
		v = (sq - n*mean*mean) / (n - 1)
	}
	half := math.Sqrt(3 * max(0, v-nv/n)) // a uniform on [a, b] has variance (b − a)²/12
	p, _ := engine.Lookup(name)
	lo, hi := max(p.Min, min(p.Max, mean-half)), max(p.Min, min(p.Max, mean+half))
	return study.Spread{Min: round(lo, 1e-7), Max: round(hi, 1e-7)}
}

// lossNoise is the sampling variance of a fitted loss: binomial over the
// sends, inflated for bursts by 2B − 1 (the lag correlations of a
// two-state chain whose runs last B sends on average).
func lossNoise(l *Link) float64 {
	if l.Sends == 0 {
		return 0
	}
	v := l.Loss * (1 - l.Loss) / float64(l.Sends)
	if l.LossModel == "burst" {
		v *= 2*max(1, l.BurstLength) - 1
	}
	return v
}

// jitterNoise is the sampling variance of a fitted jitter, about J²/n over
// n delays.
func jitterNoise(l *Link) float64 {
	if l.Delivered == 0 {
		return 0
	}
	return l.Jitter * l.Jitter / float64(l.Delivered)
}

// burstNoise is the sampling variance of a fitted mean burst: a geometric
// run's variance B(B − 1) over the runs.
func burstNoise(l *Link) float64 {
	runs := l.Loss * float64(l.Sends) / max(1, l.BurstLength)
	if runs < 1 {
		return 0
	}
	return l.BurstLength * (l.BurstLength - 1) / runs
}

// PopulationDoc is a one-line description of a population fitted from n
// captures, for its file.
func PopulationDoc(n int) string {
	return "Fitted by lab fit to " + strconv.Itoa(n) + " captures: each parameter uniform over the range with the captures' mean and spread, less each fit's sampling noise."
}
