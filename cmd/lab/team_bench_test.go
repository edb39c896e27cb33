package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"interplab/cmd/lab/internal/pgtest"
	"interplab/engine/study"
	"interplab/presets"
)

// BenchmarkTeamScaling is the Harbor study (lab population -preset
// harbor-before: 1,000 entities × 20 rounds of 3 minutes, the buffer) on a
// team's queue, with one worker and with two, each worker pinned to a core
// of its own (taskset -c N, GOMAXPROCS=1), against the same study in one
// process on one core. It reports the wall times, their ratio (the goal:
// two workers in at most 0.55 of one's time), the units, their mean run
// time, the queue's cost per unit (one worker's wall time less the time
// its units ran, over the units) and the merge's (decoding every chunk and
// MergePopulation). HARBOR_ENTITIES=N runs a slice of the population.
//
//	go test ./cmd/lab -run '^$' -bench TeamScaling -benchtime 1x -v
func BenchmarkTeamScaling(b *testing.B) {
	if _, err := exec.LookPath("taskset"); err != nil {
		b.Skip("taskset is not on this machine")
	}
	entities := 1000
	if e := os.Getenv("HARBOR_ENTITIES"); e != "" {
		var err error
		if entities, err = strconv.Atoi(e); err != nil {
			b.Fatalf("HARBOR_ENTITIES=%q: %v", e, err)
		}
	}
	bin := labBinary(b)
	url := pgtest.New(b)
	lab := startTeamProc(b, bin, true, "-db", url)
	n := strconv.Itoa(entities)
	body := `{"base":"preset:harbor-before","techniques":["buffer"],"entities":` + n + `}`

	for b.Loop() {
		// One process, one core.
		start := time.Now()
		cmd := exec.Command("taskset", "-c", "0", bin, "population", "-preset", "harbor-before", "-entities", n, "-json")
		cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("lab population: %v\n%s", err, out)
		}
		process := time.Since(start).Seconds()

		var wall [3]float64
		var units int
		var unitSum, merge float64
		for _, workers := range []int{1, 2} {
			var procs []*teamProc
			for core := range workers {
				procs = append(procs, startPinnedWorker(b, bin, url, core))
			}
			start := time.Now()
			id := postStudy(b, lab.url, body)
			waitDone(b, lab.url, id)
			wall[workers] = time.Since(start).Seconds()
			if workers == 1 {
				units, unitSum = 0, 0
				for line := range strings.Lines(procs[0].logText()) {
					if strings.Contains(line, `msg="unit done"`) && strings.Contains(line, " job="+id+" ") {
						_, rest, _ := strings.Cut(line, " seconds=")
						s, _ := strconv.ParseFloat(strings.Fields(rest)[0], 64)
						units++
						unitSum += s
					}
				}
				merge = timeMerge(b, url, id, entities)
			}
			for _, p := range procs {
				p.kill()
			}
		}
		b.ReportMetric(process, "s/process")
		b.ReportMetric(wall[1], "s/1-worker")
		b.ReportMetric(wall[2], "s/2-workers")
		b.ReportMetric(wall[2]/wall[1], "ratio")
		b.ReportMetric(wall[1]/process, "1-worker/process")
		b.ReportMetric(float64(units), "units")
		b.ReportMetric(unitSum/float64(units), "s/unit")
		b.ReportMetric((wall[1]-unitSum)/float64(units)*1000, "ms-queue/unit")
		b.ReportMetric(merge*1000, "ms-merge")
	}
}

// startPinnedWorker starts lab worker on core alone (taskset, GOMAXPROCS=1).
func startPinnedWorker(b *testing.B, bin, url string, core int) *teamProc {
	b.Helper()
	p := &teamProc{}
	var err error
	if p.log, err = os.CreateTemp(b.TempDir(), "worker-*.log"); err != nil {
		b.Fatal(err)
	}
	p.cmd = exec.Command("taskset", "-c", strconv.Itoa(core), bin, "worker", "-db", url)
	p.cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.kill)
	return p
}

// postStudy starts a population run on the lab at url and returns its id.
func postStudy(b *testing.B, url, body string) string {
	b.Helper()
	resp, err := http.Post(url+"/api/populations", "application/json", strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var job struct{ ID string }
	if err := json.NewDecoder(resp.Body).Decode(&job); err != nil || resp.StatusCode != http.StatusAccepted {
		msg, _ := io.ReadAll(resp.Body)
		b.Fatalf("start the population run: %d, %v %s", resp.StatusCode, err, msg)
	}
	return job.ID
}

// waitDone waits until study id is done.
func waitDone(b *testing.B, url, id string) {
	b.Helper()
	for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(url + "/api/jobs/" + id)
		if err != nil {
			b.Fatal(err)
		}
		var st struct{ State, Error string }
		json.NewDecoder(resp.Body).Decode(&st)
		resp.Body.Close()
		switch st.State {
		case "done":
			return
		case "running":
		default:
			b.Fatalf("the run ended %s: %s", st.State, st.Error)
		}
	}
	b.Fatal("the run is not done in 10 minutes")
}

// timeMerge times the merge of study id's chunks, as the worker that
// records its last unit does it: decoding every chunk, MergePopulation.
func timeMerge(b *testing.B, url, id string, entities int) float64 {
	b.Helper()
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), `SELECT result FROM job_units WHERE job = $1 ORDER BY n`, id)
	if err != nil {
		b.Fatal(err)
	}
	chunks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		b.Fatal(err)
	}
	pp, _ := presets.GetPopulation(presets.DefaultPopulation)
	base, _ := presets.Get("harbor-before")
	base.Settings.Techniques = []string{"buffer"}
	spec := study.PopulationSpec{Base: base.Settings, Population: pp.Population.With(entities, 0, 0)}
	start := time.Now()
	var ents []study.PopulationEntity
	for _, c := range chunks {
		var part []study.PopulationEntity
		if err := json.Unmarshal([]byte(c), &part); err != nil {
			b.Fatal(err)
		}
		ents = append(ents, part...)
	}
	if _, err := study.MergePopulation(spec, ents); err != nil {
		b.Fatal(err)
	}
	return time.Since(start).Seconds()
}
