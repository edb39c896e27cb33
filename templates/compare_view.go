package templates

import "github.com/a-h/templ"

// CompareView is what the comparison page shows, computed and formatted by
// the server: the page itself only lays it out.
type CompareView struct {
	Refs    []string // the variant refs of the form's rows, as asked for (empty rows included)
	Error   string   // why the comparison could not run; empty when it ran
	Field   string   // the query parameter or setting the error is about
	Scripts []string // URLs of the chart library, served by the lab itself

	Variants []CompareVariant
	Scenario []CompareSetting // the scenario every variant ran
	Forced   []string         // scenario values replaced by the first variant's, in words
	Sections []CompareSection // error over time, metrics, latency against error
	Table    CompareTable     // every metric of every variant and technique

	// Choices are the variants every row of the form offers to pick
	// from, in groups: presets, saved sessions and their recent
	// revisions, recorded traces.
	Choices []CompareChoiceGroup
}

// CompareChoiceGroup is one group of the compare form's chooser, e.g.
// "Presets".
type CompareChoiceGroup struct {
	Label   string
	Choices []CompareChoice
}

// CompareChoice is one variant the compare form offers: its ref and what a
// person reads.
type CompareChoice struct {
	Ref, Label string
}

// CompareVariant is one contender: the ref it came from and its label in
// the charts.
type CompareVariant struct {
	Ref, Label string
	Color      string // its colour in every chart, as CSS
}

// CompareSetting is one setting shown as text, e.g. {"motion", "mix"}.
type CompareSetting struct {
	Name, Value string
}

// CompareSection is a group of charts whose data downloads as one CSV.
type CompareSection struct {
	Title  string
	Doc    string // one sentence on how to read the charts
	CSV    string // URL of the section's data as CSV
	Charts []CompareChart
}

// CompareChart is one chart, drawn in the page by the chart library.
type CompareChart struct {
	ID    string
	Doc   string          // a caption under the chart; may be empty
	Chart templ.Component // the chart's element and script
}

// CompareTable is a table of metrics with display units in the header.
type CompareTable struct {
	Head []string
	Rows []CompareRow
	CSV  string // URL of the table's data as CSV
}

// CompareRow is one variant × technique row of a CompareTable.
type CompareRow struct {
	Variant, Technique string
	Color              string // the variant's colour, as CSS
	Cells              []string
}

// pickLabel is the first line of a compare row's chooser: what to do when
// the row is empty or holds a listed variant, and that the ref was typed
// when it holds one the list does not have.
func pickLabel(ref string, groups []CompareChoiceGroup) string {
	if ref == "" {
		return "pick a variant…"
	}
	for _, g := range groups {
		for _, c := range g.Choices {
			if c.Ref == ref {
				return "pick a variant…"
			}
		}
	}
	return "typed in the box →"
}
