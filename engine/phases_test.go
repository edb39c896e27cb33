package engine

import (
	"testing"

	"interplab/engine/netsim"
)

func TestPhases(t *testing.T) {
	s := Defaults()
	s.Entities, s.Duration, s.Techniques = 3, 30, []string{TechSnap, TechBuffer}
	s.Scenario = "outage-2s"
	res, err := RunPhases(s)
	if err != nil {
		t.Fatal(err)
	}
	if sc := res.Scenario; sc == nil || sc.Start != 20 || sc.End != 22 || sc.Title != "2 s outage" {
		t.Fatalf("RunPhases().Scenario = %+v, want the 2 s outage from 20 to 22 s", sc)
	}
	for _, tr := range res.Techniques {
		p := tr.Phases
		if p == nil {
			t.Fatalf("%s: no phases", tr.Name)
		}
		if got := p.Before.Frames + p.During.Frames + p.After.Frames; got != tr.Metrics.Frames {
			t.Errorf("%s: phases hold %d frames, the run %d", tr.Name, got, tr.Metrics.Frames)
		}
		if p.During.ErrRMS < 2*p.Before.ErrRMS {
			t.Errorf("%s: error during the outage %g, before %g: want it to show", tr.Name, p.During.ErrRMS, p.Before.ErrRMS)
		}
		if !p.Recovered || p.Recovery > 2 {
			t.Errorf("%s: recovery %g s (recovered %v), want within 2 s", tr.Name, p.Recovery, p.Recovered)
		}
	}
	// Run gives the same phases, without the recovery.
	plain, err := Run(s)
	if err != nil {
		t.Fatal(err)
	}
	for k, tr := range plain.Techniques {
		want := *res.Techniques[k].Phases
		want.Recovery, want.Recovered = 0, false
		if *tr.Phases != want {
			t.Errorf("%s: Run phases %+v, RunPhases %+v", tr.Name, *tr.Phases, want)
		}
	}
	// No scenario, no phases.
	s.Scenario = netsim.ScenarioNone
	if res, err := RunPhases(s); err != nil || res.Scenario != nil || res.Techniques[0].Phases != nil {
		t.Errorf("RunPhases without a scenario = %+v, %v", res.Scenario, err)
	}
}
