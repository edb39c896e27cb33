package study

import (
	"context"
	"testing"

	"interplab/engine"
)

// TestPopulationIdleHoldsAreNotUnderrunRounds: a Mirror population whose
// entities stop and go on clean links counts no underrun round for the
// still spells, where Mirror (onlySyncOnChange) sends nothing: they are idle
// holds, reported apart, as the same population without onlySyncOnChange
// has none.
func TestPopulationIdleHoldsAreNotUnderrunRounds(t *testing.T) {
	s := engine.Defaults()
	s.Techniques = []string{engine.TechMirror}
	s.TickRate, s.SendRate, s.MirrorSettings.SendRate = 30, 30, 30
	clean := LinkSpread{Jitter: Spread{Min: 0.00005, Max: 0.0002}, JitterDist: "lognormal",
		LossModel: "random", BurstLength: Spread{Min: 1, Max: 1}}
	p := Population{Latency: Spread{Min: 0.015, Max: 0.06}, Stable: clean, HighVariance: clean,
		Motion: "stopgo", Entities: 6, Rounds: 3, Round: 10, Seed: 7}
	run := func(onlySyncOnChange bool) PopulationMetrics {
		spec := PopulationSpec{Base: s, Population: p}
		spec.Base.MirrorSettings.OnlySyncOnChange = onlySyncOnChange
		res, err := RunPopulation(context.Background(), spec, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Techniques[0].Metrics
	}
	on, off := run(true), run(false)
	if on.UnderrunRounds != off.UnderrunRounds || on.UnderrunRounds != 0 {
		t.Errorf("underrunRounds = %.3f with onlySyncOnChange, %.3f without, want 0 and 0 on clean links", on.UnderrunRounds, off.UnderrunRounds)
	}
	if on.Underrun != 0 || on.FrozenRounds > off.FrozenRounds {
		t.Errorf("underrun = %.4f, frozenRounds = %.3f (%.3f without onlySyncOnChange), want 0 and no more", on.Underrun, on.FrozenRounds, off.FrozenRounds)
	}
	if on.Idle < 0.2 || off.Idle != 0 {
		t.Errorf("idle = %.3f with onlySyncOnChange, %.3f without, want ≥ 0.2 and 0", on.Idle, off.Idle)
	}
}
