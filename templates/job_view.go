package templates

import "github.com/a-h/templ"

// JobView is a sweep's or tuning's state when its page was rendered; the
// page follows it live over WS.
type JobView struct {
	ID, Kind string
	State    string // running, done, cancelled or failed
	Done     int    // results finished
	Total    int    // results asked for
	Error    string // why it failed
	WS       string // the progress WebSocket's path
	Page     string // the job's page
	CSV      string // its data as CSV
	ChartURL string // its chart's options, as JSON
}

// JobOption is one choice of a select or a checkbox.
type JobOption struct {
	Value, Label, Doc string
	Checked           bool
}

// SweepView is the sweep page: the form, and a job's progress or chart.
type SweepView struct {
	Form       SweepForm
	Techniques []string
	Params     []SweepParam // every parameter that can be swept
	Metrics    []JobOption  // every metric, value = name
	Scripts    []string     // URLs of the chart library

	Job   *JobView        // nil before a sweep starts
	Label string          // the base settings' label
	Chart templ.Component // the chart of the points finished; nil when none
}

// SweepForm is what the sweep form holds.
type SweepForm struct {
	Base      string // a variant ref: preset:NAME, q:QUERY, session:ID; empty for the defaults
	Technique string
	X, Y      SweepAxis // Y.Name empty for a one-parameter sweep
	Metric    string
}

// SweepAxis is one swept parameter as the form shows it: min and max as
// the parameter's text (stored unit, or names).
type SweepAxis struct {
	Name, Min, Max string
	Steps          int
}

// SweepParam is a parameter the form offers, with the range it starts with;
// Unit is the unit a plain number is in (its display unit).
type SweepParam struct {
	Name, Group, Unit, Doc string
	Min, Max               string // the parameter's whole range, as text
	Steps                  int
	// Inert is why the parameter has no effect with the base settings
	// (engine Settings.Inert), "" when it acts.
	Inert string
}

// TuneView is the tuner page: the form, and a job's progress or results.
type TuneView struct {
	Form       TuneForm
	Techniques []TuneTechnique // what the tuner can search, the base's primary technique first, each with its floor on the base's link
	Motions    []JobOption     // value = name; checked when in the mix
	Metrics    []TuneMetric
	// PopulationMetrics are what the constraints may bound when the
	// tuning runs over a population; Populations the population presets
	// (checked: the form's).
	PopulationMetrics []TuneMetric
	Populations       []JobOption
	Scripts           []string

	Job    *JobView
	Result *TuneResultView // nil until the tuning has ended with candidates
}

// TuneForm is what the tuner form holds.
type TuneForm struct {
	Base, Technique string
	Weights         [4]string // errP95, addedLatency, snaps, underrun
	Constraints     []TuneConstraint
	Budget          int
	Seed            string
	Seeds           int // run seeds that confirm the search's best
	// Population is the population preset every candidate runs over, ""
	// for the base's one link; Entities, Rounds and Round its sizes ("" or
	// Round "" for the preset's).
	Population              string
	Entities, Rounds, Round string
}

// TuneConstraint is one bound in the metric's display unit.
type TuneConstraint struct {
	Metric, Max string
}

// TuneTechnique is a technique the tuner may search, and what the base's
// network allows its added latency ("" when it sets no floor), shown under
// the constraints while it is chosen.
type TuneTechnique struct {
	Name, Floor string
}

// TuneMetric is a metric the constraints may bound, with its display unit
// and the scale from SI (shown = value × Scale).
type TuneMetric struct {
	Name, Display, Scale string
}

// TuneResultView is a tuning's outcome as the page shows it.
type TuneResultView struct {
	Label      string // the base settings' label
	Seed       string
	Candidates int

	// Recommended: a candidate meets the constraints and costs less than
	// the base; only then are Apply and the exports offered. Feasible:
	// some candidate meets the constraints (else Closest says how near
	// they came).
	Recommended, Feasible bool
	BestCost, BaseCost    string
	BaseBreaks            string        // what the base breaks, in units; "" when it meets every constraint: said first when it does
	Closest               []TuneClosest // nothing feasible: the candidates that break the constraints least

	// Seeds names the run seeds the verdict reads ("run seeds 2–6"); Gain
	// how the recommendation fared against the base over them; NoGain,
	// nothing recommended over a base that meets the constraints, the best
	// of the search against it and why it is not recommended.
	Seeds, Gain, NoGain string

	Changes    []TuneRow // settings changed by the recommendation: name, base, recommended
	Metrics    []TuneRow // every metric and the cost: name, base, recommended ("" without a recommendation)
	Population int       // entities of the population the figures are over; 0 for one link
	Chart      templ.Component
	ApplyURL   string // the lab page with the recommended settings
	Exports    []JobOption
}

// TuneClosest is a candidate that breaks the constraints: what it breaks
// (in units), its cost and the settings it changes.
type TuneClosest struct {
	Breaks, Cost, Settings string
}

// TuneRow is one row of a comparison table.
type TuneRow struct {
	Name, Base, Best string
}

// PopulationView is the population page: the form, and a run's progress
// or results.
type PopulationView struct {
	Form        PopulationForm
	Techniques  []JobOption // checked when run
	Populations []JobOption // value = name, label = title; checked when chosen
	Scripts     []string

	Job    *JobView
	Result *PopulationResultView // nil until the run has finished
}

// PopulationForm is what the population form holds; empty numbers keep
// the population preset's.
type PopulationForm struct {
	Base, Population              string
	Techniques                    []string
	Entities, Rounds, Round, Seed string
}

// PopulationResultView is a finished population run as its page shows it.
type PopulationResultView struct {
	Label      string // the base settings' label
	Population string // the population's title
	Summary    string // entities, rounds, seed
	Techniques []string
	Rows       []PopulationRow // one per population figure
	Charts     []templ.Component
	Worst      []PopulationWorst // one per technique
	Exports    []JobOption       // value = the export's URL of the settings run, label = its format
}

// PopulationRow is one population figure, a value per technique in its
// display unit.
type PopulationRow struct {
	Name, Unit, Doc string
	Values          []string
}

// PopulationWorst is a technique's worst entities.
type PopulationWorst struct {
	Technique string
	Rows      []PopulationEntityRow
}

// PopulationEntityRow is one entity, in display units, with the lab page
// that replays it (URL).
type PopulationEntityRow struct {
	Entity                                                string
	HighVariance                                          bool
	UnderrunRounds, ErrP95, Latency, Jitter, Loss, Motion string
	URL                                                   string
}
