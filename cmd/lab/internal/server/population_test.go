package server

import (
	"context"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"interplab/engine/study"
	"interplab/presets"
)

// populationTestBody is a small run: 5 entities × 2 rounds of 4 s.
const populationTestBody = `{"base":"preset:harbor-before","population":"harbor-beta","techniques":["buffer","hermite"],"entities":5,"rounds":2,"round":4}`

func populationTestSpec(t *testing.T) study.PopulationSpec {
	t.Helper()
	before, err := presets.Get("harbor-before")
	if err != nil {
		t.Fatal(err)
	}
	pp, err := presets.GetPopulation("harbor-beta")
	if err != nil {
		t.Fatal(err)
	}
	spec := study.PopulationSpec{Base: before.Settings, Population: pp.Population}
	spec.Base.Techniques = []string{"buffer", "hermite"}
	spec.Population.Entities, spec.Population.Rounds, spec.Population.Round = 5, 2, 4
	return spec
}

func TestPopulationJobMatchesEngineAndSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s, _ := testServer(t, testAssets(t, false), dir, nil)
	srv := serve(t, s)
	acc := jobsStart(t, srv, "/api/populations", populationTestBody)
	if acc.Total != 5 || acc.Page != "/population/"+acc.ID {
		t.Errorf("accepted %+v, want 5 entities and the run's page", acc)
	}
	msgs := jobsFollow(t, jobsDial(t, srv, acc))
	if end := msgs[len(msgs)-1]; end.State != "done" || end.Done != 5 {
		t.Fatalf("end = %+v, want done 5", end)
	}
	j := s.jobs.Get(acc.ID)
	res, _ := j.Result()
	want, err := study.RunPopulation(context.Background(), populationTestSpec(t), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := res.(*study.PopulationResult)
	for k := range want.Techniques {
		if got.Techniques[k].Metrics != want.Techniques[k].Metrics {
			t.Errorf("%s: job metrics %+v, want the engine's %+v", want.Techniques[k].Name, got.Techniques[k].Metrics, want.Techniques[k].Metrics)
		}
	}

	// The page shows the figures, three histograms and the worst entities.
	resp, body := get(t, srv.URL+acc.Page)
	page := string(body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s = %d", acc.Page, resp.StatusCode)
	}
	for _, want := range []string{`id="population-figures"`, `data-figure="underrunRounds"`, `id="population-underrunRounds"`,
		`id="population-errP95"`, `id="population-addedLatency"`, `class="open-entity" href="/?preset=harbor-before&amp;`, "hermite: worst entities",
		`class="export" href="/api/export?format=json&amp;preset=harbor-before`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}

	// The CSV has a row per entity and technique.
	resp, body = get(t, srv.URL+acc.Page+"/data.csv")
	rows, err := csv.NewReader(strings.NewReader(string(body))).ReadAll()
	if err != nil || resp.StatusCode != http.StatusOK || len(rows) != 1+5*2 {
		t.Errorf("GET data.csv = %d, %d rows, %v; want 200 and 11 rows", resp.StatusCode, len(rows), err)
	}

	// Another lab on the same data serves the same page from the store.
	s.Close()
	s2, _ := testServer(t, testAssets(t, false), dir, nil)
	srv2 := serve(t, s2)
	resp, body = get(t, srv2.URL+acc.Page)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `data-figure="underrunRounds"`) {
		t.Errorf("after a restart GET %s = %d, want the saved figures", acc.Page, resp.StatusCode)
	}
}

func TestPopulationBadRequests(t *testing.T) {
	_, srv := jobsTestServer(t)
	tests := []struct{ body, field, want string }{
		{`{"entities":1000000}`, "entities", "[1, 100000]"},
		{`{"entities":-1}`, "entities", "[1, 100000]"},
		{`{"population":"mars"}`, "population", "unknown population"},
		{`{"techniques":["teleport"]}`, "techniques", "teleport"},
		{`{"rounds":5000}`, "rounds", "[1, 1000]"},
		{`{"base":"preset:nope"}`, "base", "nope"},
		{`{"entities":100000,"rounds":100}`, "entities", "entity-"},
	}
	for _, tt := range tests {
		var e struct{ Error, Field string }
		code := jobsPost(t, srv, "/api/populations", tt.body, &e)
		if code != http.StatusBadRequest || e.Field != tt.field || !strings.Contains(e.Error, tt.want) {
			t.Errorf("POST %s = %d %+v, want 400 on %s mentioning %q", tt.body, code, e, tt.field, tt.want)
		}
	}
}

// A cancelled run ends cancelled and keeps no result: its CSV is refused.
func TestPopulationCancelKeepsNothing(t *testing.T) {
	s, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/populations", `{"base":"preset:harbor-before","entities":400,"rounds":3,"round":60}`)
	c := jobsDial(t, srv, acc)
	if code := jobsPost(t, srv, "/api/jobs/"+acc.ID+"/cancel", "", nil); code != http.StatusOK {
		t.Fatalf("cancel = %d", code)
	}
	msgs := jobsFollow(t, c)
	if end := msgs[len(msgs)-1]; end.State != "cancelled" {
		t.Fatalf("end = %+v, want cancelled", end)
	}
	if res, _ := s.jobs.Get(acc.ID).Result(); res != nil {
		if pr, ok := res.(*study.PopulationResult); !ok || pr != nil {
			t.Errorf("cancelled run's result = %v, want none", res)
		}
	}
	if resp, _ := get(t, srv.URL+acc.Page+"/data.csv"); resp.StatusCode != http.StatusConflict {
		t.Errorf("GET data.csv of a cancelled run = %d, want 409", resp.StatusCode)
	}
}
