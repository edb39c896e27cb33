// Package chart draws the lab's charts with go-echarts, from plain data
// (engine results, sweep points, tuning candidates): the comparison's
// error, metric and latency charts, a sweep's line or heatmap, a tuning's
// Pareto front. No engine runs here. Component puts a chart on a page.
package chart

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strconv"

	"github.com/a-h/templ"
	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/web"
)

// Chart is what the go-echarts charts used here have in common.
type Chart interface {
	Validate()
	JSON() map[string]any
	GetAssets() opts.Assets
}

// Figure is one chart of a comparison, before it is rendered.
type Figure struct {
	ID    string
	Doc   string // caption
	Chart Chart
}

// palette colours variant i in every chart and table: the
// Okabe–Ito colours, told apart by colour-blind designers too.
var palette = []string{"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#999933"}

// Color is variant i's colour in every chart, for the tables beside them.
func Color(i int) string { return palette[i%len(palette)] }

// metric returns the MetricFields entry named name and its index in
// Metrics.Values; ok is false for an unknown name.
func metric(name string) (f engine.MetricField, i int, ok bool) {
	i = report.MetricIndex(name)
	if i < 0 {
		return engine.MetricField{}, -1, false
	}
	return engine.MetricFields[i], i, true
}

// round keeps 4 significant digits of a charted value: enough to
// read, and short in tooltips (the CSV has every digit).
func round(v float64) float64 { return report.Round(v, 4) }

// global are the options every comparison chart shares: our own
// ECharts (never a CDN), the variant palette, a PNG download, no animation
// (a PNG saved at once is complete), a white background (so is the PNG's;
// in a dark page labChart puts the page's panel colour in its place).
// bottom is the room under the plot, in pixels, for the axis name and
// whatever sits below it.
func global(id, title, subtitle string, bottom int) []charts.GlobalOpts {
	return []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{ChartID: id, AssetsHost: web.EChartsDir,
			Width: "100%", Height: "380px", BackgroundColor: "#ffffff"}),
		charts.WithTitleOpts(opts.Title{Title: title, Subtitle: subtitle, Left: "8"}),
		charts.WithColorsOpts(palette),
		charts.WithAnimation(false),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(true), Type: "scroll", Top: "52", Left: "8", Right: "8"}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(true), Right: "12", Feature: &opts.ToolBoxFeature{
			SaveAsImage: &opts.ToolBoxFeatureSaveAsImage{Show: opts.Bool(true), Type: "png", Name: id, Title: "Save as PNG"}}}),
		charts.WithGridOpts(opts.Grid{Top: "92", Bottom: strconv.Itoa(bottom), Left: "40", Right: "24", ContainLabel: opts.Bool(true)}),
	}
}

// Scripts are what a page with charts loads, in this order: the vendored
// ECharts and web/charts.js, whose labChart draws each chart in the page's
// light or dark theme.
var Scripts = []string{web.EChartsJS, "/static/charts.js"}

// Component renders a chart into the page through
// templ.ComponentFunc: its element, and a script that draws it with
// labChart (Scripts). The options are marshalled here, with
// encoding/json escaping <, > and & — go-echarts' own snippet writes them
// unescaped into the script, where a session named "</script>..." would
// end it.
func Component(ch Figure) (templ.Component, error) {
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
		// The page's Content-Security-Policy lets inline scripts run only
		// with the request's nonce.
		nonce := ""
		if n := templ.GetNonce(ctx); n != "" {
			nonce = ` nonce="` + html.EscapeString(n) + `"`
		}
		_, err := fmt.Fprintf(w, `<div class="chart" id="%s"></div>`+
			`<script%s>labChart(document.getElementById(%s),%s)</script>`,
			html.EscapeString(ch.ID), nonce, id, opt)
		return err
	}), nil
}
