// Package templates renders the lab page. Its components take small view
// models (PageView) and generate every control from the engine's parameter
// table, so no setting is ever retyped here.
package templates

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"interplab/engine"
	"interplab/engine/param"
)

// PageView is everything the lab page shows when it is first served.
type PageView struct {
	Params   []engine.Param  // the parameter table, usually engine.Params()
	Settings engine.Settings // the current settings: the preset with the link's values applied
	Preset   string          // name of the selected preset, "" for none
	Presets  []PresetView    // the presets offered by the picker
	Errors   []string        // problems with the link's values, shown at the top of the page
	// UnitNotes are the link's plain numbers an older link meant in
	// another unit (link.OldUnits), and OlderLink the page's address with
	// them in that unit; none for most links.
	UnitNotes []string
	OlderLink string
	Query     string       // the current state as a URL query, without the leading "?"
	Session   *SessionView // the saved session the page is tied to; nil on a plain lab page
	Exports   []ExportView // the export links, in order

	// Trace names the recorded trace the page replays; "" for a run of
	// the link and motion scripts.
	Trace      string
	TraceInfo  string // what the trace holds, for people: span, entities, packets
	TraceFixed string // the parameters the replay takes from the trace, comma-separated
	// TraceIgnored are the parameters that do not shape a replay's packets
	// (engine.ReplayPingOnly, engine.ReplayUnused), comma-separated.
	TraceIgnored string
}

// PresetView is one entry of the preset picker.
type PresetView struct {
	Name, Title, Doc string
	// Query is the preset's settings as a URL query of only the values that
	// differ from the defaults, so the page can tell what differs from it.
	Query string
	// Library is the library technique the preset shows at its library's
	// defaults (engine.LibraryTechnique); "" for a preset of the network or
	// of the lab's own techniques.
	Library string
	// Custom marks a preset saved on this lab (from the page, or imported
	// as a preset file), listed after the built-in ones.
	Custom bool
}

// libraryView is one library of the picker with its presets.
type libraryView struct {
	Technique, Title, Note string
	Presets                []PresetView
}

// libraries returns the libraries that have presets, in picker order: the
// technique list's, each titled by its technique (engine.Library).
func libraries(v PageView) []libraryView {
	var out []libraryView
	for _, t := range engine.TechniqueNames {
		l := engine.Library(t)
		if l == nil {
			continue
		}
		lv := libraryView{Technique: t, Title: l.Title, Note: l.Note}
		for _, p := range v.Presets {
			if p.Library == t {
				lv.Presets = append(lv.Presets, p)
			}
		}
		if len(lv.Presets) > 0 {
			out = append(out, lv)
		}
	}
	return out
}

// firstVisit tells whether the page is the plain lab with nothing chosen
// yet: the page then asks which library the game is on (once per browser).
func firstVisit(v PageView) bool { return v.Query == "" && v.Session == nil && v.Trace == "" }

// networkPresets returns the presets that belong to no library.
func networkPresets(v PageView) []PresetView {
	var out []PresetView
	for _, p := range v.Presets {
		if p.Library == "" && !p.Custom {
			out = append(out, p)
		}
	}
	return out
}

// builtinPresets returns the presets that come with the lab.
func builtinPresets(v PageView) []PresetView {
	var out []PresetView
	for _, p := range v.Presets {
		if !p.Custom {
			out = append(out, p)
		}
	}
	return out
}

// customPresets returns the presets saved on this lab.
func customPresets(v PageView) []PresetView {
	var out []PresetView
	for _, p := range v.Presets {
		if p.Custom {
			out = append(out, p)
		}
	}
	return out
}

// libraryPresets returns the presets of every library, in picker order.
func libraryPresets(v PageView) []PresetView {
	var out []PresetView
	for _, l := range libraries(v) {
		out = append(out, l.Presets...)
	}
	return out
}

// groupTitles names the parameter groups, in display order: the
// scenario and the network, the lab's own techniques' settings, then each
// library technique's, titled by its technique (engine.Library), in the
// technique list's order.
var groupTitles = func() []struct{ name, title string } {
	out := []struct{ name, title string }{
		{"scenario", "Scenario"},
		{"network", "Network"},
		{"buffer", "Snapshot buffer"},
		{"epic", "EPIC"},
	}
	for _, t := range engine.TechniqueNames {
		if l := engine.Library(t); l != nil && engine.TechniqueGroup(t) != "" {
			out = append(out, struct{ name, title string }{engine.TechniqueGroup(t), l.Group})
		}
	}
	return out
}()

type groupView struct {
	Name, Title string
	Fields      []fieldView
	// Techniques lists the techniques that read the group's settings,
	// space-separated; "" for the scenario and the network. The page
	// hides the group while none of them is selected.
	Techniques string
	Hidden     bool
	// Library marks the group of a library technique's knobs.
	Library bool
	// Open tells whether the group starts unfolded: every group does but
	// the lab's own techniques' while the designer is on a library's, when
	// they are a comparison, folded and last.
	Open bool
}

// groupTechniques returns the techniques whose own settings are group g.
func groupTechniques(g string) []string {
	var out []string
	for _, t := range engine.TechniqueNames {
		if engine.TechniqueGroup(t) == g {
			out = append(out, t)
		}
	}
	return out
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
	Display               string   // unit shown
	Scale                 string   // shown = value × Scale
	Shown                 string   // the value as shown in the box: in Display, engine.ShowDigits significant digits
	Unit                  string   // what a plain number typed in the box means: Display, or the stored unit
	Units                 []string // the units a typed value may carry (engine Param.Units)

	Choices []choiceView // select and set
	Checked bool         // checkbox
}

type choiceView struct {
	Name     string
	Selected bool
}

// groups builds the controls of v's parameter table, grouped. On library
// technique lib (v.Settings.Library(), "" on the lab's own) the library
// comes first: its knobs, the other libraries running, then the scenario
// and the network, then the lab's own techniques, folded. web/lab.js keeps
// the same order (groupRank) as the techniques change.
func groups(v PageView, lib string) []groupView {
	var out []groupView
	for _, g := range groupTitles {
		gv := groupView{Name: g.name, Title: g.title, Open: true}
		if techs := groupTechniques(g.name); len(techs) > 0 {
			gv.Techniques = strings.Join(techs, " ")
			gv.Hidden = !slices.ContainsFunc(techs, func(t string) bool { return slices.Contains(v.Settings.Techniques, t) })
			gv.Library = engine.LibraryTechnique(techs[0])
			gv.Open = gv.Library || lib == ""
		}
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
	if lib != "" {
		slices.SortStableFunc(out, func(a, b groupView) int { return groupRank(a, lib) - groupRank(b, lib) })
	}
	return out
}

// groupRank places a group in the side panel while the designer is on
// library technique lib: lib's knobs, the other libraries running, the
// scenario and the network, the rest.
func groupRank(g groupView, lib string) int {
	switch {
	case g.Library && slices.Contains(strings.Fields(g.Techniques), lib):
		return 0
	case g.Library && !g.Hidden:
		return 1
	case g.Techniques == "":
		return 2
	}
	return 3
}

// comparingLab tells whether any of the lab's own techniques runs beside
// the libraries': the state of the "Compare with the lab's techniques"
// toggle.
func comparingLab(v PageView) bool {
	return slices.ContainsFunc(v.Settings.Techniques, func(t string) bool { return !engine.LibraryTechnique(t) })
}

// libraryTechniques lists the library techniques, space-separated, for
// web/lab.js to tell them from the lab's.
func libraryTechniques() string {
	var out []string
	for _, t := range engine.TechniqueNames {
		if engine.LibraryTechnique(t) {
			out = append(out, t)
		}
	}
	return strings.Join(out, " ")
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
	_, scale := p.DisplayUnit()
	if (p.Max-p.Min)*scale > 100000 {
		// A seed is an identifier, not a quantity: a slider would be
		// useless. (Bandwidth's 100000 kbit/s is a quantity, with a box
		// in kbit/s.)
		f.Control = "number"
	}
	f.Min, f.Max, f.Step = num(p.Min), num(p.Max), num(p.Step)
	f.Value = num(val)
	f.Display = p.Display
	f.Scale = num(scale)
	f.Shown = param.ReadableIn(val, scale, param.ShowDigits)
	f.Unit = p.Display
	if f.Unit == "" {
		f.Unit = p.Unit
	}
	if f.Unit == "fraction" {
		f.Unit = "fractions (0.02 is 2%)" // a library's plain share, such as Mirror's catchupSpeed
	}
	if f.Unit == "" {
		f.Unit = "units"
	}
	f.Units = p.Units()
	return f
}

// nameParts splits a parameter's name after each dot and underscore:
// "source.cl_interp" → "source.", "cl_", "interp".
func nameParts(name string) []string {
	var out []string
	for name != "" {
		i := strings.IndexAny(name, "._")
		if i < 0 {
			break
		}
		out = append(out, name[:i+1])
		name = name[i+1:]
	}
	if name != "" {
		out = append(out, name)
	}
	return out
}

// unitsHint says which units a typed value may carry: ", or with a unit:
// ms, s".
func unitsHint(f fieldView) string {
	if len(f.Units) == 0 {
		return ""
	}
	return ", or with a unit (" + strings.Join(f.Units, ", ") + ")"
}

// num formats an attribute number without an exponent: 4294967295, 0.0001.
func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// ExportView is one export link. A library's export writes its technique's
// settings, so the page offers it only while that technique is selected.
type ExportView struct {
	Format, Label string
	Technique     string // "" when the export writes settings of any technique
	// Preview is the comparison page of the lab's network against the game
	// engine's own simulator playing this export, and NetSim that
	// simulator; both "" when the engine does not model it. Versions are
	// the netSim choices of the engine's other versions the comparison
	// shows beside it ("unity-2.6" beside "unity").
	Preview, NetSim string
	Versions        []string
	// QA says, per engine version and build kind, what a studio's QA build
	// gets from a network export; "" for the others.
	QA string
}

// exportsQA returns v's network exports that say what QA will get or
// have a comparison with the engine's own simulator, in order.
func exportsQA(v PageView) []ExportView {
	var out []ExportView
	for _, e := range v.Exports {
		if e.QA != "" || e.Preview != "" {
			out = append(out, e)
		}
	}
	return out
}

// previewLabel names the simulators e's preview compares; the link itself
// names only the first. The links sit in "What QA will get", beside each
// network export's note, so that the header's export row stays one line.
func previewLabel(e ExportView) string {
	return strings.Join(append([]string{e.NetSim}, e.Versions...), ", ")
}

// previewVersions is e's data-versions attribute: the other versions'
// netSim choices, separated by spaces, for the page's script.
func previewVersions(e ExportView) string { return strings.Join(e.Versions, " ") }

// previewTitle is the title of e's preview link.
func previewTitle(e ExportView) string {
	return "What QA will get with this export: every technique's metrics over the lab's network beside the engine's own simulator playing it (netSim " + previewLabel(e) + ")"
}

// exportTitle is the title of e's link: what it downloads and, for a
// network export, what QA will get.
func exportTitle(e ExportView) string {
	if e.QA != "" {
		return "Download these settings as " + e.Label + ". What QA will get: " + e.QA
	}
	return exportLinkTitle(e)
}

// exports returns v's export links, those of library technique lib (the
// one the designer is on, "" for none) first: the export menu starts on
// what ships.
func exports(v PageView, lib string) []ExportView {
	out := slices.Clone(v.Exports)
	slices.SortStableFunc(out, func(a, b ExportView) int {
		return boolRank(a.Technique != lib || lib == "") - boolRank(b.Technique != lib || lib == "")
	})
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// exportHidden tells whether e's technique is not among s's techniques.
func exportHidden(e ExportView, s *engine.Settings) bool {
	return e.Technique != "" && !slices.Contains(s.Techniques, e.Technique)
}

// exportURL is the download address of the current settings in format f;
// on a session page it names the session's revision (from=session:ID@REV),
// which the export's heading names.
func exportURL(f, query string, s *SessionView) string {
	u := "/api/export?format=" + f
	if query != "" {
		u += "&" + query
	}
	if s != nil {
		u += "&from=" + url.QueryEscape("session:"+s.ID+"@"+strconv.Itoa(s.Rev))
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

// exportLinkTitle is an export link's tooltip.
func exportLinkTitle(e ExportView) string {
	if e.Technique == "" {
		return "Download these settings as " + e.Label
	}
	return "Download the " + e.Technique + " technique's settings as " + e.Label + " (offered while " + e.Technique + " is selected)"
}

// docCurrent names the navigation entry of a page framed by docPage.
func docCurrent(title string) string {
	if title == "Sessions" || strings.HasPrefix(title, "History of ") {
		return "sessions"
	}
	return ""
}
