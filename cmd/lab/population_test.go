package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"interplab/engine/study"
	"interplab/presets"
)

// populationTestArgs keep the run small: 6 entities × 2 rounds of 5 s.
var populationTestArgs = []string{"-preset", "harbor-before", "-entities", "6", "-rounds", "2", "-round", "5"}

func TestPopulationJSON(t *testing.T) {
	var out, errb bytes.Buffer
	args := append(populationTestArgs[:len(populationTestArgs):len(populationTestArgs)], "-techniques", "buffer,hermite", "-json")
	if code := runPopulation(args, &out, &errb); code != 0 {
		t.Fatalf("lab population exit %d: %s", code, errb.String())
	}
	// The shape scripts read: techniques[].name and .metrics.underrunRounds.
	var shape struct {
		Techniques []struct {
			Name    string             `json:"name"`
			Metrics map[string]float64 `json:"metrics"`
			Worst   []struct {
				Entity int    `json:"entity"`
				URL    string `json:"url"`
			} `json:"worst"`
		} `json:"techniques"`
	}
	if err := json.Unmarshal(out.Bytes(), &shape); err != nil {
		t.Fatalf("lab population -json: %v\n%s", err, out.String())
	}
	if len(shape.Techniques) != 2 || shape.Techniques[0].Name != "buffer" || shape.Techniques[1].Name != "hermite" {
		t.Fatalf("techniques = %+v, want buffer and hermite", shape.Techniques)
	}

	before, err := presets.Get("harbor-before")
	if err != nil {
		t.Fatal(err)
	}
	pp, err := presets.GetPopulation(presets.DefaultPopulation)
	if err != nil {
		t.Fatal(err)
	}
	spec := study.PopulationSpec{Base: before.Settings, Population: pp.Population}
	spec.Base.Techniques = []string{"buffer", "hermite"}
	spec.Population.Entities, spec.Population.Rounds, spec.Population.Round = 6, 2, 5
	want, err := study.RunPopulation(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, tr := range shape.Techniques {
		u, ok := tr.Metrics["underrunRounds"]
		if !ok || u < 0 || u > 1 {
			t.Errorf("%s: metrics.underrunRounds = %v (present %v), want a share in [0, 1]", tr.Name, u, ok)
		}
		if u != want.Techniques[k].Metrics.UnderrunRounds {
			t.Errorf("%s: underrunRounds = %v, want the engine's %v", tr.Name, u, want.Techniques[k].Metrics.UnderrunRounds)
		}
		if len(tr.Worst) != 6 {
			t.Errorf("%s: %d worst entities, want 6", tr.Name, len(tr.Worst))
		}
		for _, w := range tr.Worst {
			if !strings.HasPrefix(w.URL, "/?preset=harbor-before&") || !strings.Contains(w.URL, "entities=1") {
				t.Errorf("%s: worst entity %d url %q, want the lab page on harbor-before with one entity", tr.Name, w.Entity, w.URL)
			}
		}
	}
}

func TestPopulationTableAndCSV(t *testing.T) {
	var out, errb bytes.Buffer
	csvPath := filepath.Join(t.TempDir(), "entities.csv")
	args := append(populationTestArgs[:len(populationTestArgs):len(populationTestArgs)], "-csv", csvPath)
	if code := runPopulation(args, &out, &errb); code != 0 {
		t.Fatalf("lab population exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"harbor-before over Harbor beta NA/EU", "6 entities × 2 rounds of 5 s", "underrunRounds", "errP95P99", "worst entities", "/?preset=harbor-before&"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lab population output lacks %q:\n%s", want, out.String())
		}
	}
	data, err := os.ReadFile(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "entity,technique,highVariance,latency") {
		t.Errorf("CSV has %d lines starting %q, want a header and 6 rows", len(lines), lines[0])
	}
}

func TestPopulationBadInput(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-entities", "1000000"}, "-entities: population.entities = \"1000000\" is not allowed: want a whole number in [1, 100000]"},
		{[]string{"-entities", "-3"}, "population.entities"},
		{[]string{"-rounds", "5000"}, "-rounds: population.rounds"},
		{[]string{"-population", "mars"}, "unknown population \"mars\""},
		{[]string{"-techniques", "teleport"}, "techniques = \"teleport\""},
		{[]string{"-set", "techniques=snap"}, "techniques is chosen by -techniques"},
		{[]string{"-set", "delay=7s"}, `delay = "7s" is not allowed: want [0, 0.5] s, that is [0, 500] ms`},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		if code := runPopulation(tt.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) {
			t.Errorf("lab population %v = exit %d, %q; want exit 2 naming %q", tt.args, code, errb.String(), tt.want)
		}
	}
}

// lab tune -population evaluates candidates over the population and reads
// its figures in -max.
func TestTunePopulationCLI(t *testing.T) {
	var out, errb bytes.Buffer
	args := []string{"-technique", "buffer", "-preset", "harbor-before", "-population", "harbor-beta",
		"-entities", "3", "-rounds", "2", "-round", "4", "-budget", "4",
		"-w", "errP95=1,addedLatency=0,snaps=0,underrun=0", "-max", "underrunRounds=5%,addedLatencyP90=150ms", "-json"}
	code := runTune(args, &out, &errb)
	var got struct {
		Result struct {
			Base struct {
				Population *struct {
					UnderrunRounds  *float64 `json:"underrunRounds"`
					AddedLatencyP90 *float64 `json:"addedLatencyP90"`
				} `json:"population"`
			} `json:"base"`
			Feasible bool `json:"feasible"`
		} `json:"result"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("lab tune -population exit %d: %v, %s", code, err, errb.String())
	}
	if want := map[bool]int{true: 0, false: 3}[got.Result.Feasible]; code != want {
		t.Errorf("lab tune -population -json: exit %d with feasible %v, want %d", code, got.Result.Feasible, want)
	}
	if p := got.Result.Base.Population; p == nil || p.UnderrunRounds == nil || p.AddedLatencyP90 == nil {
		t.Errorf("lab tune -population -json: base has no population figures:\n%s", out.String())
	}
	out.Reset()
	if runTune(args[:len(args)-1], &out, &errb); !strings.Contains(out.String(), "addedLatencyP90 ≤ 150 ms") {
		t.Errorf("lab tune -population:\n%s", out.String())
	}
}
