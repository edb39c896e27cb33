package fitcmd

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/presets"
)

// writeCapture writes a generated capture of the lab's link under the
// settings set gives (one entity, 120 s) as a CSV file in dir.
func writeCapture(t *testing.T, dir, name string, set func(*engine.Settings)) string {
	t.Helper()
	s := engine.Defaults()
	s.Entities, s.Duration, s.Seed, s.Motion = 1, 120, 7, "strafe"
	set(&s)
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := traceio.WriteCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, name+".csv")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// example is the README's worked example: 120 s at 50 ms + 15 ms pareto
// jitter, 3% bursty loss (bursts of 4), a step to 110 ms at 60 s.
func example(s *engine.Settings) {
	s.Latency, s.Jitter, s.JitterDist = 0.05, 0.015, "pareto"
	s.Loss, s.LossModel, s.BurstLength = 0.03, "burst", 4
	s.Scenario, s.ScenarioText = "custom", "step at=60 latency=110ms"
}

func TestFitText(t *testing.T) {
	file := writeCapture(t, t.TempDir(), "playtest", example)
	var out, errb bytes.Buffer
	if code := Run([]string{file, "-techniques", "buffer,epic"}, &out, &errb); code != 0 {
		t.Fatalf("lab fit = %d: %s", code, errb.String())
	}
	for _, want := range []string{"jitter", "pareto", "burst", "step at=", "-set latency=", "underrun capture/model", "buffer"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	t.Logf("\n%s", out.String())
}

func TestFitScenarioAndJSON(t *testing.T) {
	file := writeCapture(t, t.TempDir(), "playtest", example)
	var out, errb bytes.Buffer
	if code := Run([]string{"-scenario", file}, &out, &errb); code != 0 {
		t.Fatalf("lab fit -scenario = %d: %s", code, errb.String())
	}
	if sc, err := netsim.ParseScenario(out.String()); err != nil || len(sc.Events) != 1 {
		t.Errorf("-scenario printed %q: %v", out.String(), err)
	}
	out.Reset()
	if code := Run([]string{"-json", "-compare=false", file}, &out, &errb); code != 0 {
		t.Fatalf("lab fit -json = %d: %s", code, errb.String())
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if l := rep.Traces[0].Link; l.JitterDist != "pareto" || math.Abs(l.Latency-0.05) > 0.002 {
		t.Errorf("-json link = %+v", l)
	}
}

func TestFitPopulationFile(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, lat := range []float64{0.03, 0.06, 0.09} {
		files = append(files, writeCapture(t, dir, "p"+string(rune('a'+i)), func(s *engine.Settings) {
			s.Latency, s.Jitter, s.Loss = lat, 0.005+0.005*float64(i), 0.01
		}))
	}
	pop := filepath.Join(dir, "our-players.json")
	var out, errb bytes.Buffer
	args := append([]string{"-compare=false", "-population", pop}, files...)
	if code := Run(args, &out, &errb); code != 0 {
		t.Fatalf("lab fit -population = %d: %s", code, errb.String())
	}
	pp, err := presets.ReadPopulationFile(pop)
	if err != nil {
		t.Fatal(err)
	}
	if pp.Name != "our-players" || pp.Population.Latency.Min > 0.03 || pp.Population.Latency.Max < 0.09 {
		t.Errorf("population %+v: want our-players spanning 30–90 ms", pp)
	}
}

func TestFitBadInput(t *testing.T) {
	dir := t.TempDir()
	short := writeCapture(t, dir, "short", func(s *engine.Settings) { s.Duration = 1 })
	var out, errb bytes.Buffer
	if code := Run([]string{short}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "sendRate") {
		t.Errorf("lab fit on 1 s = %d, %q: want 1 and the part that cannot be fitted", code, errb.String())
	}
	errb.Reset()
	if code := Run(nil, &out, &errb); code != 2 {
		t.Errorf("lab fit without a trace = %d, want 2", code)
	}
}

// TestFitEachEntity: -each-entity fits one link per entity of a capture
// of several players, and -population summarises them.
func TestFitEachEntity(t *testing.T) {
	dir := t.TempDir()
	// Three players, each on its own link: three one-entity captures
	// joined as entities 0, 1, 2 of one trace.
	var all engine.Trace
	all.Entities = 3
	for e, lat := range []float64{0.03, 0.06, 0.09} {
		s := engine.Defaults()
		s.Entities, s.Duration, s.Seed, s.Motion = 1, 60, 7+e, "strafe"
		s.Latency, s.Jitter, s.Loss = lat, 0.008, 0.01
		tr, err := engine.SyntheticTrace(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tr.Packets {
			p.Entity = e
			all.Packets = append(all.Packets, p)
		}
	}
	slices.SortStableFunc(all.Packets, func(a, b engine.TracePacket) int { return cmp.Compare(a.Sent, b.Sent) })
	var b bytes.Buffer
	if err := traceio.WriteCSV(&b, &all); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "lobby.csv")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := Run([]string{"-json", "-compare=false", "-each-entity", "-population", filepath.Join(dir, "lobby-players.json"), file}, &out, &errb); code != 0 {
		t.Fatalf("lab fit -each-entity = %d: %s", code, errb.String())
	}
	var rep Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Traces) != 3 {
		t.Fatalf("%d links, want 3", len(rep.Traces))
	}
	for e, want := range []float64{0.03, 0.06, 0.09} {
		if l := rep.Traces[e].Link; l.Entity != e || math.Abs(l.Latency-want) > 0.002 {
			t.Errorf("entity %d: latency %g, want %g", l.Entity, l.Latency, want)
		}
	}
	if rep.Population == nil || rep.Population.Latency.Min > 0.035 || rep.Population.Latency.Max < 0.085 {
		t.Errorf("population %+v: want latency spanning 30–90 ms", rep.Population)
	}
}
