package chart

import (
	"fmt"
	"math"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/engine/param"
	"interplab/engine/study"
)

// Sweep draws the metric called name over the points of spec's sweep, from
// the settings labelled base, in the metric's display unit: a line over the
// x parameter for a one-parameter sweep, a heatmap (x across, y up) for
// two. Points not finished yet, and points whose settings were invalid,
// are gaps.
func Sweep(spec study.SweepSpec, base string, points []study.SweepPoint, name string) (Chart, error) {
	f, mi, ok := metric(name)
	if !ok {
		return nil, fmt.Errorf("chart a sweep: unknown metric %q", name)
	}
	px, _ := engine.Lookup(spec.X.Name)
	xs := spec.X.Values()
	title := spec.Technique + ": " + report.AxisName(f)
	subtitle := "base " + base + " · " + strconv.Itoa(len(points)) + " of " + strconv.Itoa(spec.Points()) + " points"
	value := func(pt study.SweepPoint) float64 {
		return round(pt.Metrics.Values(nil)[mi] * f.Scale)
	}
	if spec.Y == nil {
		l := charts.NewLine()
		byI := make([]*study.SweepPoint, len(xs))
		for k := range points {
			if points[k].Err == "" && points[k].I < len(xs) {
				byI[points[k].I] = &points[k]
			}
		}
		numeric := px.Kind == engine.Float || px.Kind == engine.Int
		xAxis := opts.XAxis{Type: "category", Name: axisName(px), NameLocation: "middle", NameGap: 26}
		if numeric {
			xAxis.Type, xAxis.Min, xAxis.Max = "value", shown(px, xs[0]), shown(px, xs[len(xs)-1])
		}
		l.SetGlobalOptions(append(global("sweep-chart", title, subtitle, 40),
			charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
			charts.WithXAxisOpts(xAxis),
			charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: report.AxisName(f), NameLocation: "middle", NameGap: 44}),
		)...)
		data := make([]opts.LineData, len(xs))
		var names []string
		for i, x := range xs {
			var y any = "-" // a gap
			if byI[i] != nil {
				y = value(*byI[i])
			}
			if numeric {
				data[i] = opts.LineData{Value: []any{shown(px, x), y}}
			} else {
				names = append(names, px.Format(x))
				data[i] = opts.LineData{Value: y}
			}
		}
		if !numeric {
			l.SetXAxis(names)
		}
		l.AddSeries(spec.Technique, data, charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(true)}))
		return l, nil
	}
	py, _ := engine.Lookup(spec.Y.Name)
	ys := spec.Y.Values()
	h := charts.NewHeatMap()
	lo, hi := math.Inf(1), math.Inf(-1)
	var data []opts.HeatMapData
	var marked []bool
	byDesign := engine.UnderrunByDesign(spec.Technique)
	nMarked := 0
	for _, pt := range points {
		if pt.Err != "" {
			continue
		}
		v := value(pt)
		lo, hi = min(lo, v), max(hi, v)
		data = append(data, opts.HeatMapData{Value: [3]any{pt.I, pt.J, v}})
		m := !byDesign && pt.Metrics.Underrun > UnderrunMark
		marked = append(marked, m)
		if m {
			nMarked++
		}
	}
	switch {
	case byDesign:
		subtitle += " · " + spec.Technique + " underruns on every frame by design: no cell is framed"
	case nMarked > 0:
		subtitle += fmt.Sprintf(" · framed: %d cells whose underrun is above %g%% of frames", nMarked, UnderrunMark*100)
	}
	if lo > hi {
		lo, hi = 0, 1
	}
	xNames := make([]string, len(xs))
	for i, x := range xs {
		xNames[i] = categoryLabel(px, x)
	}
	yNames := make([]string, len(ys))
	for j, y := range ys {
		yNames[j] = categoryLabel(py, y)
	}
	h.SetGlobalOptions(append(global("sweep-chart", title, subtitle, 70),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: xNames, Name: axisName(px), NameLocation: "middle", NameGap: 26,
			SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: yNames, Name: axisName(py), NameLocation: "middle", NameGap: 56,
			SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithVisualMapOpts(opts.VisualMap{Calculable: opts.Bool(true), Min: float32(lo), Max: float32(hi),
			Orient: "horizontal", Left: "center", Bottom: "0", Text: []string{"worse", "better"},
			InRange: &opts.VisualMapInRange{Color: []string{"#1a9850", "#fee08b", "#d73027"}}}),
	)...)
	h.SetXAxis(xNames)
	h.AddSeries(report.AxisName(f), data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(len(xs)*len(ys) <= 150)}))
	return &markedHeatMap{HeatMap: h, marked: marked}, nil
}

// UnderrunMark is the share of frames underrun above which a sweep's
// heatmap frames a cell: a delay that looks good on error alone but runs
// the buffer dry should not hide.
const UnderrunMark = 0.05

// markedHeatMap is a heatmap whose data items marked[k] get a thick dark
// frame (go-echarts has no per-item style for heatmap data).
type markedHeatMap struct {
	*charts.HeatMap
	marked []bool
}

// MarkedStyle is the item style of a framed heatmap cell.
var MarkedStyle = map[string]any{"borderColor": "#111111", "borderWidth": 3}

func (h *markedHeatMap) JSON() map[string]any {
	m := h.HeatMap.JSON()
	series, ok := m["series"].(charts.MultiSeries)
	if !ok || len(series) == 0 {
		return m
	}
	data, ok := series[0].Data.([]opts.HeatMapData)
	if !ok {
		return m
	}
	items := make([]any, len(data))
	for k, d := range data {
		item := map[string]any{"value": d.Value}
		if k < len(h.marked) && h.marked[k] {
			item["itemStyle"] = MarkedStyle
		}
		items[k] = item
	}
	series = append(charts.MultiSeries(nil), series...)
	series[0].Data = items
	m["series"] = series
	return m
}

// shown is a parameter's value in the unit the chart's axis shows.
func shown(p *engine.Param, v float64) float64 {
	if p.Scale != 0 && (p.Kind == engine.Float || p.Kind == engine.Int) {
		return report.Round(v*p.Scale, 6)
	}
	return v
}

// categoryLabel is a parameter's value as a category label.
func categoryLabel(p *engine.Param, v float64) string {
	if p.Kind == engine.Bool || p.Kind == engine.Enum {
		return p.Format(v)
	}
	_, scale := p.DisplayUnit()
	return param.ReadableIn(v, scale, 4) // 100000, not 1e+05
}

// axisName is a parameter's name with the unit its axis shows.
func axisName(p *engine.Param) string {
	if (p.Kind == engine.Float || p.Kind == engine.Int) && p.Display != "" && p.Scale != 0 {
		return p.Name + " (" + p.Display + ")"
	}
	return p.Name
}
