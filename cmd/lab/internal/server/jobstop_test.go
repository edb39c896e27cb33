package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"interplab/cmd/lab/internal/jobs"
)

// A graceful stop (SIGINT or SIGTERM: lab serve's Serve returns, then
// Close) marks a running job interrupted, as the README says, not
// cancelled: nobody cancelled it, and it can be started again. Its page
// says so after the restart.
func TestGracefulStopInterruptsJobs(t *testing.T) {
	dir := t.TempDir()
	s, _ := testServer(t, testAssets(t, false), dir, nil)
	ts := serve(t, s)
	acc := jobsStart(t, ts, "/api/sweeps", jobsLong)
	ts.Close()
	s.Close()
	if st := s.jobs.Get(acc.ID).Status(); st.State != jobs.Interrupted || st.Error == "" {
		t.Errorf("after a graceful stop the job is %q (%q), want interrupted with why", st.State, st.Error)
	}
	s.store.Close()

	again, _ := testServer(t, testAssets(t, false), dir, nil)
	ts = serve(t, again)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(ts.URL + "/api/jobs/" + acc.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st jobs.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/jobs/%s after the restart = %d, %v", acc.ID, resp.StatusCode, err)
	}
	if st.State != jobs.Interrupted {
		t.Errorf("after a restart the job is %q, want interrupted", st.State)
	}
}
