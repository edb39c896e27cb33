package report

import (
	"fmt"
	"io"
	"text/tabwriter"

	"interplab/engine"
	"interplab/presets"
)

// PresetJSON is one preset as lab presets -json prints it.
type PresetJSON struct {
	Name     string          `json:"name"`
	Title    string          `json:"title"`
	Doc      string          `json:"doc"`
	Settings engine.Settings `json:"settings"`
}

// Presets returns list's rows for lab presets -json.
func Presets(list []presets.Preset) []PresetJSON {
	out := make([]PresetJSON, len(list))
	for i, p := range list {
		out[i] = PresetJSON{p.Name, p.Title, p.Doc, p.Settings}
	}
	return out
}

// PresetTable writes list as lab presets prints it: name, title, doc.
func PresetTable(w io.Writer, list []presets.Preset) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTITLE\tDOC")
	for _, p := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.Title, p.Doc)
	}
	return tw.Flush()
}
