package main

import (
	"container/list"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
	"interplab/templates"
)

// compareMaxRef bounds the length of one variant ref, in bytes: a q: ref
// carries a whole share query, a few hundred bytes.
const compareMaxRef = 4096

// registerCompare registers the comparison page and its CSV data:
//
//	GET /compare?v=REF&v=REF...              the page (HTML)
//	GET /compare.csv?v=REF&v=REF...&chart=C  one chart's data, C = error, metrics or latency
//
// A REF names a variant, such as preset:wifi, session:ID, session:ID@REV,
// q:QUERY (a URL-encoded share query of the current settings) or, through
// registerCompareVariants, trace:NAME[@REF] (see comparetrace.go); resolve
// turns one into a label and settings, or an error a user can read. Empty
// refs are skipped, so a form may send blank rows. Two to eight refs are
// needed. A bad request gets 400: the page shows the error above the form
// when the client asked for HTML, otherwise it is JSON {"error", "field"}.
func registerCompare(mux *http.ServeMux, resolve func(ref string) (label string, s engine.Settings, err error)) {
	registerCompareVariants(mux, func(ref string) (variant, error) {
		label, s, err := resolve(ref)
		return variant{Label: label, Settings: s}, err
	})
}

// registerCompareVariants is registerCompare with a resolver that may
// return a variant replaying a recorded trace (see comparetrace.go).
func registerCompareVariants(mux *http.ServeMux, resolve func(ref string) (variant, error)) {
	mux.HandleFunc("GET /compare", func(w http.ResponseWriter, r *http.Request) {
		refs := compareRefs(r.URL.Query())
		c, err := compareResolveRunVariants(r.Context(), refs, resolve)
		var view templates.CompareView
		if err == nil {
			view, err = compareView(refs, c)
		}
		if err != nil {
			if r.Context().Err() != nil {
				return // the client left
			}
			e := compareAPIError(err)
			if !strings.Contains(r.Header.Get("Accept"), "text/html") {
				jsonapi.WriteError(w, e)
				return
			}
			view = templates.CompareView{Refs: compareFormRows(refs), Error: e.Msg, Field: e.Field}
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Header().Set("Cache-Control", "no-cache")
			w.WriteHeader(e.Status)
			templates.Compare(view).Render(r.Context(), w)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache") // a session ref may move to a new revision
		templates.Compare(view).Render(r.Context(), w)
	})
	mux.HandleFunc("GET /compare.csv", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		chart := q.Get("chart")
		if !slices.Contains([]string{compareCSVError, compareCSVMetrics, compareCSVLatency}, chart) {
			jsonapi.WriteError(w, jsonapi.BadRequest("chart", fmt.Sprintf("chart = %q: want %s, %s or %s",
				chart, compareCSVError, compareCSVMetrics, compareCSVLatency)))
			return
		}
		c, err := compareResolveRunVariants(r.Context(), compareRefs(q), resolve)
		if err != nil {
			if r.Context().Err() != nil {
				return
			}
			jsonapi.WriteError(w, compareAPIError(err))
			return
		}
		var b strings.Builder
		if err := writeCompareCSV(&b, c, chart); err != nil {
			jsonapi.WriteError(w, compareAPIError(err))
			return
		}
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="compare-`+chart+`.csv"`)
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		io.WriteString(w, b.String())
	})
}

// compareRefs returns the non-empty v parameters of q, trimmed, in order.
func compareRefs(q url.Values) []string {
	var refs []string
	for _, v := range q["v"] {
		if v = strings.TrimSpace(v); v != "" {
			refs = append(refs, v)
		}
	}
	return refs
}

// compareFormRows pads refs with blank rows up to the most variants a
// comparison takes, for the page's form.
func compareFormRows(refs []string) []string {
	rows := slices.Clone(refs)
	for len(rows) < compareMaxVariants {
		rows = append(rows, "")
	}
	return rows
}

// compareResolveRun resolves refs into variants and runs them.
func compareResolveRun(ctx context.Context, refs []string, resolve func(string) (string, engine.Settings, error)) (*comparison, error) {
	return compareResolveRunVariants(ctx, refs, func(ref string) (variant, error) {
		label, s, err := resolve(ref)
		return variant{Label: label, Settings: s}, err
	})
}

// compareResolveRunVariants is compareResolveRun with a resolver that may
// return a variant replaying a trace.
func compareResolveRunVariants(ctx context.Context, refs []string, resolve func(string) (variant, error)) (*comparison, error) {
	if n := len(refs); n < compareMinVariants || n > compareMaxVariants {
		return nil, &compareError{Field: "v", Err: fmt.Errorf("compare %d variants: want %d to %d refs (v=preset:NAME, v=session:ID...)",
			n, compareMinVariants, compareMaxVariants)}
	}
	vs := make([]variant, len(refs))
	for i, ref := range refs {
		if len(ref) > compareMaxRef {
			return nil, &compareError{Field: "v", Err: fmt.Errorf("variant %d: ref of %d bytes: want at most %d", i+1, len(ref), compareMaxRef)}
		}
		v, err := resolve(ref)
		if err != nil {
			return nil, &compareError{Field: "v", Err: fmt.Errorf("variant %d (%s): %w", i+1, ref, err)}
		}
		if v.Label == "" {
			v.Label = ref
		}
		vs[i] = v
	}
	return compareRun(ctx, vs)
}

// compareAPIError is the answer to a comparison that failed: a 400
// naming the field at fault for what was asked, else a 500.
func compareAPIError(err error) *jsonapi.Error {
	if ce, ok := errors.AsType[*compareError](err); ok {
		return jsonapi.BadRequest(ce.Field, err.Error())
	}
	return &jsonapi.Error{Status: http.StatusInternalServerError, Msg: "compare: " + err.Error()}
}

// compareCSVURL is the URL of one chart's data for the variants refs.
func compareCSVURL(refs []string, chart string) string {
	return "/compare.csv?" + url.Values{"v": refs, "chart": {chart}}.Encode()
}

// compareView builds the page of comparison c, run from refs.
func compareView(refs []string, c *comparison) (templates.CompareView, error) {
	v := templates.CompareView{Refs: compareFormRows(refs), Forced: c.Forced}
	for i, x := range c.Variants {
		v.Variants = append(v.Variants, templates.CompareVariant{Ref: refs[i], Label: x.Label, Color: comparePalette[i]})
	}
	first := c.Variants[0].Settings
	for _, p := range compareScenario() {
		v.Scenario = append(v.Scenario, templates.CompareSetting{Name: p.Name, Value: compareShow(p, &first)})
	}

	errCharts, metricCharts, latencyCharts := compareCharts(c)
	sections := []struct {
		title, doc, csv string
		charts          []compareChart
	}{
		{"Position error over time", "RMS position error against the truth over windows of " +
			strconv.FormatFloat(c.Step, 'g', -1, 64) + " s: one chart per technique, one line per variant. " +
			"Drag the slider under a chart to zoom; click a legend entry to hide a variant.", compareCSVError, errCharts},
		{"Metrics side by side", "One chart per metric, a group of bars per technique, one bar per variant; lower is better.",
			compareCSVMetrics, metricCharts},
		{"Added latency against error", "Each technique of each variant as one point: how much delay it adds for how much error.",
			compareCSVLatency, latencyCharts},
	}
	for _, s := range sections {
		sec := templates.CompareSection{Title: s.title, Doc: s.doc, CSV: compareCSVURL(refs, s.csv)}
		for _, ch := range s.charts {
			comp, err := compareComponent(ch)
			if err != nil {
				return templates.CompareView{}, err
			}
			for _, src := range ch.Chart.GetAssets().JSAssets.Values {
				if !slices.Contains(v.Scripts, src) {
					v.Scripts = append(v.Scripts, src)
				}
			}
			sec.Charts = append(sec.Charts, templates.CompareChart{ID: ch.ID, Doc: ch.Doc, Chart: comp})
		}
		v.Sections = append(v.Sections, sec)
	}

	v.Table = templates.CompareTable{Head: []string{"variant", "technique", "frames"}, CSV: compareCSVURL(refs, compareCSVMetrics)}
	for _, f := range engine.MetricFields {
		v.Table.Head = append(v.Table.Head, report.AxisName(f))
	}
	var vals []float64
	for i, x := range c.Variants {
		for _, tr := range c.Results[i].Techniques {
			row := templates.CompareRow{Variant: x.Label, Technique: tr.Name, Color: comparePalette[i],
				Cells: []string{strconv.Itoa(tr.Metrics.Frames)}}
			vals = tr.Metrics.Values(vals[:0])
			for k, f := range engine.MetricFields {
				row.Cells = append(row.Cells, report.Value(vals[k], f))
			}
			v.Table.Rows = append(v.Table.Rows, row)
		}
	}
	return v, nil
}

// compareShow is a setting's value as a designer reads it, with its unit.
func compareShow(p *engine.Param, s *engine.Settings) string {
	if (p.Kind == engine.Float || p.Kind == engine.Int) && p.Display != "" && p.Scale != 0 {
		return strconv.FormatFloat(p.Get(s)*p.Scale, 'g', -1, 64) + " " + p.Display
	}
	return s.Text(p.Name)
}

// Charts whose data /compare.csv serves.
const (
	compareCSVError   = "error"   // RMS position error per window, one column per variant × technique
	compareCSVMetrics = "metrics" // every metric, one row per variant × technique
	compareCSVLatency = "latency" // added latency and error p95, one row per variant × technique
)

// writeCompareCSV writes the data of one chart of c as CSV, in SI units (m,
// s, fractions: the JSON's), each column's unit in its header.
func writeCompareCSV(w io.Writer, c *comparison, chart string) error {
	cw := csv.NewWriter(w)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch chart {
	case compareCSVError:
		head := []string{"start (s)", "end (s)"}
		var cols []*engine.TechniqueResult
		windows := 0
		for _, t := range c.Techniques {
			for i, v := range c.Variants {
				if tr := c.technique(i, t); tr != nil {
					head = append(head, compareCSVText(v.Label+" / "+t+" (m)"))
					cols = append(cols, tr)
					windows = max(windows, len(tr.Series))
				}
			}
		}
		cw.Write(head)
		for wi := range windows {
			start, end := c.window(wi)
			row := []string{num(start), num(end)}
			for _, tr := range cols {
				cell := ""
				if wi < len(tr.Series) {
					cell = num(tr.Series[wi])
				}
				row = append(row, cell)
			}
			cw.Write(row)
		}
	case compareCSVMetrics:
		head := []string{"variant", "technique", "frames (count)"}
		for _, f := range engine.MetricFields {
			head = append(head, f.Name+" ("+f.Unit+")")
		}
		cw.Write(head)
		var vals []float64
		for i, v := range c.Variants {
			for _, tr := range c.Results[i].Techniques {
				row := []string{compareCSVText(v.Label), tr.Name, strconv.Itoa(tr.Metrics.Frames)}
				vals = tr.Metrics.Values(vals[:0])
				for _, x := range vals {
					row = append(row, num(x))
				}
				cw.Write(row)
			}
		}
	case compareCSVLatency:
		cw.Write([]string{"variant", "technique", "addedLatency (s)", "errP95 (m)"})
		for i, v := range c.Variants {
			for _, tr := range c.Results[i].Techniques {
				cw.Write([]string{compareCSVText(v.Label), tr.Name, num(tr.Metrics.AddedLatency), num(tr.Metrics.ErrP95)})
			}
		}
	default:
		return &compareError{Field: "chart", Err: fmt.Errorf("chart = %q: want %s, %s or %s", chart,
			compareCSVError, compareCSVMetrics, compareCSVLatency)}
	}
	cw.Flush()
	return cw.Error()
}

// compareCSVText defuses a label a spreadsheet would run as a formula (a
// session name is the user's text): it gets a leading apostrophe.
func compareCSVText(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}

// compareKey identifies a run: its settings as JSON and the series step.
func compareKey(s engine.Settings, step float64) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic("lab: settings do not marshal: " + err.Error())
	}
	return strconv.FormatFloat(step, 'g', -1, 64) + " " + string(b)
}

// compareCache keeps the latest runs. Runs are deterministic functions of
// their key, so an entry never goes stale; it spares a rerun when the page's
// CSV links ask for the comparison just shown.
var compareCache = newCompareLRU(64)

type compareLRU struct {
	mu    sync.Mutex
	max   int
	order *list.List // of *compareEntry, most recent first
	byKey map[string]*list.Element
}

type compareEntry struct {
	key string
	res engine.Result
}

func newCompareLRU(max int) *compareLRU {
	return &compareLRU{max: max, order: list.New(), byKey: make(map[string]*list.Element)}
}

func (l *compareLRU) get(key string) (engine.Result, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.byKey[key]
	if !ok {
		return engine.Result{}, false
	}
	l.order.MoveToFront(e)
	return e.Value.(*compareEntry).res, true
}

func (l *compareLRU) put(key string, r engine.Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e, ok := l.byKey[key]; ok {
		l.order.MoveToFront(e)
		return
	}
	l.byKey[key] = l.order.PushFront(&compareEntry{key, r})
	if l.order.Len() > l.max {
		old := l.order.Back()
		l.order.Remove(old)
		delete(l.byKey, old.Value.(*compareEntry).key)
	}
}
