// Package templates renders the lab page. Its components take small view
// models (PageView) and generate every control from the engine's parameter
// table, so no setting is ever retyped here.
package templates

import (
	"math"
	"strconv"

	"interplab/engine"
)

// PageView is everything the lab page shows when it is first served.
type PageView struct {
	Params   []engine.Param  // the parameter table, usually engine.Params()
	Settings engine.Settings // the current settings: the preset with the link's values applied
	Preset   string          // name of the selected preset, "" for none
	Presets  []PresetView    // the presets offered by the picker
	Errors   []string        // problems with the link's values, shown at the top of the page
	Query    string          // the current state as a URL query, without the leading "?"
	Session  *SessionView    // the saved session the page is tied to; nil on a plain lab page

	// Trace names the recorded trace the page replays; "" for a run of
	// the link and motion scripts.
	Trace      string
	TraceInfo  string // what the trace holds, for people: span, entities, packets
	TraceFixed string // the parameters the replay takes from the trace, comma-separated
}

// PresetView is one entry of the preset picker.
type PresetView struct {
	Name, Title, Doc string
	// Query is the preset's settings as a URL query of only the values that
	// differ from the defaults, so the page can tell what differs from it.
	Query string
}

// groupTitles names the parameter groups, in display order.
var groupTitles = []struct{ name, title string }{
	{"scenario", "Scenario"},
	{"network", "Network"},
	{"buffer", "Snapshot buffer"},
	{"epic", "EPIC"},
}

type groupView struct {
	Name, Title string
	Fields      []fieldView
}

// fieldView is one control: a slider, a number box, a select, a checkbox or
// the technique picker.
type fieldView struct {
	Name    string // vocabulary name: the input's name attribute
	Control string // "range", "number", "select", "checkbox" or "set"
	Doc     string
	Restart bool

	// Number controls, in stored units.
	Min, Max, Step, Value string
	Display               string // unit shown
	Scale                 string // shown = value × Scale
	Decimals              int    // digits after the point when shown
	Shown                 string // the value as shown, with Decimals digits

	Choices []choiceView // select and set
	Checked bool         // checkbox
}

type choiceView struct {
	Name     string
	Selected bool
}

// groups builds the controls of v's parameter table, grouped.
func groups(v PageView) []groupView {
	var out []groupView
	for _, g := range groupTitles {
		gv := groupView{Name: g.name, Title: g.title}
		for i := range v.Params {
			p := &v.Params[i]
			if p.Group == g.name {
				gv.Fields = append(gv.Fields, field(p, &v.Settings))
			}
		}
		if len(gv.Fields) > 0 {
			out = append(out, gv)
		}
	}
	return out
}

func field(p *engine.Param, s *engine.Settings) fieldView {
	val := p.Get(s)
	f := fieldView{Name: p.Name, Doc: p.Doc, Restart: p.Restart}
	switch p.Kind {
	case engine.Bool:
		f.Control = "checkbox"
		f.Checked = val != 0
		return f
	case engine.Enum, engine.Set:
		f.Control = "select"
		if p.Kind == engine.Set {
			f.Control = "set"
		}
		for i, c := range p.Choices {
			var on bool
			if p.Kind == engine.Enum {
				on = val == float64(i)
			} else {
				on = uint64(val)&(1<<i) != 0
			}
			f.Choices = append(f.Choices, choiceView{Name: c, Selected: on})
		}
		return f
	}
	f.Control = "range"
	if p.Max-p.Min > 100000 {
		// A seed is an identifier, not a quantity: a slider would be useless.
		f.Control = "number"
	}
	scale := p.Scale
	if scale == 0 {
		scale = 1
	}
	f.Min, f.Max, f.Step = num(p.Min), num(p.Max), num(p.Step)
	f.Value = p.Format(val)
	f.Display = p.Display
	f.Scale = num(scale)
	f.Decimals = decimals(p.Step * scale)
	f.Shown = strconv.FormatFloat(val*scale, 'f', f.Decimals, 64)
	return f
}

// decimals returns how many digits after the point show a quantity whose
// slider step is step (in shown units): 0 for 1 ms, 1 for 0.1 %.
func decimals(step float64) int {
	if step <= 0 || step >= 1 {
		return 0
	}
	return int(math.Ceil(-math.Log10(step) - 1e-9))
}

// num formats an attribute number without an exponent: 4294967295, 0.0001.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// exportFormats are the export links, as format and label.
var exportFormats = []struct{ Format, Label string }{
	{"json", "JSON"},
	{"cpp", "C++"},
	{"unity", "Unity"},
	{"unreal", "Unreal"},
	{"source", "Source"},
	{"netem", "netem"},
	{"unity-network", "Unity NGO network"},
	{"mirror-network", "Mirror network"},
	{"unreal-network", "Unreal network"},
	{"source-network", "Source network"},
}

// exportURL is the download address of the current settings in format f.
func exportURL(f, query string) string {
	u := "/api/export?format=" + f
	if query != "" {
		u += "&" + query
	}
	return u
}

// presetDoc returns the doc of the selected preset.
func presetDoc(v PageView) string {
	for _, p := range v.Presets {
		if p.Name == v.Preset {
			return p.Doc
		}
	}
	return ""
}

func itoa(i int) string { return strconv.Itoa(i) }
