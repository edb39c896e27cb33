package study

import (
	"context"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/motion"
)

// testPopulation is a small, demanding population: every jitter
// distribution and loss model, a third high-variance, short rounds.

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

func testPopulation() Population {
	return Population{
		Latency:    Spread{Min: 0.01, Max: 0.08},
		ClockDrift: Spread{Min: -0.0001, Max: 0.0001},
		Stable: LinkSpread{Jitter: Spread{Min: 0.0005, Max: 0.005, Log: true}, JitterDist: "lognormal",
			Loss: Spread{Min: 0.0001, Max: 0.01, Log: true}, LossModel: "random", BurstLength: Spread{Min: 1, Max: 1}},
		HighVariance: LinkSpread{Jitter: Spread{Min: 0.005, Max: 0.03}, JitterDist: "pareto",
			Loss: Spread{Min: 0.005, Max: 0.05}, LossModel: "burst", BurstLength: Spread{Min: 1.5, Max: 4}},
		HighVarianceShare: 0.35,
		Motion:            "mix",
		Entities:          7, Rounds: 3, Round: 4, Seed: 42,
	}
}

func testPopulationSpec() PopulationSpec {
	s := engine.Defaults()
	s.Techniques = []string{engine.TechSnap, engine.TechBuffer}
	s.TickRate, s.SendRate, s.Delay = 20, 20, 0.05
	return PopulationSpec{Base: s, Population: testPopulation()}
}

func TestPopulationValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(p *Population)
		field  string
		allow  string
	}{
		{"negative latency", func(p *Population) { p.Latency.Min = -0.01 }, "population.latency.min", "[0, 1000] ms"},
		{"loss above 1", func(p *Population) { p.HighVariance.Loss.Max = 1.5 }, "population.highVariance.loss.max", "[0, 90] %"},
		{"zero entities", func(p *Population) { p.Entities = 0 }, "population.entities", "[1, 100000]"},
		{"a million entities", func(p *Population) { p.Entities = 1000000 }, "population.entities", "[1, 100000]"},
		{"too much work", func(p *Population) { p.Entities, p.Rounds, p.Round = 100000, 1000, 60 }, "population.entities", "entity-seconds"},
		{"max below min", func(p *Population) { p.Latency.Max = 0.005 }, "population.latency.max", "at least population.latency.min"},
		{"log from 0", func(p *Population) { p.Stable.Loss.Min = 0 }, "population.stable.loss.min", "above 0"},
		{"share", func(p *Population) { p.HighVarianceShare = 1.2 }, "population.highVarianceShare", "[0, 1]"},
		{"zero rounds", func(p *Population) { p.Rounds = 0 }, "population.rounds", "[1, 1000]"},
		{"short round", func(p *Population) { p.Round = 0.5 }, "population.round", "[1, 3600] s"},
		{"jitter dist", func(p *Population) { p.Stable.JitterDist = "cauchy" }, "population.stable.jitterDist", "one of"},
		{"motion", func(p *Population) { p.Motion = "dance" }, "population.motion", "one of"},
		{"drift", func(p *Population) { p.ClockDrift.Max = 0.5 }, "population.clockDrift.max", "[-10000, 10000] ppm"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := testPopulation()
			tt.change(&p)
			err := p.Validate()
			var fe *engine.FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate() = %v, want a *FieldError", err)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Allowed, tt.allow) {
				t.Errorf("Validate() = %v, want field %s allowing %q", err, tt.field, tt.allow)
			}
		})
	}
	p := testPopulation()
	if err := p.Validate(); err != nil {
		t.Errorf("Validate(testPopulation) = %v, want nil", err)
	}
}

// TestPopulationEntityDraws checks that an entity's draws depend only on
// the seed and its index, and stay in their spreads.
func TestPopulationEntityDraws(t *testing.T) {
	small, large := testPopulation(), testPopulation()
	large.Entities = 5000
	hv := 0
	for e := range large.Entities {
		l, script, seed := large.Entity(e)
		if e < small.Entities {
			l2, m2, s2 := small.Entity(e)
			if l != l2 || script != m2 || seed != s2 {
				t.Fatalf("entity %d differs between populations of %d and %d", e, small.Entities, large.Entities)
			}
		}
		c := large.Stable
		if l.HighVariance {
			hv++
			c = large.HighVariance
		}
		in := func(name string, v float64, r Spread) {
			if v < r.Min-1e-9 || v > r.Max+1e-9 {
				t.Fatalf("entity %d: %s = %v, want in [%v, %v]", e, name, v, r.Min, r.Max)
			}
		}
		in("latency", l.Latency, large.Latency)
		in("jitter", l.Jitter, c.Jitter)
		in("loss", l.Loss, c.Loss)
		in("burstLength", l.BurstLength, c.BurstLength)
		in("clockDrift", l.ClockDrift, large.ClockDrift)
		if want := motion.Scripts[e%len(motion.Scripts)]; script != want {
			t.Fatalf("entity %d: motion %s, want %s", e, script, want)
		}
		s := large.EntitySettings(engine.Defaults(), e)
		if err := s.Validate(); err != nil {
			t.Fatalf("entity %d: EntitySettings: %v", e, err)
		}
	}
	if share := float64(hv) / float64(large.Entities); math.Abs(share-large.HighVarianceShare) > 0.03 {
		t.Errorf("high-variance share = %.3f, want %.3f ± 0.03", share, large.HighVarianceShare)
	}
}

func TestSpreadLog(t *testing.T) {
	r := Spread{Min: 0.0001, Max: 0.01, Log: true}
	tests := []struct{ u, want float64 }{{0, 0.0001}, {0.5, 0.001}, {0.25, math.Sqrt(0.0001 * 0.001)}}
	for _, tt := range tests {
		if got := r.at(tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("at(%v) = %v, want %v", tt.u, got, tt.want)
		}
	}
}

// TestPopulationDeterminism pins a small population run to the bit, on one
// worker and on several, natively and under GOOS=js GOARCH=wasm.
func TestPopulationDeterminism(t *testing.T) {
	spec := testPopulationSpec()
	r1, err := RunPopulation(context.Background(), spec, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	r3, err := RunPopulation(context.Background(), spec, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, got3 := populationText(r1), populationText(r3)
	if got != got3 {
		t.Fatalf("1 worker and 3 workers differ:\n%s\n%s", got, got3)
	}
	golden := filepath.Join("testdata", "population.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update natively to create it)", err)
	}
	if got != string(want) {
		t.Errorf("population run differs from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}

// populationText writes every figure of r with every bit ('x').
func populationText(r *PopulationResult) string {
	var b strings.Builder
	x := func(v float64) string { return strconv.FormatFloat(v, 'x', -1, 64) }
	for _, tr := range r.Techniques {
		b.WriteString(tr.Name)
		for i, v := range tr.Metrics.Values(nil) {
			b.WriteString(" " + PopulationMetricFields[i].Name + "=" + x(v))
		}
		b.WriteString(" worst=")
		for _, e := range tr.Worst {
			b.WriteString(strconv.Itoa(e) + ",")
		}
		b.WriteString("\n")
	}
	for _, e := range r.Entities {
		l := e.Link
		b.WriteString(strconv.Itoa(e.Entity) + " " + e.Motion + " seed=" + strconv.Itoa(e.Seed) +
			" hv=" + strconv.FormatBool(l.HighVariance) + " latency=" + x(l.Latency) + " jitter=" + x(l.Jitter) +
			" loss=" + x(l.Loss) + " burst=" + x(l.BurstLength) + " drift=" + x(l.ClockDrift))
		for _, m := range e.Techniques {
			b.WriteString(" | " + m.Rounds + " errP95=" + x(m.ErrP95) + " errRMS=" + x(m.ErrRMS) +
				" lat=" + x(m.AddedLatency) + " underrun=" + x(m.Underrun))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// TestPopulationEntityReplays checks that an entity's settings, run alone
// as the main page and lab sim run them, give its population figures.
func TestPopulationEntityReplays(t *testing.T) {
	spec := testPopulationSpec()
	r, err := RunPopulation(context.Background(), spec, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &spec.Population
	for _, e := range r.Techniques[1].Worst[:3] {
		res, err := engine.Run(p.EntitySettings(spec.Base, e))
		if err != nil {
			t.Fatal(err)
		}
		for k, tr := range res.Techniques {
			em := r.Entities[e].Techniques[k]
			if got, want := tr.Metrics.UnderrunRounds, float64(em.UnderrunRounds)/float64(p.Rounds); got != want {
				t.Errorf("entity %d %s: Run underrunRounds = %v, want %v", e, tr.Name, got, want)
			}
			if tr.Metrics.ErrP95 != em.ErrP95 || tr.Metrics.ErrRMS != em.ErrRMS {
				t.Errorf("entity %d %s: Run errP95, errRMS = %v, %v, want %v, %v", e, tr.Name,
					tr.Metrics.ErrP95, tr.Metrics.ErrRMS, em.ErrP95, em.ErrRMS)
			}
		}
	}
}

func TestPopulationProgressAndCancel(t *testing.T) {
	spec := testPopulationSpec()
	calls, last := 0, 0
	if _, err := RunPopulation(context.Background(), spec, 2, func(_ PopulationEntity, done, total int) {
		calls++
		if done != last+1 || total != spec.Population.Entities {
			t.Errorf("progress(%d, %d) after %d", done, total, last)
		}
		last = done
	}); err != nil {
		t.Fatal(err)
	}
	if calls != spec.Population.Entities {
		t.Errorf("progress called %d times, want %d", calls, spec.Population.Entities)
	}

	ctx, cancel := context.WithCancel(context.Background())
	spec.Population.Entities, spec.Population.Round = 50, 600
	r, err := RunPopulation(ctx, spec, 2, func(PopulationEntity, int, int) { cancel() })
	if !errors.Is(err, context.Canceled) || r != nil {
		t.Errorf("cancelled RunPopulation = %v, %v; want nil, context.Canceled", r, err)
	}
}

func TestNearestRank(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct{ q, want float64 }{{0.5, 5}, {0.9, 9}, {0.99, 10}, {0, 1}, {1, 10}}
	for _, tt := range tests {
		if got := nearestRank(v, tt.q); got != tt.want {
			t.Errorf("nearestRank(1..10, %v) = %v, want %v", tt.q, got, tt.want)
		}
	}
}

// BenchmarkPopulation runs entities of the Harbor population's kind for
// one round of 3 minutes each, on one core and on all of them; the figure
// is entity-rounds per second.
func BenchmarkPopulation(b *testing.B) {
	spec := testPopulationSpec()
	spec.Base.Techniques = []string{engine.TechBuffer}
	spec.Population.Rounds, spec.Population.Round = 1, 180
	for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run("workers="+strconv.Itoa(workers), func(b *testing.B) {
			spec.Population.Entities = 2 * workers
			n := 0
			for b.Loop() {
				if _, err := RunPopulation(context.Background(), spec, workers, nil); err != nil {
					b.Fatal(err)
				}
				n += spec.Population.Entities * spec.Population.Rounds
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "entity-rounds/s")
		})
	}
}
