package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/a-h/templ"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/web"
)

// A comparison runs 2 to 8 variants of the lab's settings on one scenario
// with engine.RunSeries, on the server (never from numbers a browser sends),
// and charts them side by side: position error over time, the metrics, and
// added latency against error p95.
//
// Every variant runs the first variant's scenario: the parameters of the
// "scenario" group (motion, entities, maxSpeed, seed, duration, round) are
// copied from the first, and the comparison lists each value it replaced.
// Rejecting a mismatch instead would refuse most pairs of presets, which
// differ in their scenario as well as in their tuning; the designer wants the
// tuning compared on the same packets. Techniques are not forced: each
// variant runs its own, and the charts show the union.
const (
	compareMinVariants = 2
	compareMaxVariants = 8

	// compareMaxWork bounds the work of one comparison, so that a request
	// cannot hold the cores for long: the sum over variants of frames ×
	// techniques × max(entities, compareCostEntities), in entity-technique-
	// frames. Measured on the 2-core machine of DESIGN.md, a unit costs
	// 0.3 to 2 µs of CPU, so the bound is 3 to 20 s of CPU. The lab's
	// default settings need 576,000 a variant; 8 of them 4.6e6.
	compareMaxWork = 1e7

	// compareCostEntities: a run costs at least as much as one of this many
	// entities, for the added-latency metric samples up to 16 entities
	// whatever their number, at a cost above an entity's own.
	compareCostEntities = 16

	// compareMaxWindows bounds the points of a line in the error-over-time
	// chart.
	compareMaxWindows = 600
)

// compareSteps are the window widths, in seconds, the error series may use:
// the smallest that gives at most compareMaxWindows windows is chosen.
var compareSteps = []float64{0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60}

// variant is one contender of a comparison: settings and the label the
// charts show for them. The lead's resolver builds it from the current
// settings, a preset, or a saved session or revision.
type variant struct {
	Label    string
	Settings engine.Settings
	Trace    *engine.Trace // when not nil, the variant replays it (engine.RunTraceSeries); see comparetrace.go
	TraceKey string        // identifies Trace's content in the run cache
}

// compareError is a comparison that cannot run because of what was asked.
// Field names the query parameter ("v") or the setting at fault, as in the
// server's JSON errors.
type compareError struct {
	Field string
	Err   error
}

func (e *compareError) Error() string { return e.Err.Error() }
func (e *compareError) Unwrap() error { return e.Err }

// comparison is the outcome of compareRun. Its results are shared with the
// run cache: read them, never modify them.
type comparison struct {
	Variants   []variant       // as run: labels made unique, scenario equal to the first's
	Forced     []string        // scenario values replaced by the first variant's, in words
	Results    []engine.Result // one per variant, in order
	Step       float64         // width of the error series' windows, s
	Duration   float64         // s, shared by every variant
	Techniques []string        // every technique any variant ran, in TechniqueNames order
}

// compareScenario returns the parameters every variant takes from the first.
func compareScenario() []*engine.Param {
	var ps []*engine.Param
	for i, p := range engine.Params() {
		if p.Group == "scenario" && p.Kind != engine.Set {
			ps = append(ps, &engine.Params()[i])
		}
	}
	return ps
}

// compareRun checks the variants, gives them the first one's scenario, and
// runs each with engine.RunSeries, in parallel on at most GOMAXPROCS cores
// shared by every comparison in the process. A variant that cannot run is
// reported as a *compareError naming it.
func compareRun(ctx context.Context, vs []variant) (*comparison, error) {
	if n := len(vs); n < compareMinVariants || n > compareMaxVariants {
		return nil, &compareError{Field: "v", Err: fmt.Errorf("compare %d variants: want %d to %d", n, compareMinVariants, compareMaxVariants)}
	}
	first := vs[0].Settings
	first.Techniques = slices.Clone(first.Techniques)
	if err := first.Validate(); err != nil {
		return nil, compareVariantError(0, vs[0].Label, err)
	}
	c := &comparison{Duration: first.Duration, Step: compareStep(first.Duration)}
	labels := compareLabels(vs)
	ran := make(map[string]bool)
	work := 0.0
	for i, v := range vs {
		s := v.Settings
		s.Techniques = slices.Clone(s.Techniques)
		for _, p := range compareScenario() {
			if i == 0 || p.Get(&s) == p.Get(&first) || v.Trace != nil && p.Name == "entities" {
				continue
			}
			c.Forced = append(c.Forced, fmt.Sprintf("%s: %s %s → %s", labels[i], p.Name, s.Text(p.Name), first.Text(p.Name)))
			if err := p.Set(&s, p.Get(&first)); err != nil {
				return nil, compareVariantError(0, vs[0].Label, err) // first was valid: cannot happen
			}
		}
		if err := s.Validate(); err != nil {
			return nil, compareVariantError(i, v.Label, err)
		}
		techs := 0
		for _, t := range engine.TechniqueNames {
			if slices.Contains(s.Techniques, t) {
				ran[t] = true
				techs++
			}
		}
		frames, entities := math.Round(s.Duration*s.RenderRate), s.Entities
		if v.Trace != nil {
			frames, entities = math.Round(min(s.Duration, v.Trace.Span())*s.RenderRate), v.Trace.Entities
		}
		work += frames * float64(techs) * float64(max(entities, compareCostEntities))
		c.Variants = append(c.Variants, variant{Label: labels[i], Settings: s, Trace: v.Trace, TraceKey: v.TraceKey})
	}
	if work > compareMaxWork {
		return nil, &compareError{Field: "entities", Err: fmt.Errorf(
			"compare: the variants need %.3g entity-technique-frames, more than the %.3g a comparison may run: lower entities or duration, or run fewer techniques",
			work, float64(compareMaxWork))}
	}
	for _, t := range engine.TechniqueNames {
		if ran[t] {
			c.Techniques = append(c.Techniques, t)
		}
	}
	res, err := compareRunAll(ctx, c.Variants, c.Step)
	if err != nil {
		return nil, err
	}
	c.Results = res
	return c, nil
}

func compareVariantError(i int, label string, err error) error {
	field := "v"
	if fe, ok := errors.AsType[*engine.FieldError](err); ok {
		field = fe.Field
	}
	return &compareError{Field: field, Err: fmt.Errorf("variant %d (%s): %w", i+1, label, err)}
}

// compareLabels returns the variants' labels, unique: an empty label becomes
// "variant N", a repeated one gets " (2)", " (3)"...
func compareLabels(vs []variant) []string {
	labels := make([]string, len(vs))
	used := make(map[string]bool)
	for i, v := range vs {
		l := v.Label
		if l == "" {
			l = "variant " + strconv.Itoa(i+1)
		}
		u := l
		for n := 2; used[u]; n++ {
			u = fmt.Sprintf("%s (%d)", l, n)
		}
		used[u] = true
		labels[i] = u
	}
	return labels
}

// compareStep returns the window of the error series for a run of duration
// seconds.
func compareStep(duration float64) float64 {
	for _, st := range compareSteps {
		if duration/st <= compareMaxWindows {
			return st
		}
	}
	return compareSteps[len(compareSteps)-1]
}

// compareSlots bounds the simulations running at once in the process.
var compareSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// compareRunAll runs every variant (identical settings once), each on one
// core when a slot is free. A cancelled ctx stops the runs not yet started.
func compareRunAll(ctx context.Context, vs []variant, step float64) ([]engine.Result, error) {
	keys := make([]string, len(vs))
	first := make(map[string]int) // key → index of its first variant
	for i, v := range vs {
		keys[i] = compareKey(v.Settings, step)
		if v.Trace != nil {
			keys[i] = "trace " + v.TraceKey + " " + keys[i]
		}
		if _, ok := first[keys[i]]; !ok {
			first[keys[i]] = i
		}
	}
	res := make([]engine.Result, len(vs))
	errs := make([]error, len(vs))
	var wg sync.WaitGroup
	for i, v := range vs {
		if first[keys[i]] != i {
			continue
		}
		wg.Go(func() {
			if r, ok := compareCache.get(keys[i]); ok {
				res[i] = r
				return
			}
			if errs[i] = ctx.Err(); errs[i] != nil {
				return
			}
			select {
			case compareSlots <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-compareSlots }()
			var r engine.Result
			var err error
			if v.Trace != nil {
				r, err = engine.RunTraceSeries(v.Trace, v.Settings, step)
			} else {
				r, err = engine.RunSeries(v.Settings, step)
			}
			if err != nil {
				errs[i] = compareVariantError(i, v.Label, err)
				return
			}
			compareCache.put(keys[i], r)
			res[i] = r
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i := range vs {
		res[i] = res[first[keys[i]]]
	}
	return res, nil
}

// technique returns variant i's result for the named technique, or nil when
// the variant did not run it.
func (c *comparison) technique(i int, name string) *engine.TechniqueResult {
	for k := range c.Results[i].Techniques {
		if c.Results[i].Techniques[k].Name == name {
			return &c.Results[i].Techniques[k]
		}
	}
	return nil
}

// window returns the start and end of error-series window w, in seconds.
func (c *comparison) window(w int) (start, end float64) {
	return float64(w) * c.Step, min(float64(w+1)*c.Step, c.Duration)
}

// comparePalette colours variant i in every chart and table: the
// Okabe–Ito colours, told apart by colour-blind designers too.
var comparePalette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999933"}

// compareSymbols marks technique i of TechniqueNames in the scatter chart,
// where colour already tells the variants apart.
var compareSymbols = []string{"circle", "rect", "triangle", "diamond", "pin"}

// compareBarMetrics are the metrics drawn as bars, by MetricFields name.
var compareBarMetrics = []string{"errP95", "addedLatency", "underrunRounds", "snaps"}

// compareChart is one chart of a comparison, before it is rendered.
type compareChart struct {
	ID    string
	Doc   string // caption
	Chart compareECharts
}

// compareECharts is what the go-echarts charts used here have in common.
type compareECharts interface {
	Validate()
	JSON() map[string]any
	GetAssets() opts.Assets
}

// compareMetric returns the MetricFields entry named name and its index in
// Metrics.Values.
func compareMetric(name string) (engine.MetricField, int) {
	for i, f := range engine.MetricFields {
		if f.Name == name {
			return f, i
		}
	}
	panic("lab: no metric " + name)
}

// compareRound keeps 4 significant digits of a charted value: enough to
// read, and short in tooltips (the CSV has every digit).
func compareRound(v float64) float64 { return report.Round(v, 4) }

// compareGlobal are the options every comparison chart shares: our own
// ECharts (never a CDN), the variant palette, a PNG download, no animation
// (a PNG saved at once is complete), a white background (so is the PNG's).
// bottom is the room under the plot, in pixels, for the axis name and
// whatever sits below it.
func compareGlobal(id, title, subtitle string, bottom int) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, AssetsHost: web.EChartsDir,
			Width: "100%", Height: "380px", BackgroundColor: "#ffffff"}),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: subtitle, Left: "8"}),
		charts.WithColorsOpts(comparePalette),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "52", Left: "8", Right: "8"}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "12", Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Name: id, Title: "Save as PNG"}}}),
		charts.WithGridOpts(opts.Grid{Top: "92", Bottom: strconv.Itoa(bottom), Left: "40", Right: "24", ContainLabel: opts.Bool(true)}),
	}
}

// compareCharts builds every chart of c, by section: error over time (one
// chart per technique, a line per variant), the metrics side by side (one
// bar chart per metric of compareBarMetrics), and added latency against
// error p95 (one point per variant × technique).
func compareCharts(c *comparison) (errorCharts, metricCharts, latencyCharts []compareChart) {
	for _, t := range c.Techniques {
		errorCharts = append(errorCharts, compareChart{ID: "compare-error-" + t, Chart: compareErrorChart(c, t)})
	}
	for _, name := range compareBarMetrics {
		f, _ := compareMetric(name)
		metricCharts = append(metricCharts, compareChart{ID: "compare-metric-" + name, Doc: f.Doc, Chart: compareMetricChart(c, name)})
	}
	latencyCharts = []compareChart{{ID: "compare-latency", Chart: compareLatencyChart(c),
		Doc: "Down and to the left is better: less error for less delay. Each point is one technique of one variant."}}
	return errorCharts, metricCharts, latencyCharts
}

// compareErrorChart draws technique tech's RMS position error per window
// over time, a line per variant at the middle of each window. A variant
// that did not run tech keeps its (empty) line so colours match the other
// charts.
func compareErrorChart(c *comparison, tech string) *charts.Line {
	f, _ := compareMetric("errRMS")
	id := "compare-error-" + tech
	l := charts.NewLine()
	l.SetGlobalOptions(append(compareGlobal(id, "Position error over time: "+tech,
		"RMS over windows of "+strconv.FormatFloat(c.Step, 'g', -1, 64)+" s", 78), // room for the slider
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: "time (s)", NameLocation: "middle", NameGap: 26, Min: 0, Max: c.Duration}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: "RMS error (" + f.Display + ")", NameLocation: "middle", NameGap: 44}),
		charts.WithDataZoomOpts(opts.DataZoom{Type: "slider", XAxisIndex: 0, Start: 0, End: 100}),
	)...)
	for i, v := range c.Variants {
		var data []opts.LineData
		if tr := c.technique(i, tech); tr != nil {
			for w, e := range tr.Series {
				start, end := c.window(w)
				data = append(data, opts.LineData{Value: []float64{report.Round((start+end)/2, 6), compareRound(e * f.Scale)}})
			}
		}
		l.AddSeries(v.Label, data,
			charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
			charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5}))
	}
	return l
}

// compareMetricChart draws one metric as grouped bars: a group per
// technique, a bar per variant; "-" where a variant did not run it.
func compareMetricChart(c *comparison, name string) *charts.Bar {
	f, idx := compareMetric(name)
	b := charts.NewBar()
	b.SetGlobalOptions(append(compareGlobal("compare-metric-"+name, report.AxisName(f), "", 40),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "technique", NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value"}), // the title names it
	)...)
	b.SetXAxis(c.Techniques)
	var vals []float64
	for i, v := range c.Variants {
		data := make([]opts.BarData, len(c.Techniques))
		for k, t := range c.Techniques {
			tr := c.technique(i, t)
			if tr == nil {
				data[k] = opts.BarData{Value: "-"}
				continue
			}
			vals = tr.Metrics.Values(vals[:0])
			data[k] = opts.BarData{Value: compareRound(vals[idx] * f.Scale)}
		}
		b.AddSeries(v.Label, data)
	}
	return b
}

// compareLatencyChart draws error p95 against added latency: a series
// (colour) per variant, a point per technique, labelled with its name and
// marked with its symbol.
func compareLatencyChart(c *comparison) *charts.Scatter {
	xf, _ := compareMetric("addedLatency")
	yf, _ := compareMetric("errP95")
	s := charts.NewScatter()
	s.SetGlobalOptions(append(compareGlobal("compare-latency", "Added latency against error p95", "", 40),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithXAxisOpts(opts.XAxis{Type: "value", Name: report.AxisName(xf), NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Type: "value", Name: report.AxisName(yf), NameLocation: "middle", NameGap: 44}),
	)...)
	for i, v := range c.Variants {
		var data []opts.ScatterData
		for _, tr := range c.Results[i].Techniques {
			data = append(data, opts.ScatterData{Name: tr.Name, SymbolSize: 12,
				Symbol: compareSymbols[slices.Index(engine.TechniqueNames, tr.Name)],
				Value:  []float64{compareRound(tr.Metrics.AddedLatency * xf.Scale), compareRound(tr.Metrics.ErrP95 * yf.Scale)}})
		}
		s.AddSeries(v.Label, data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(true), Position: "right", Formatter: "{b}"}),
			charts.WithLabelLayoutOpts(opts.LabelLayout{HideOverlap: opts.Bool(true)})) // the tooltip names them all
	}
	return s
}

// compareComponent renders a chart into the page through
// templ.ComponentFunc: its element, and a script that draws it with the
// ECharts the page loaded. The options are marshalled here, with
// encoding/json escaping <, > and & — go-echarts' own snippet writes them
// unescaped into the script, where a session named "</script>..." would
// end it.
func compareComponent(ch compareChart) (templ.Component, error) {
	ch.Chart.Validate()
	opt, err := json.Marshal(ch.Chart.JSON())
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", ch.ID, err)
	}
	id, err := json.Marshal(ch.ID)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", ch.ID, err)
	}
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		_, err := fmt.Fprintf(w, `<div class="chart" id="%s"></div>`+
			`<script>(function(){var c=echarts.init(document.getElementById(%s),null,{renderer:"canvas"});`+
			`c.setOption(%s);new ResizeObserver(function(){c.resize()}).observe(c.getDom())})()</script>`,
			html.EscapeString(ch.ID), id, opt)
		return err
	}), nil
}
