package studies

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/pgtest"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/engine/study"
	"interplab/presets"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// unitStudy is a study of each kind, small (a fraction of a second of
// CPU) and cut into several units.
type unitStudy struct {
	kind  string
	spec  any
	total int
	work  jobs.Work
}

func unitStudies(t *testing.T) []unitStudy {
	t.Helper()
	before, err := presets.Get("harbor-before")
	if err != nil {
		t.Fatal(err)
	}
	pp, err := presets.GetPopulation(presets.DefaultPopulation)
	if err != nil {
		t.Fatal(err)
	}
	base := before.Settings
	base.Techniques = []string{engine.TechBuffer, engine.TechSnap}
	pj := &populationJob{Label: "harbor-before", Spec: study.PopulationSpec{Base: base, Population: pp.Population.With(40, 2, 10)}}

	small := engine.Defaults()
	small.Entities, small.Duration = 2, 3
	sj := &sweepJob{Label: "defaults", Spec: study.SweepSpec{Base: small, Technique: engine.TechBuffer,
		X: study.Axis{Name: "delay", Min: 0.02, Max: 0.2, Steps: 5}, Y: &study.Axis{Name: "adaptive", Min: 0, Max: 1, Steps: 2}}}
	tj := &tuneJob{Label: "defaults", Spec: study.TuneSpec{Base: small, Technique: engine.TechBuffer, Motions: []string{"strafe", "turn"},
		Weights: study.DefaultTuneWeights(), Constraints: []study.Constraint{{Metric: "addedLatency", Max: 0.15}}, Budget: 24, Seed: 5}}
	return []unitStudy{
		{"population", pj, pj.Spec.Population.Entities, pj.work()},
		{"sweep", sj, sj.Spec.Points(), sj.work()},
		{"tune", tj, tj.Spec.Budget, tj.work()},
	}
}

// unitLog records which worker started which unit of which study.
type unitLog struct {
	mu      sync.Mutex
	started map[string][]string // kind and unit → workers
}

// loggedUnits are a study's units that record in log each unit a worker
// starts; hang, when it says so, keeps the unit running until its worker
// is stopped, as a unit is when its worker dies.
type loggedUnits struct {
	jobs.Units
	kind, worker string
	log          *unitLog
	hang         func() bool
}

func (u loggedUnits) Run(ctx context.Context, unit json.RawMessage) (any, error) {
	u.log.mu.Lock()
	key := u.kind + " " + string(unit)
	u.log.started[key] = append(u.log.started[key], u.worker)
	u.log.mu.Unlock()
	if u.hang != nil && u.hang() {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return u.Units.Run(ctx, unit)
}

// The promise: a study run in units on the queue gives the result
// of the same study run in the lab's own process (SQLite's lab), byte for
// byte, on one worker, on three, and when a worker is killed mid-unit: the
// killed unit runs again on another worker, and no other unit runs twice.
func TestUnitsGiveTheResultOfOneProcess(t *testing.T) {
	studies := unitStudies(t)
	old := unitWork
	unitWork = 1e3 // several units for studies this small
	t.Cleanup(func() { unitWork = old })

	// In the lab's own process, archived in SQLite.
	st, err := store.Open(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := jobs.NewArchivedRunner(jobs.DefaultSlots, st, DecodeJob)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	want := map[string][]byte{}
	for _, s := range studies {
		j, err := r.Start(s.kind, "", s.total, s.spec, s.work)
		if err != nil {
			t.Fatal(err)
		}
		<-j.Ended()
		rec, err := st.LoadJob(j.ID())
		if err != nil || rec.State != jobs.Done {
			t.Fatalf("%s in one process: %v, %+v", s.kind, err, rec)
		}
		want[s.kind] = rec.Result
	}

	for _, setup := range []struct {
		name    string
		workers int
		kill    bool
	}{{"one worker", 1, false}, {"three workers", 3, false}, {"a worker killed mid-unit", 2, true}} {
		t.Run(setup.name, func(t *testing.T) {
			url := pgtest.New(t)
			lab, err := store.OpenPostgres(context.Background(), url, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { lab.Close() })
			if err := jobs.MigrateQueue(context.Background(), lab.Pool()); err != nil {
				t.Fatal(err)
			}
			q, err := jobs.NewQueue(lab.Pool(), lab, DecodeJob)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(q.Close)
			runner := jobs.NewQueuedRunner(q)
			t.Cleanup(runner.Close)

			log := &unitLog{started: map[string][]string{}}
			hung := make(chan struct{})
			var cuts []*pgtest.Cut
			for w := range setup.workers {
				name := fmt.Sprint("worker ", w)
				var hang func() bool
				if setup.kill && w == 0 {
					// Worker 0 records its first unit, and dies during its
					// second.
					runs := 0
					hang = func() bool {
						if runs++; runs == 2 {
							close(hung)
							return true
						}
						return false
					}
				}
				pool, cut := pgtest.CuttablePool(t, url)
				cuts = append(cuts, cut)
				wk, err := jobs.NewWorker(pool, 1, func(kind string, spec []byte) (jobs.Units, error) {
					sp, _, err := DecodeJob(kind, spec, nil)
					if err != nil {
						return nil, err
					}
					u, err := UnitsOf(kind, sp)
					return loggedUnits{Units: u, kind: kind, worker: name, log: log, hang: hang}, err
				}, slog.New(slog.DiscardHandler))
				if err != nil {
					t.Fatal(err)
				}
				wk.ReapEvery, wk.Grace = 200*time.Millisecond, time.Second
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); wk.Run(ctx) }()
				t.Cleanup(func() {
					cancel()
					if hang == nil { // a dead worker's end is nobody's business
						<-done
					}
				})
			}

			var started []*jobs.Job
			for _, s := range studies {
				j, err := runner.Start(s.kind, "", s.total, s.spec, nil)
				if err != nil {
					t.Fatal(err)
				}
				started = append(started, j)
			}
			if setup.kill {
				select {
				case <-hung:
				case <-time.After(60 * time.Second):
					t.Fatal("worker 0 did not reach its second unit in 60 s")
				}
				cuts[0].Now()
			}
			for i, j := range started {
				select {
				case <-j.Ended():
				case <-time.After(2 * time.Minute):
					t.Fatalf("%s did not end in 2 minutes: %+v", studies[i].kind, j.Status())
				}
				var result []byte
				var state string
				if err := lab.Pool().QueryRow(context.Background(), `SELECT state, result FROM jobs WHERE id = $1`, j.ID()).Scan(&state, &result); err != nil {
					t.Fatal(err)
				}
				if state != jobs.Done || !bytes.Equal(result, want[studies[i].kind]) {
					t.Errorf("%s ended %s, its result differs from the lab's own process's: %s", studies[i].kind, state, firstDiff(result, want[studies[i].kind]))
				}
				if st := j.Since(0); st.Done != studies[i].total && studies[i].kind != "tune" || len(st.Items) != st.Done {
					t.Errorf("%s: %d done and %d items, want %d", studies[i].kind, st.Done, len(st.Items), studies[i].total)
				}
			}

			log.mu.Lock()
			defer log.mu.Unlock()
			units, twice, who := len(log.started), 0, map[string]bool{}
			for key, ws := range log.started {
				for _, w := range ws {
					who[w] = true
				}
				switch {
				case len(ws) == 1:
				case setup.kill && len(ws) == 2 && ws[0] == "worker 0" && ws[1] != "worker 0":
					twice++
				default:
					t.Errorf("unit %.60s started on %v", key, ws)
				}
			}
			if setup.kill && twice != 1 {
				t.Errorf("%d units ran again after worker 0 died, want the one it ran", twice)
			}
			if units < 3*3 || len(who) < min(setup.workers, 2) {
				t.Errorf("%d units on workers %v: want several units for each study, shared", units, slices.Sorted(maps.Keys(who)))
			}
			t.Logf("%d units on %d workers", units, len(who))
		})
	}
}

// firstDiff shows where a and b first differ.
func firstDiff(a, b []byte) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return fmt.Sprintf("at byte %d of %d and %d: %q vs %q", n, len(a), len(b), a[n:min(len(a), n+60)], b[n:min(len(b), n+60)])
}
