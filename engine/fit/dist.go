package fit

import (
	"math"
	"slices"

	"interplab/engine/netsim"
)

// Shapes of the link's heavy-tailed distributions (see netsim.Link): the
// fit estimates their scale, not their shape, because the link has none
// to set.
const (
	paretoShape    = 2.5
	lognormalSigma = 1.0
)

// DistFit is one jitter distribution fitted by maximum likelihood to the
// one-way delays: the latency (the delay's floor) and the jitter (the mean
// extra delay above it), with the fit's log-likelihood and its
// Kolmogorov–Smirnov distance to the delays.
type DistFit struct {
	Dist    string  `json:"dist"`    // one of netsim.JitterDists
	Latency float64 `json:"latency"` // s
	Jitter  float64 `json:"jitter"`  // s
	LogLik  float64 `json:"logLik"`  // log-likelihood per delay, in nats
	KS      float64 `json:"ks"`      // Kolmogorov–Smirnov distance, in [0, 1]
}

// fitDists fits every distribution of netsim.JitterDists to the delays x
// (at least two, not all equal), in that order. x is sorted.
func fitDists(x []float64) []DistFit {
	slices.Sort(x)
	out := make([]DistFit, 0, len(netsim.JitterDists))
	for _, d := range netsim.JitterDists {
		f := DistFit{Dist: d}
		switch d {
		case "uniform":
			f.Latency, f.Jitter = x[0], (x[len(x)-1]-x[0])/2
		case "normal":
			var ss float64
			for _, v := range x {
				ss += (v - x[0]) * (v - x[0])
			}
			sigma := math.Sqrt(ss / float64(len(x)))
			f.Latency, f.Jitter = x[0], sigma/math.Sqrt(math.Pi/2)
		case "pareto":
			f.Latency, f.Jitter = x[0], lomaxScale(x, x[0])/(paretoShape-1)
		case "lognormal":
			f.Latency, f.Jitter = lognormalFit(x)
		}
		f.LogLik = logLik(d, x, f.Latency, f.Jitter) / float64(len(x))
		f.KS = ksDistance(d, x, f.Latency, f.Jitter)
		out = append(out, f)
	}
	return out
}

// lomaxScale returns the maximum-likelihood scale λ of a Lomax of shape
// paretoShape for y = x − lat: the root of (α+1)/n·Σ y/(λ+y) = 1, which is
// decreasing in λ.
func lomaxScale(x []float64, lat float64) float64 {
	f := func(l float64) float64 {
		var s float64
		for _, v := range x {
			y := v - lat
			s += y / (l + y)
		}
		return (paretoShape+1)*s/float64(len(x)) - 1
	}
	lo, hi := 1e-9, 100.0
	for range 100 {
		mid := math.Sqrt(lo * hi)
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

// lognormalFit returns the maximum-likelihood latency and jitter of the
// link's lognormal (σ fixed at 1): the latency sits below the smallest
// delay, where log(x − L) is normal, and is found by golden-section search
// on the profile likelihood.
func lognormalFit(x []float64) (lat, jit float64) {
	profile := func(l float64) (ll, mu float64) {
		var s float64
		for _, v := range x {
			s += math.Log(v - l)
		}
		mu = s / float64(len(x))
		for _, v := range x {
			z := math.Log(v-l) - mu
			ll -= math.Log(v-l) + z*z/(2*lognormalSigma*lognormalSigma)
		}
		return ll, mu
	}
	var mean float64
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	// Search g = x₀ − L on a log scale from 1 ns to the mean's excess.
	a, b := math.Log(1e-9), math.Log(max(mean-x[0], 1e-8)*2)
	const phi = 0.6180339887498949
	ll := func(lg float64) float64 { v, _ := profile(x[0] - math.Exp(lg)); return v }
	c, d := b-phi*(b-a), a+phi*(b-a)
	fc, fd := ll(c), ll(d)
	for range 80 {
		if fc > fd {
			b, d, fd = d, c, fc
			c = b - phi*(b-a)
			fc = ll(c)
		} else {
			a, c, fc = c, d, fd
			d = a + phi*(b-a)
			fd = ll(d)
		}
	}
	lat = x[0] - math.Exp((a+b)/2)
	_, mu := profile(lat)
	return lat, math.Exp(mu + lognormalSigma*lognormalSigma/2)
}

// logLik returns the log-likelihood of the delays x under dist at the
// latency and jitter.
func logLik(dist string, x []float64, lat, jit float64) float64 {
	if !(jit > 0) {
		return math.Inf(-1)
	}
	var ll float64
	n := float64(len(x))
	switch dist {
	case "uniform":
		for _, v := range x {
			if v < lat || v > lat+2*jit+1e-12 {
				return math.Inf(-1)
			}
		}
		return -n * math.Log(2*jit)
	case "normal":
		sigma := jit * math.Sqrt(math.Pi/2)
		ll = n * math.Log(2/(sigma*math.Sqrt(2*math.Pi)))
		for _, v := range x {
			y := v - lat
			ll -= y * y / (2 * sigma * sigma)
		}
	case "pareto":
		l := jit * (paretoShape - 1)
		ll = n * math.Log(paretoShape/l)
		for _, v := range x {
			ll -= (paretoShape + 1) * math.Log1p((v-lat)/l)
		}
	case "lognormal":
		mu := math.Log(jit) - lognormalSigma*lognormalSigma/2
		ll = -n * math.Log(lognormalSigma*math.Sqrt(2*math.Pi))
		for _, v := range x {
			y := v - lat
			if y <= 0 {
				return math.Inf(-1)
			}
			z := (math.Log(y) - mu) / lognormalSigma
			ll -= math.Log(y) + z*z/2
		}
	}
	return ll
}

// cdf returns P(delay ≤ v) under dist at the latency and jitter: the
// closed forms of the link's distributions.
func cdf(dist string, v, lat, jit float64) float64 {
	y := v - lat
	if y <= 0 {
		return 0
	}
	switch dist {
	case "uniform":
		return min(1, y/(2*jit))
	case "normal":
		sigma := jit * math.Sqrt(math.Pi/2)
		return math.Erf(y / (sigma * math.Sqrt2))
	case "pareto":
		l := jit * (paretoShape - 1)
		return 1 - math.Pow(1+y/l, -paretoShape)
	case "lognormal":
		mu := math.Log(jit) - lognormalSigma*lognormalSigma/2
		return 0.5 * math.Erfc(-(math.Log(y)-mu)/(lognormalSigma*math.Sqrt2))
	}
	return math.NaN()
}

// ksDistance returns the Kolmogorov–Smirnov distance between the sorted
// sample x and dist at the latency and jitter.
func ksDistance(dist string, x []float64, lat, jit float64) float64 {
	n := float64(len(x))
	worst := 0.0
	for i, v := range x {
		f := cdf(dist, v, lat, jit)
		worst = max(worst, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	return worst
}
