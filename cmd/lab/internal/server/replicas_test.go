package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/jobs"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/pgtest"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/studies"
	"interplab/presets"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// replicaEnv is a lab serving the PostgreSQL database at url, as one of
// a team's replicas: its own store, live-sync bus and job queue on it.
func replicaEnv(t testing.TB, url string) *sessionsEnv {
	t.Helper()
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	e := &sessionsEnv{now: storeT0, step: time.Second}
	st, err := store.OpenPostgres(context.Background(), url, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	if err := jobs.MigrateQueue(context.Background(), st.Pool()); err != nil {
		t.Fatal(err)
	}
	bus, err := live.NewPGBus(st.Pool())
	if err != nil {
		t.Fatal(err)
	}
	q, err := jobs.NewQueue(st.Pool(), st, studies.DecodeJob)
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	e.server, err = New(Deps{Presets: list, Assets: testAssets(t, false), Store: st, Now: e.clock, Bus: bus, Queue: q})
	if err != nil {
		t.Fatal(err)
	}
	e.srv = serve(t, e.server)
	t.Cleanup(func() {
		e.server.Close()
		e.srv.Close()
		q.Close()
		bus.Close()
		st.Close()
	})
	return e
}

// Two labs on one PostgreSQL database: a session saved on A is read on
// B; a set on A reaches a viewer on B (the latency of 1,000 sets is
// logged: go test -run CrossReplica -v); a save on B of the revision A
// has moved on from is a 409 with A's revision.
func TestCrossReplica(t *testing.T) {
	url := pgtest.New(t)
	a, b := replicaEnv(t, url), replicaEnv(t, url)

	r1 := a.create(t, "harbor", map[string]any{"latency": 0.08})
	var onB sessionRevisionJSON
	b.must(t, http.StatusOK, "GET", "/api/sessions/"+r1.ID, nil, &onB)
	if onB.Rev != 1 || onB.Name != "harbor" || onB.Settings.Latency != 0.08 {
		t.Fatalf("B reads %+v, want A's revision 1", onB)
	}

	viewer, _ := b.dial(t, r1.ID)
	p50, p99, worst := setLatency(t, a, viewer, r1.ID)
	// The baseline, in the same run: one lab on SQLite, its live state
	// in memory, editors and viewer on it.
	one := newSessionsEnv(t, t.TempDir())
	s1 := one.create(t, "harbor", nil)
	oneViewer, _ := one.dial(t, s1.ID)
	b50, b99, _ := setLatency(t, one, oneViewer, s1.ID)
	t.Logf("a set on A reaches a viewer on B: p50 %v, p99 %v, max %v over 1,000 sets; on one SQLite lab p50 %v, p99 %v (%.1fx, %.1fx)",
		p50, p99, worst, b50, b99, float64(p50)/float64(b50), float64(p99)/float64(b99))
	fmt.Fprintf(os.Stderr, "cross-replica set latency: p50=%v p99=%v; one lab: p50=%v p99=%v (1000 sets each)\n", p50, p99, b50, b99)

	// A saves (revision 2); B, still on revision 1, is refused.
	var r2 sessionRevisionJSON
	a.must(t, http.StatusOK, "PUT", "/api/sessions/"+r1.ID, map[string]any{"rev": 1, "name": "harbor", "notes": "from A"}, &r2)
	if r2.Rev != 2 {
		t.Fatalf("A's save made revision %d, want 2", r2.Rev)
	}
	status, data := b.do(t, "PUT", "/api/sessions/"+r1.ID, map[string]any{"rev": 1, "name": "harbor", "notes": "from B"})
	if status != http.StatusConflict {
		t.Fatalf("B's save of revision 1 = %d %s, want 409", status, data)
	}
	var conflict struct{ Current sessionRevisionJSON }
	if err := json.Unmarshal(data, &conflict); err != nil || conflict.Current.Rev != 2 || conflict.Current.Notes != "from A" {
		t.Errorf("the 409 carries %+v (%v), want A's revision 2", conflict.Current, err)
	}
	// The viewer on B saw A's save.
	deadline := time.Now().Add(5 * time.Second)
	for {
		m := readWS(t, viewer)
		if m.Type == "config" && m.Rev == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the viewer on B never got revision 2")
		}
	}
}

// setLatency times 1,000 sets made by ten editors on lab a until viewer
// sees each: p50, p99 and the slowest. A hundred sets per editor stays
// within each one's budget (SetBurst), so the sets are timed, not
// throttled.
func setLatency(t *testing.T, a *sessionsEnv, viewer *websocket.Conn, id string) (p50, p99, worst time.Duration) {
	t.Helper()
	const sets, editors = 1000, 10
	var eds []*websocket.Conn
	for range editors {
		c, _ := a.dial(t, id)
		eds = append(eds, c)
	}
	lat := make([]time.Duration, 0, sets)
	for i := range sets {
		ed := eds[i%editors]
		seed := 1000 + i
		start := time.Now()
		sendWS(t, ed, `{"type":"set","name":"seed","value":`+strconv.Itoa(seed)+`}`)
		for {
			m := readWS(t, viewer)
			if m.Type == "config" && m.Config.Settings.Seed == seed {
				break
			}
		}
		lat = append(lat, time.Since(start))
		// The editor's acknowledgement: the config of its change, after
		// any older change it had not read (another editor's).
		for {
			m := readWS(t, ed)
			if m.Type == "config" && m.Config.Settings.Seed == seed {
				break
			}
		}
	}
	for _, c := range eds {
		c.Close()
	}
	slices.Sort(lat)
	return lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
}
