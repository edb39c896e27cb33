package chart

import (
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"interplab/cmd/lab/internal/report"
	"interplab/engine/study"
)

// PopulationHistograms are the histograms a population run's page shows,
// across entities: rounds with an underrun, error p95, added latency. One
// bar series per technique.
var PopulationHistograms = []string{"underrunRounds", "errP95", "addedLatency"}

// populationBins is how many bins a continuous histogram has.
const populationBins = 20

// Population draws the histogram across entities of res's figure name
// (one of PopulationHistograms): for underrunRounds a bar per count of
// rounds (0 to the population's rounds), for errP95 and addedLatency
// populationBins equal bins over every technique's range, in display units.
func Population(res *study.PopulationResult, name string) (Chart, bool) {
	f, _, ok := metric(name)
	if !ok {
		return nil, false
	}
	rounds := res.Spec.Population.Rounds
	value := func(m study.EntityMetrics) float64 {
		switch name {
		case "underrunRounds":
			return float64(m.UnderrunRounds)
		case "errP95":
			return m.ErrP95 * f.Scale
		}
		return m.AddedLatency * f.Scale
	}
	var labels []string
	var bin func(v float64) int
	axis := report.AxisName(f) + ", per entity"
	switch name {
	case "underrunRounds":
		for r := 0; r <= rounds; r++ {
			labels = append(labels, strconv.Itoa(r))
		}
		bin = func(v float64) int { return int(v) }
		axis = "rounds with an underrun, of " + strconv.Itoa(rounds)
	case "errP95", "addedLatency":
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, e := range res.Entities {
			for _, m := range e.Techniques {
				lo, hi = min(lo, value(m)), max(hi, value(m))
			}
		}
		if !(hi > lo) {
			hi = lo + 1
		}
		width := (hi - lo) / populationBins
		for i := range populationBins {
			labels = append(labels, report.Number(lo+width*float64(i))+"–"+report.Number(lo+width*float64(i+1)))
		}
		bin = func(v float64) int { return min(int((v-lo)/width), populationBins-1) }
	default:
		return nil, false
	}
	p := &res.Spec.Population
	b := charts.NewBar()
	b.SetGlobalOptions(append(global("population-"+name, "Entities by "+axis, strconv.Itoa(p.Entities)+" entities × "+
		strconv.Itoa(rounds)+" rounds of "+report.Short(p.Round)+" s", 50),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: axis, NameLocation: "middle", NameGap: 30}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "entities", NameLocation: "middle", NameGap: 36}),
	)...)
	b.SetXAxis(labels)
	for k, t := range res.Techniques {
		counts := make([]int, len(labels))
		for _, e := range res.Entities {
			counts[bin(value(e.Techniques[k]))]++
		}
		data := make([]opts.BarData, len(counts))
		for i, c := range counts {
			data[i] = opts.BarData{Value: c}
		}
		b.AddSeries(t.Name, data)
	}
	return b, true
}
