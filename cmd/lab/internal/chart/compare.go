package chart

import (
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
)

// Runs are what the comparison charts draw: one engine result per
// variant, run on one scenario and labelled, the error series in windows
// of Step seconds over Duration.
type Runs struct {
	Labels     []string        // one per variant, unique
	Results    []engine.Result // one per variant, in order
	Step       float64         // width of the error series' windows, s
	Duration   float64         // s, shared by every variant
	Techniques []string        // every technique any variant ran: the designer's library first, then engine.TechniqueNames order
}

// Technique returns variant i's result for the named technique, or nil when
// the variant did not run it.
func (c *Runs) Technique(i int, name string) *engine.TechniqueResult {
	for k := range c.Results[i].Techniques {
		if c.Results[i].Techniques[k].Name == name {
			return &c.Results[i].Techniques[k]
		}
	}
	return nil
}

// Window returns the start and end of error-series window w, in seconds.
func (c *Runs) Window(w int) (start, end float64) {
	return float64(w) * c.Step, min(float64(w+1)*c.Step, c.Duration)
}

// symbols marks technique i of TechniqueNames in the scatter chart,
// where colour already tells the variants apart.
var symbols = []string{"circle", "rect", "triangle", "diamond", "pin", "roundRect", "arrow"}

// barMetrics are the metrics drawn as bars, by MetricFields name.
var barMetrics = []string{"errP95", "addedLatency", "underrunRounds", "snaps"}

// Comparison builds every chart of c, by section: error over time (one
// chart per technique, a line per variant), the metrics side by side (one
// bar chart per metric of barMetrics), and added latency against
// error p95 (one point per variant × technique).
func Comparison(c *Runs) (errorCharts, metricCharts, latencyCharts []Figure) {
	for _, t := range c.Techniques {
		errorCharts = append(errorCharts, Figure{ID: "compare-error-" + t, Chart: errorChart(c, t)})
	}
	for _, name := range barMetrics {
		f, _, _ := metric(name)
		metricCharts = append(metricCharts, Figure{ID: "compare-metric-" + name, Doc: f.Doc, Chart: metricChart(c, name)})
	}
	latencyCharts = []Figure{{ID: "compare-latency", Chart: latencyChart(c),
		Doc: "Down and to the left is better: less error for less delay. Each point is one technique of one variant."}}
	return errorCharts, metricCharts, latencyCharts
}

// errorChart draws technique tech's RMS position error per window
// over time, a line per variant at the middle of each window. A variant
// that did not run tech keeps its (empty) line so colours match the other
// charts.
func errorChart(c *Runs, tech string) *charts.Line {
	f, _, _ := metric("errRMS")
	id := "compare-error-" + tech
	l := charts.NewLine()
	l.SetGlobalOptions(append(global(id, "Position error over time: "+tech,
		"RMS over windows of "+strconv.FormatFloat(c.Step, 'g', -1, 64)+" s", 78), // room for the slider
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "time (s)", NameLocation: "middle", NameGap: 26, Min: 0, Max: c.Duration}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "RMS error (" + f.Display + ")", NameLocation: "middle", NameGap: 44}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: 0, Start: 0, End: 100}),
	)...)
	for i, label := range c.Labels {
		var data []opts.LineData
		if tr := c.Technique(i, tech); tr != nil {
			for w, e := range tr.Series {
				start, end := c.Window(w)
				data = append(data, opts.LineData{Value: []float64{report.Round((start+end)/2, 6), round(e * f.Scale)}})
			}
		}
		l.AddSeries(label, data,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5}))
	}
	return l
}

// metricChart draws one metric as grouped bars: a group per
// technique, a bar per variant; "-" where a variant did not run it.
func metricChart(c *Runs, name string) *charts.Bar {
	f, idx, _ := metric(name)
	b := charts.NewBar()
	b.SetGlobalOptions(append(global("compare-metric-"+name, report.AxisName(f), "", 40),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "technique", NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}), // the title names it
	)...)
	b.SetXAxis(c.Techniques)
	var vals []float64
	for i, label := range c.Labels {
		data := make([]opts.BarData, len(c.Techniques))
		for k, t := range c.Techniques {
			tr := c.Technique(i, t)
			if tr == nil {
				data[k] = opts.BarData{Value: "-"}
				continue
			}
			vals = tr.Metrics.Values(vals[:0])
			data[k] = opts.BarData{Value: round(vals[idx] * f.Scale)}
		}
		b.AddSeries(label, data)
	}
	return b
}

// latencyChart draws error p95 against added latency: a series
// (colour) per variant, a point per technique, labelled with its name and
// marked with its symbol.
func latencyChart(c *Runs) *charts.Scatter {
	xf, _, _ := metric("addedLatency")
	yf, _, _ := metric("errP95")
	s := charts.NewScatter()
	s.SetGlobalOptions(append(global("compare-latency", "Added latency against error p95", "", 40),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: report.AxisName(xf), NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: report.AxisName(yf), NameLocation: "middle", NameGap: 44}),
	)...)
	for i, label := range c.Labels {
		var data []opts.ScatterData
		for _, tr := range c.Results[i].Techniques {
			data = append(data, opts.ScatterData{Name: tr.Name, SymbolSize: 12,
				Symbol: symbols[slices.Index(engine.TechniqueNames, tr.Name)%len(symbols)],
				Value:  []float64{round(tr.Metrics.AddedLatency * xf.Scale), round(tr.Metrics.ErrP95 * yf.Scale)}})
		}
		s.AddSeries(label, data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right", Formatter: "{b}"}),
			charts.WithLabelLayoutOpts(opts.LabelLayout{HideOverlap: opts.Bool(true)})) // the tooltip names them all
	}
	return s
}
