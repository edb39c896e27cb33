package templates

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"interplab/engine"
)

// render renders Page(v) and parses it.
func render(t *testing.T, v PageView) *html.Node {
	t.Helper()
	var buf bytes.Buffer
	if err := Page(v).Render(context.Background(), &buf); err != nil {
		t.Fatalf("Page.Render: %v", err)
	}
	doc, err := html.Parse(&buf)
	if err != nil {
		t.Fatalf("html.Parse: %v", err)
	}
	return doc
}

func attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// find returns every element for which match is true, in document order.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func named(name string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		v, ok := attr(n, "name")
		return ok && v == name && (n.Data == "input" || n.Data == "select")
	}
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// fieldOf returns the control's enclosing div.field.
func fieldOf(n *html.Node) *html.Node {
	for ; n != nil; n = n.Parent {
		if c, _ := attr(n, "class"); strings.HasPrefix(c, "field ") {
			return n
		}
	}
	return nil
}

func byID(doc *html.Node, id string) *html.Node {
	n := find(doc, func(n *html.Node) bool { v, _ := attr(n, "id"); return v == id })
	if len(n) != 1 {
		return nil
	}
	return n[0]
}

// TestPageControls checks that every parameter of the table has a control
// carrying its vocabulary name, its range and its current value.
func TestPageControls(t *testing.T) {
	s := engine.Defaults()
	s.Latency = 0.12
	s.Loss = 0.035
	s.Adaptive = true
	s.Motion = "circle"
	s.Techniques = []string{"epic", "buffer"}
	doc := render(t, PageView{Params: engine.Params(), Settings: s})

	for _, p := range engine.Params() {
		nodes := find(doc, named(p.Name))
		if len(nodes) == 0 {
			t.Errorf("no control named %q", p.Name)
			continue
		}
		n := nodes[0]
		switch p.Kind {
		case engine.Float, engine.Int:
			if len(nodes) != 1 || n.Data != "input" {
				t.Errorf("%s: got %d <%s>, want one <input>", p.Name, len(nodes), n.Data)
				continue
			}
			for key, want := range map[string]float64{
				"min": p.Min, "max": p.Max, "step": p.Step, "value": p.Get(&s),
			} {
				text, _ := attr(n, key)
				if got, err := strconv.ParseFloat(text, 64); err != nil || got != want {
					t.Errorf("%s: %s = %q, want %v", p.Name, key, text, want)
				}
			}
		case engine.Bool:
			_, checked := attr(n, "checked")
			if typ, _ := attr(n, "type"); typ != "checkbox" || checked != (p.Get(&s) != 0) {
				t.Errorf("%s: type %q checked %v, want checkbox checked %v", p.Name, typ, checked, p.Get(&s) != 0)
			}
		case engine.Enum:
			sel := find(n, func(n *html.Node) bool { _, ok := attr(n, "selected"); return n.Data == "option" && ok })
			if n.Data != "select" || len(sel) != 1 || text(sel[0]) != s.Text(p.Name) {
				t.Errorf("%s: want a <select> with %q selected", p.Name, s.Text(p.Name))
			}
		case engine.Set:
			var on []string
			for _, c := range nodes {
				if _, ok := attr(c, "checked"); ok {
					v, _ := attr(c, "value")
					on = append(on, v)
				}
			}
			if len(nodes) != len(p.Choices) || strings.Join(on, ",") != s.Text(p.Name) {
				t.Errorf("%s: %d boxes with %v checked, want %d with %s", p.Name, len(nodes), on, len(p.Choices), s.Text(p.Name))
			}
		}
		if f := fieldOf(n); f == nil || !strings.Contains(text(f), p.Doc) {
			t.Errorf("%s: its doc %q is not shown beside it", p.Name, p.Doc)
		}
	}
}

// TestPageShown checks the values shown in the designer's units.
func TestPageShown(t *testing.T) {
	s := engine.Defaults()
	s.Latency = 0.12
	s.Loss = 0.035
	s.ClockDrift = 0.0002
	s.BurstLength = 2.5
	s.Jitter = 0.0002
	s.Duplicate = 0.000186
	s.Bandwidth = 256000
	s.Seed = 2761734960
	doc := render(t, PageView{Params: engine.Params(), Settings: s})
	// The seed's number input holds it in full, not 2.76173496e+09.
	if n := byID(doc, "p-seed"); n == nil {
		t.Error("no seed control")
	} else if got, _ := attr(n, "value"); got != "2761734960" {
		t.Errorf("seed value = %q, want 2761734960", got)
	}
	tests := []struct {
		name, shown string
	}{
		{"latency", "120"},
		{"loss", "3.5"},
		{"clockDrift", "200"},
		{"burstLength", "2.5"},
		{"tickRate", "60"},
		// Small values keep their digits: not 0 and 0.0 (issue 22).
		{"jitter", "0.2"},
		{"duplicate", "0.0186"},
		{"bandwidth", "256"},
	}
	for _, tt := range tests {
		n := byID(doc, "n-"+tt.name)
		if n == nil {
			t.Errorf("no number box for %s", tt.name)
			continue
		}
		if got, _ := attr(n, "value"); got != tt.shown {
			t.Errorf("shown %s = %q, want %q", tt.name, got, tt.shown)
		}
	}
}

func TestPageErrorsAndPresets(t *testing.T) {
	v := PageView{
		Params:   engine.Params(),
		Settings: engine.Defaults(),
		Preset:   "wifi",
		Presets: []PresetView{
			{Name: "lan", Title: "LAN", Doc: "A wired LAN.", Query: "latency=1ms"},
			{Name: "wifi", Title: "Home Wi-Fi", Doc: "Jittery home Wi-Fi.", Query: "jitter=30ms"},
		},
		Errors: []string{`loss = "95" is not allowed: want [0, 90] %`},
		Query:  "preset=wifi&loss=5%25",
		Exports: []ExportView{{Format: "json", Label: "JSON"}, {Format: "cpp", Label: "C++", Technique: engine.TechEPIC},
			{Format: "lib", Label: "Lib", Technique: "lib"}, {Format: "netem", Label: "netem"}},
	}
	doc := render(t, v)

	errs := byID(doc, "errors")
	if errs == nil {
		t.Fatal("no #errors")
	}
	if _, hidden := attr(errs, "hidden"); hidden || !strings.Contains(text(errs), v.Errors[0]) {
		t.Errorf("#errors hidden %v, text %q; want shown with %q", hidden, text(errs), v.Errors[0])
	}
	if _, hidden := attr(byID(render(t, PageView{Params: engine.Params()}), "errors"), "hidden"); !hidden {
		t.Error("#errors shown with no errors")
	}

	opts := find(byID(doc, "preset"), func(n *html.Node) bool { return n.Data == "option" })
	if len(opts) != 3 {
		t.Fatalf("preset picker has %d options, want 3 (defaults and 2 presets)", len(opts))
	}
	if _, ok := attr(opts[2], "selected"); !ok {
		t.Error("preset wifi is not selected")
	}
	if q, _ := attr(opts[1], "data-query"); q != "latency=1ms" {
		t.Errorf("lan data-query = %q, want latency=1ms", q)
	}
	if got := text(byID(doc, "preset-doc")); got != "Jittery home Wi-Fi." {
		t.Errorf("preset doc = %q, want the selected preset's", got)
	}

	// An export of a technique that is not selected is there, hidden (the
	// page shows it when the technique is picked).
	for _, f := range []string{"json", "cpp", "lib", "netem"} {
		a := byID(doc, "export-"+f)
		if a == nil {
			t.Errorf("no export link for %s", f)
			continue
		}
		if _, hidden := attr(a, "hidden"); hidden != (f == "lib") {
			t.Errorf("export %s hidden = %v, want %v", f, hidden, f == "lib")
		}
		want := "/api/export?format=" + f + "&preset=wifi&loss=5%25"
		if href, _ := attr(a, "href"); href != want {
			t.Errorf("export %s href = %q, want %q", f, href, want)
		}
	}
}

// TestEveryParamGroupHasATitle: the page renders only the groups it has a
// title for, and the page's script needs a control for every parameter.
func TestEveryParamGroupHasATitle(t *testing.T) {
	titled := map[string]bool{}
	for _, g := range groupTitles {
		titled[g.name] = true
	}
	for _, p := range engine.Params() {
		if !titled[p.Group] {
			t.Errorf("parameter %s: group %q has no title in groupTitles, so the page has no control for it", p.Name, p.Group)
		}
	}
}

// TestPageLibraryFirst: on a library's technique the side panel starts on
// its knobs, open, the lab's own techniques' last and folded, the compare
// toggle shown (on when they run); on the lab's own nothing moves.
func TestPageLibraryFirst(t *testing.T) {
	tests := []struct {
		techniques string
		order      string // the groups shown, top to bottom, a * after each folded
		compare    string // the toggle: "" absent, "off" or "on"
	}{
		{"epic,buffer", "scenario network buffer epic", ""},
		{"mirror", "mirror scenario network", "off"},
		{"epic,buffer,mirror", "mirror scenario network buffer* epic*", "on"},
		{"ngo,source", "ngo source scenario network", "off"},
		{"source,geckos", "geckos source scenario network", "off"},
	}
	for _, tt := range tests {
		s := engine.Defaults()
		if err := s.SetText("techniques", tt.techniques); err != nil {
			t.Fatal(err)
		}
		doc := render(t, PageView{Params: engine.Params(), Settings: s})
		var order []string
		for _, f := range find(doc, func(n *html.Node) bool { return n.Data == "fieldset" }) {
			if _, hidden := attr(f, "hidden"); hidden {
				continue
			}
			class, _ := attr(f, "class")
			name := strings.TrimPrefix(strings.Fields(class)[1], "group-")
			if d := find(f, func(n *html.Node) bool { return n.Data == "details" }); len(d) > 0 {
				if _, open := attr(d[0], "open"); !open {
					name += "*"
				}
			}
			order = append(order, name)
		}
		if got := strings.Join(order, " "); got != tt.order {
			t.Errorf("techniques %s: groups %q, want %q", tt.techniques, got, tt.order)
		}
		compare := ""
		if box := byID(doc, "compare-lab"); box != nil {
			if _, hidden := attr(box, "hidden"); !hidden {
				compare = "off"
				if _, on := attr(byID(doc, "compare-lab-toggle"), "checked"); on {
					compare = "on"
				}
			}
		}
		if compare != tt.compare {
			t.Errorf("techniques %s: compare toggle %q, want %q", tt.techniques, compare, tt.compare)
		}
	}
}

// TestPageExportQA: the export menu says, for each network export, what a
// studio's QA build gets, and its preview link names every version of the
// engine's simulator it compares (data-versions for the page's script).
func TestPageExportQA(t *testing.T) {
	v := PageView{Params: engine.Params(), Exports: []ExportView{{Format: "json", Label: "JSON"},
		{Format: "unity-network", Label: "Unity network", NetSim: "unity", Versions: []string{"unity-2.6"}, Preview: "/compare?x",
			QA: "Transport 2.3-2.5 as written; 2.6+ one-sided"}}}
	doc := render(t, v)
	qa := byID(doc, "qa-unity-network")
	if qa == nil || !strings.Contains(text(qa), "2.6+ one-sided") || !strings.Contains(text(qa), "Unity network") {
		t.Fatalf("#qa-unity-network = %v, want the export's QA line", qa)
	}
	if byID(doc, "qa-json") != nil {
		t.Error("the JSON export, not a network, has a QA line")
	}
	a := byID(doc, "preview-unity-network")
	if a == nil {
		t.Fatal("no preview link")
	}
	if got, _ := attr(a, "data-versions"); got != "unity-2.6" {
		t.Errorf("data-versions = %q, want unity-2.6", got)
	}
	if got := text(a); got != "vs unity" {
		t.Errorf("preview link text %q, want %q", got, "vs unity")
	}
	if title, _ := attr(a, "title"); !strings.Contains(title, "netSim unity, unity-2.6") {
		t.Errorf("preview link title %q does not name both versions", title)
	}
	if title, _ := attr(byID(doc, "export-unity-network"), "title"); !strings.Contains(title, "What QA will get: Transport 2.3-2.5") {
		t.Errorf("export link title %q lacks what QA will get", title)
	}
}
