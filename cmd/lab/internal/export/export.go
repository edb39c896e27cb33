// Package export writes settings as the files a game team pastes as is:
// the canonical JSON and a tc-netem script that puts a real server behind
// the lab's network (a scenario's timeline included) for any settings; C++
// for the seed's Interpolator; each library technique's knobs in its
// library's own form, written by the technique's own package
// (engine.LibraryExports); and the network for the engines' own network
// simulators. Every number in an export comes from the settings; a mapping
// that is not exact is said in the export's own comments. Each format is a
// file of its own.
package export

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"interplab/engine"
	"interplab/engine/technique/tools"
)

// File is an export ready to download.
type File struct {
	Body        []byte
	ContentType string
	Name        string // the download's file name: interplab-wifi.json
}

// format describes one export.
type format struct {
	name        string // the format's name in -format and ?format=
	label       string // the page's link text
	technique   string // the technique whose settings it writes; "" for every technique
	contentType string
	filename    func(preset string) string
	write       func(b *bytes.Buffer, o Origin, s engine.Settings)
}

// formats lists every export, in the order the page offers them: the
// lab's own, each library technique's (engine.LibraryExports, in the
// technique list's order), then the networks.
var formats = slices.Concat([]format{
	{"json", "JSON", "", "application/json", fileNamed(".json"), writeJSON},
	{"cpp", "cpp", engine.TechEPIC, "text/x-c++hdr; charset=utf-8", fileNamed(".h"), writeCpp},
}, libraryFormats(), []format{
	{"netem", "netem", "", "text/x-shellscript; charset=utf-8", fileNamed("-netem.sh"), writeNetem},
	{"unity-network", "Unity network", "", "text/x-csharp; charset=utf-8", func(string) string { return "InterpLabNetworkScenario.cs" }, writeUnityNetwork},
	{"mirror-network", "Mirror network", "", "text/x-csharp; charset=utf-8", func(string) string { return "InterpLabMirrorScenario.cs" }, writeMirrorNetwork},
	{"unreal-network", "Unreal network", "", "text/plain; charset=utf-8", fileNamed("-network.txt"), writeUnrealNetwork},
	{"source-network", "Source network", "", "text/plain; charset=utf-8", fileNamed("-network.cfg"), writeSourceNetwork},
})

// libraryFormats are the library techniques' exports, each written by its
// technique's package from its own knobs.
func libraryFormats() []format {
	var out []format
	for _, x := range engine.LibraryExports() {
		name := fileNamed(x.Ext)
		if x.File != "" {
			file := x.File
			name = func(string) string { return file }
		}
		write := func(b *bytes.Buffer, o Origin, s engine.Settings) {
			var sb strings.Builder
			x.Write(&sb, &s, o.label(&s), rateWarning(x.Technique, &s))
			b.WriteString(sb.String())
		}
		out = append(out, format{x.Format, x.Label, x.Technique, x.ContentType, name, write})
	}
	return out
}

// Info describes one export for the page.
type Info struct {
	Format    string // the name in ?format=
	Label     string // the link text
	Technique string // offered only beside this technique; "" beside every one
}

// List describes every export, in the order the page offers them.
func List() []Info {
	out := make([]Info, len(formats))
	for i, f := range formats {
		out[i] = Info{Format: f.name, Label: f.label, Technique: f.technique}
	}
	return out
}

// Technique returns the technique whose settings the named format writes,
// "" when it writes settings of any technique (json, netem) or the format is
// unknown. The page offers a library's export only beside its technique.
func Technique(format string) string {
	for _, f := range formats {
		if f.name == format {
			return f.technique
		}
	}
	return ""
}

// Formats lists the formats' names, in the order the page offers them.
func Formats() []string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return names
}

// Names lists the formats' names for a message: "json, cpp, ...".
func Names() string {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// Origin says where the settings of an export come from.
type Origin struct {
	// Preset is the preset the settings start from, "" for none: the JSON
	// export's "preset" (what the values are read back against) and the
	// download's name.
	Preset string
	// From is where the values come from, as the heading of the export
	// says it: `session "Harbor" rev 3`, "tuned: tuning 3f2a…". "" names
	// the preset, or the lab's defaults when there is none.
	From string
}

// label is the heading's account of where s comes from: o.From, else the
// preset, else the lab's defaults, said only when s is the defaults. (The
// settings that differ are not listed: a heading that changed with every
// setting would hide the lines that carry it.)
func (o Origin) label(s *engine.Settings) string {
	switch {
	case o.From != "":
		return o.From
	case o.Preset != "":
		return "preset " + strconv.Quote(o.Preset)
	case len(engine.Diff(engine.Defaults(), *s)) == 0:
		return "the lab's defaults"
	}
	return "settings changed from the lab's defaults"
}

// Render renders s, from o, in the given format, with the download's content
// type and file name. s must be valid (engine.Settings.Validate).
func Render(format string, o Origin, s engine.Settings) (File, error) {
	for _, f := range formats {
		if f.name == format {
			if err := s.Validate(); err != nil {
				return File{}, fmt.Errorf("export %s: %w", format, err)
			}
			if f.technique != "" && !slices.Contains(s.Techniques, f.technique) {
				return File{}, &TechniqueError{Format: format, Technique: f.technique, Techniques: slices.Clone(s.Techniques)}
			}
			var b bytes.Buffer
			f.write(&b, o, s)
			return File{Body: b.Bytes(), ContentType: f.contentType, Name: f.filename(o.Preset)}, nil
		}
	}
	return File{}, fmt.Errorf("unknown export format %q: want one of %s", format, Names())
}

// TechniqueError is Render's refusal of a technique's export for settings
// that do not run the technique.
type TechniqueError struct {
	Format     string   // the export asked for
	Technique  string   // the technique whose settings it writes
	Techniques []string // the techniques the settings run
}

func (e *TechniqueError) Error() string {
	return fmt.Sprintf("export %s writes the %s technique's settings: add %s to techniques (now %s)",
		e.Format, e.Technique, e.Technique, strings.Join(e.Techniques, ", "))
}

// fileNamed names a download after the preset: interplab-wifi.json.
func fileNamed(suffix string) func(string) string {
	return func(preset string) string {
		if preset == "" {
			preset = "defaults"
		}
		return "interplab-" + preset + suffix
	}
}

// Number formatting shared by the exports: the libraries' own export
// writers' (engine/technique/tools), so that a value prints the same in
// every file. Values are rounded to 1e-9 of their unit so that 0.015 s
// prints as 15 ms, not 15.000000000000002.
var (
	num      = tools.Num   // plain decimal notation
	ms       = tools.Ms    // a time in seconds as milliseconds
	floatLit = tools.Float // a C, C++ or C# float literal: 0.2f, 1.0f, 1e-05f
	boolLit  = tools.Bool  // a C-family boolean
)

// pct formats a fraction as a percentage.
func pct(fraction float64) string { return num(fraction * 100) }

// doc returns the parameter's doc line and unit for a comment.
func doc(name string) string {
	p, ok := engine.Lookup(name)
	if !ok {
		return "" // every name the exports list is in the table (TestExportParamsKnown)
	}
	if p.Unit != "" && p.Unit != "fraction" {
		return p.Unit + ": " + p.Doc
	}
	return p.Doc
}

// value returns the named parameter's value in s.
func value(s *engine.Settings, name string) float64 {
	p, ok := engine.Lookup(name)
	if !ok {
		return math.NaN() // every name the exports list is in the table (TestExportParamsKnown)
	}
	return p.Get(s)
}

// bufferParams are the snapshot-buffer values a game's own
// interpolation code needs, with the rates and speed they were tuned for.
var bufferParams = []string{"delay", "adaptive", "margin", "delayCap", "adaptWindow",
	"extrapolateCap", "speedClamp", "rotation", "maxSpeed", "tickRate", "sendRate"}

// constTypes are a language's declarations of a constant of each
// parameter kind: Bool, Int, Enum (as a string) and Float.
type constTypes struct{ boolT, intT, stringT, floatT string }

// decl declares the named parameter's value in s as a constant.
func (c constTypes) decl(s *engine.Settings, name string) string {
	p, _ := engine.Lookup(name)
	v := p.Get(s)
	switch p.Kind {
	case engine.Bool:
		return c.boolT + " " + name + " = " + boolLit(v != 0)
	case engine.Int:
		return c.intT + " " + name + " = " + num(v)
	case engine.Enum:
		return c.stringT + " " + name + " = " + strconv.Quote(p.Format(v))
	}
	return c.floatT + " " + name + " = " + floatLit(v)
}
