package compare

import (
	"context"
	"errors"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// Plan checks a comparison from what the store keeps of its traces:
// the work and the packets it would hold are refused before Exec loads a
// trace; Exec loads each trace once.
func TestPlanBoundsTraces(t *testing.T) {
	ps := testSettings(t)
	s := ps["lan"]
	s.Duration = 2
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	info := func(packets int) store.TraceInfo {
		return store.TraceInfo{Packets: packets, Entities: tr.Entities, Span: tr.Span()}
	}
	replay := func(name string, i store.TraceInfo) Variant {
		return Variant{Label: name, Settings: s, TraceName: name, TraceInfo: i}
	}
	loads := map[string]int{}
	load := func(name string) (*engine.Trace, error) {
		loads[name]++
		return tr, nil
	}
	half := MaxTracePackets/2 + 1
	long := s
	long.Duration = 60
	tests := []struct {
		name  string
		vs    []Variant
		field string
		msg   string
	}{
		{"two traces over the packets", []Variant{replay("a", info(half)), replay("b", info(half))}, "v", "2 traces of 200002 packets"},
		{"one trace over the work", []Variant{{Label: "a", Settings: long, TraceName: "a", TraceInfo: store.TraceInfo{Packets: 10, Entities: 10000, Span: 60}},
			{Label: "lan", Settings: s}},
			"entities", "entity-technique-frames"},
	}
	for _, tt := range tests {
		_, err := NewRunner(2).Plan(tt.vs)
		ce, ok := errors.AsType[*Error](err)
		if !ok || ce.Field != tt.field || !strings.Contains(ce.Error(), tt.msg) {
			t.Errorf("%s: Plan = %v, want a *Error on %s saying %q", tt.name, err, tt.field, tt.msg)
		}
	}
	// One trace replayed by every variant counts once.
	vs := []Variant{replay("a", info(len(tr.Packets))), replay("a", info(len(tr.Packets))), replay("b", info(len(tr.Packets)))}
	vs[1].Settings.Delay = 0.2
	r := NewRunner(2)
	c, err := r.Plan(vs)
	if err != nil {
		t.Fatal(err)
	}
	if len(loads) != 0 {
		t.Fatalf("Plan loaded %v", loads)
	}
	if err := r.Exec(context.Background(), c, load); err != nil {
		t.Fatal(err)
	}
	if loads["a"] != 1 || loads["b"] != 1 {
		t.Errorf("Exec loaded %v, want each trace once", loads)
	}
	want, err := engine.RunTraceSeries(tr, c.Variants[1].Settings, c.Step)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Results[1].Techniques[0].Metrics; got != want.Techniques[0].Metrics {
		t.Errorf("variant 2 = %+v, want RunTraceSeries's %+v", got, want.Techniques[0].Metrics)
	}
	// A trace that is not what Plan read is refused.
	c, _ = r.Plan([]Variant{replay("a", info(len(tr.Packets)+1)), {Label: "lan", Settings: s}})
	if err := r.Exec(context.Background(), c, load); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("Exec of a changed trace = %v, want a refusal", err)
	}
}
