package presets

import (
	"embed"
	"fmt"
)

// The sample traces: small recordings, in the lab's trace CSV format, that
// a designer can replay and derive a network from before recording their
// own. They are made by the engine's own link and motion scripts
// (engine.SyntheticTrace) from the network of a preset; cmd/lab's tests
// check that the files are exactly what the engine makes and rewrite them
// with -update.

//go:embed traces/*.csv
var traceFiles embed.FS

// TraceSample is a built-in sample trace.
type TraceSample struct {
	Name   string // the trace's name; the file is traces/NAME.csv
	Title  string // human title
	Doc    string // one line: what it recorded
	Preset string // the preset whose network and scenario it was made with
	Data   []byte // the CSV file
}

// traceSamples lists the samples in display order.
var traceSamples = []TraceSample{
	{Name: "sample-lan", Preset: "lan", Title: "Sample: LAN",
		Doc: "10 s of two entities at 20 Hz over the lan preset's network: 1 ms latency, 1 ms normal jitter, no loss."},
	{Name: "sample-4g", Preset: "4g", Title: "Sample: 4G with burst loss",
		Doc: "15 s of two entities at 20 Hz over the 4g preset's network (30 ms latency, 15 ms lognormal jitter, 2% loss in bursts of 4): three loss bursts."},
}

// TraceSamples returns the built-in sample traces in display order.
func TraceSamples() ([]TraceSample, error) {
	out := make([]TraceSample, len(traceSamples))
	for i, s := range traceSamples {
		data, err := traceFiles.ReadFile("traces/" + s.Name + ".csv")
		if err != nil {
			return nil, fmt.Errorf("sample trace %s: %w", s.Name, err)
		}
		s.Data = data
		out[i] = s
	}
	return out, nil
}
