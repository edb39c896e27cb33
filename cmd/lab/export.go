package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"interplab/engine"
)

// Exports: the current settings as a file a game team pastes as is. Every
// number in an export comes from the Settings; a mapping that is not exact is
// said in the export's own comments.
//
// The canonical JSON export (format "json", schema 1) is
//
//	{
//	  "schema": 1,
//	  "preset": "wifi",
//	  "settings": {
//	    "calcAhead": 0.2,
//	    ...
//	    "techniques": ["epic", "epicfix", "snap", "buffer", "hermite"]
//	  }
//	}
//
// schema is 1 for this layout and changes only when a reader of the old one
// would misread the new; preset is the starting preset ("" for the table's
// defaults), kept so a reader can show what was tuned from what; settings has
// every vocabulary key of engine.Params, in table order: numbers for Float and
// Int parameters in the stored unit (seconds, Hz, fractions), true or false
// for Bool, the choice's name for Enum, an array of names for Set. It decodes
// into engine.Settings as is.

// exportFormat describes one export.
type exportFormat struct {
	name        string // the format's name in -format and ?format=
	contentType string
	filename    func(preset string) string
	write       func(b *bytes.Buffer, preset string, s engine.Settings)
}

// exportFormats lists every export, in the order the page offers them.
var exportFormats = []exportFormat{
	{"json", "application/json", exportFile(".json"), writeJSONExport},
	{"cpp", "text/x-c++hdr; charset=utf-8", exportFile(".h"), writeCppExport},
	{"unity", "text/x-csharp; charset=utf-8", func(string) string { return "InterpLabSettings.cs" }, writeUnityExport},
	{"unreal", "text/plain; charset=utf-8", exportFile(".ini"), writeUnrealExport},
	{"source", "text/plain; charset=utf-8", exportFile(".cfg"), writeSourceExport},
	{"netem", "text/x-shellscript; charset=utf-8", exportFile("-netem.sh"), writeNetemExport},
}

// exportFile names a download after the preset: interplab-wifi.json.
func exportFile(suffix string) func(string) string {
	return func(preset string) string {
		if preset == "" {
			preset = "defaults"
		}
		return "interplab-" + preset + suffix
	}
}

func exportFormatNames() string {
	names := make([]string, len(exportFormats))
	for i, f := range exportFormats {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// export renders s, tuned from the named preset ("" for the defaults), in the
// given format, with the download's content type and file name. s must be
// valid (engine.Settings.Validate).
func export(format string, preset string, s engine.Settings) (body []byte, contentType, filename string, err error) {
	for _, f := range exportFormats {
		if f.name == format {
			if err := s.Validate(); err != nil {
				return nil, "", "", fmt.Errorf("export %s: %w", format, err)
			}
			var b bytes.Buffer
			f.write(&b, preset, s)
			return b.Bytes(), f.contentType, f.filename(preset), nil
		}
	}
	return nil, "", "", fmt.Errorf("unknown export format %q: want one of %s", format, exportFormatNames())
}

// writeJSONExport writes the canonical JSON (see the schema above).
func writeJSONExport(b *bytes.Buffer, preset string, s engine.Settings) {
	fmt.Fprintf(b, "{\n  \"schema\": 1,\n  \"preset\": %s,\n  \"settings\": {\n", exportJSON(preset))
	params := engine.Params()
	for i := range params {
		p := &params[i]
		v := p.Get(&s)
		var val string
		switch p.Kind {
		case engine.Bool:
			val = strconv.FormatBool(v != 0)
		case engine.Enum:
			val = exportJSON(p.Format(v))
		case engine.Set:
			names := strings.Split(p.Format(v), ",")
			for i, n := range names {
				names[i] = exportJSON(n)
			}
			val = "[" + strings.Join(names, ", ") + "]"
		default: // Float, Int
			val = exportJSON(v)
		}
		sep := ","
		if i == len(params)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "    %s: %s%s\n", exportJSON(p.Name), val, sep)
	}
	b.WriteString("  }\n}\n")
}

func exportJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic("lab: marshal export value: " + err.Error()) // only strings, numbers and lists
	}
	return string(data)
}

// Number formatting shared by the exports. Values are rounded to 1e-9 of
// their unit so that 0.015 s prints as 15 ms, not 15.000000000000002.

// exportNum formats v in plain decimal notation.
func exportNum(v float64) string {
	return strconv.FormatFloat(exportRound(v), 'f', -1, 64)
}

func exportRound(v float64) float64 { return math.Round(v*1e9) / 1e9 }

// exportMs formats a time in seconds as milliseconds.
func exportMs(seconds float64) string { return exportNum(seconds * 1000) }

// exportPct formats a fraction as a percentage.
func exportPct(fraction float64) string { return exportNum(fraction * 100) }

// exportFloatLit formats v as a C, C++ or C# float literal: 0.2f, 1.0f, 1e-05f.
func exportFloatLit(v float64) string {
	s := strconv.FormatFloat(float64(float32(v)), 'g', -1, 32)
	if !strings.ContainsAny(s, ".eEn") { // n: NaN and Inf cannot occur in valid settings
		s += ".0"
	}
	return s + "f"
}

// exportBool formats v as a C-family boolean.
func exportBool(v bool) string { return strconv.FormatBool(v) }

// exportDoc returns the parameter's doc line and unit for a comment.
func exportDoc(name string) string {
	p, ok := engine.Lookup(name)
	if !ok {
		panic("lab: export of unknown parameter " + name)
	}
	if p.Unit != "" && p.Unit != "fraction" {
		return p.Unit + ": " + p.Doc
	}
	return p.Doc
}

// exportPresetLabel describes where the settings started from.
func exportPresetLabel(preset string) string {
	if preset == "" {
		return "the lab's defaults"
	}
	return "preset " + strconv.Quote(preset)
}
