package chart

import (
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"interplab/cmd/lab/internal/report"
	"interplab/engine/study"
)

// frontX is a candidate's |added latency| in ms, as the front orders it.
func frontX(c study.Candidate) float64 {
	return round(math.Abs(c.Metrics.AddedLatency) * 1000)
}

// frontY is a candidate's aligned error in cm.
func frontY(c study.Candidate) float64 { return round(c.Metrics.ErrAligned * 100) }

// Pareto draws the candidates of a tuning of technique, from the settings
// labelled base with seed: every candidate's aligned error against its
// added latency's magnitude, the infeasible ones grey, the feasible ones
// blue, the Pareto front as a line through its points, the base and the
// recommendation, if there is one, marked.
func Pareto(technique, base string, seed uint64, res *study.TuneResult) Chart {
	xf, _, _ := metric("addedLatency")
	yf, _, _ := metric("errAligned")
	s := charts.NewScatter()
	s.SetGlobalOptions(append(global("tune-chart", "Pareto front: "+technique,
		"base "+base+" · "+strconv.Itoa(len(res.Candidates))+" candidates · seed "+strconv.FormatUint(seed, 10), 40),
		charts.WithColorsOpts(opts.Colors{"#bbbbbb", "#56B4E9", "#D55E00", "#000000", "#009E73"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "|" + report.AxisName(xf) + "|", NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: report.AxisName(yf), NameLocation: "middle", NameGap: 44}),
	)...)
	point := func(name string, c study.Candidate, size int) opts.ScatterData {
		return opts.ScatterData{Name: name, SymbolSize: size, Value: []float64{frontX(c), frontY(c)}}
	}
	var infeasible, feasible []opts.ScatterData
	for i, c := range res.Candidates {
		name := "#" + strconv.Itoa(i) + " cost " + report.Number(c.Cost)
		if c.Feasible {
			feasible = append(feasible, point(name, c, 7))
		} else {
			infeasible = append(infeasible, point(name, c, 6))
		}
	}
	s.AddSeries("infeasible", infeasible)
	s.AddSeries("feasible", feasible)
	front := charts.NewLine()
	var line []opts.LineData
	for _, c := range res.Pareto {
		line = append(line, opts.LineData{Value: []float64{frontX(c), frontY(c)}})
	}
	front.AddSeries("Pareto front", line, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 2}))
	s.Overlap(front)
	start := point("base, cost "+report.Number(res.Base.Cost), res.Base, 14)
	start.Symbol = "diamond"
	s.AddSeries("base", []opts.ScatterData{start})
	if res.Recommended {
		best := point("recommended, cost "+report.Number(res.Best.Cost), res.Best, 22)
		best.Symbol = "pin"
		s.AddSeries("recommended", []opts.ScatterData{best})
	}
	return s
}
