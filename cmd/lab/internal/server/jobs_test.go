package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"interplab/cmd/lab/internal/jobs"

	"github.com/gorilla/websocket"
	"interplab/cmd/lab/internal/studies"
)

// jobsTestServer is a test server whose jobs are cancelled at the end.
func jobsTestServer(t *testing.T) (*Server, *httptest.Server) {
	t.Helper()
	return newTestServer(t, false)
}

// jobsPost posts body to path and decodes the JSON answer into out.
func jobsPost(t *testing.T, srv *httptest.Server, path, body string, out any) int {
	t.Helper()
	resp, err := http.Post(srv.URL+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("POST %s: decode %q: %v", path, data, err)
		}
	}
	return resp.StatusCode
}

// jobsStart starts a job and returns its 202 answer.
func jobsStart(t *testing.T, srv *httptest.Server, path, body string) studies.Accepted {
	t.Helper()
	var acc studies.Accepted
	if code := jobsPost(t, srv, path, body, &acc); code != http.StatusAccepted {
		t.Fatalf("POST %s %s = %d, want 202", path, body, code)
	}
	return acc
}

// jobsDial opens the job's progress WebSocket.
func jobsDial(t *testing.T, srv *httptest.Server, acc studies.Accepted) *websocket.Conn {
	t.Helper()
	c, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+acc.WS, nil)
	if err != nil {
		t.Fatalf("dial %s: %v", acc.WS, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// jobsFollow reads progress messages until the end message and returns
// them all.
func jobsFollow(t *testing.T, c *websocket.Conn) []jobs.Status {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(60 * time.Second))
	var msgs []jobs.Status
	for {
		var m jobs.Status
		if err := c.ReadJSON(&m); err != nil {
			t.Fatalf("after %d messages: %v", len(msgs), err)
		}
		msgs = append(msgs, m)
		if m.Type == "end" {
			return msgs
		}
	}
}

func jobsStatus(t *testing.T, srv *httptest.Server, id string) jobs.Status {
	t.Helper()
	resp, err := http.Get(srv.URL + "/api/jobs/" + id)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var st jobs.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestJobsBadRequests(t *testing.T) {
	_, srv := jobsTestServer(t)
	tests := []struct {
		path, body, field string
	}{
		{"/api/sweeps", `{"technique":"nope","x":{"name":"delay","min":0,"max":0.2,"steps":3}}`, "technique"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"nope","min":0,"max":0.2,"steps":3}}`, "x.name"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"delay","min":0,"max":9,"steps":3}}`, "x.max"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"delay","min":"abc","max":0.2,"steps":3}}`, "x.min"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"delay","min":0,"max":0.2,"steps":0}}`, "x.steps"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"delay","min":0,"max":0.2,"steps":3},"y":{"name":"delay","min":0,"max":0.2,"steps":3}}`, "y.name"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"delay","min":0,"max":0.2,"steps":200},"y":{"name":"jitter","min":0,"max":0.1,"steps":100}}`, "points"},
		{"/api/sweeps", `{"technique":"buffer","base":"preset:nope","x":{"name":"delay","min":0,"max":0.2,"steps":3}}`, "base"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"delay","min":0,"max":0.2,"steps":3},"metric":"nope"}`, "metric"},
		{"/api/sweeps", `{"technique":"buffer","x":{"name":"delay","min":0,"max":0.2,"steps":3},"extra":1}`, "extra"},
		{"/api/sweeps", `{"technique":"buffer","base":"q:entities=10000","x":{"name":"delay","min":0,"max":0.2,"steps":100}}`, "points"},
		{"/api/tunes", `{"technique":"snap"}`, "technique"},
		{"/api/tunes", `{"technique":"buffer","budget":99999}`, "budget"},
		{"/api/tunes", `{"technique":"buffer","motions":["strafe","nope"]}`, "motions[1]"},
		{"/api/tunes", `{"technique":"buffer","weights":{"errP95":-1,"addedLatency":1,"snaps":1,"underrun":1}}`, "weights.errP95"},
		{"/api/tunes", `{"technique":"buffer","constraints":[{"metric":"nope","max":1}]}`, "constraints[0].metric"},
		{"/api/tunes", `{"technique":"buffer","seed":"x"}`, "seed"},
	}
	for _, tt := range tests {
		var e errorBody
		code := jobsPost(t, srv, tt.path, tt.body, &e)
		if code != http.StatusBadRequest || e.Field != tt.field || e.Error == "" {
			t.Errorf("POST %s %s = %d %+v, want 400 with field %q", tt.path, tt.body, code, e, tt.field)
		}
	}
	big := `{"technique":"buffer","base":"` + strings.Repeat("x", maxJobBody) + `"}`
	if code := jobsPost(t, srv, "/api/tunes", big, nil); code != http.StatusRequestEntityTooLarge {
		t.Errorf("POST /api/tunes with a %d-byte body = %d, want 413", len(big), code)
	}
}

func TestJobsUnknown(t *testing.T) {
	_, srv := jobsTestServer(t)
	for _, path := range []string{"/api/jobs/nope", "/sweep/nope", "/sweep/nope/chart", "/tune/nope", "/ws/jobs/nope"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", path, resp.StatusCode)
		}
	}
}

// jobsLong is a sweep that runs for minutes unless cancelled.
const jobsLong = `{"technique":"hermite","base":"q:entities=200&duration=600","x":{"name":"delay","min":0,"max":0.5,"steps":3}}`

func TestJobsCancel(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/sweeps", jobsLong)
	var st jobs.Status
	start := time.Now()
	if code := jobsPost(t, srv, "/api/jobs/"+acc.ID+"/cancel", "", &st); code != http.StatusOK {
		t.Fatalf("cancel = %d, want 200", code)
	}
	if st.State != jobs.Cancelled || st.Done == st.Total {
		t.Errorf("after cancel: %+v, want cancelled before the end", st)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v, want well under 2 s", d)
	}
}

func TestJobsCancelWhenLastWatcherLeaves(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/sweeps", jobsLong)
	c := jobsDial(t, srv, acc)
	var first jobs.Status
	if err := c.ReadJSON(&first); err != nil || first.Type != "progress" || first.State != jobs.Running {
		t.Fatalf("first message %+v, %v: want progress of a running job", first, err)
	}
	c.Close()
	var st jobs.Status
	if !waitFor(context.Background(), func() bool { st = jobsStatus(t, srv, acc.ID); return st.State == jobs.Cancelled }, 5*time.Second) {
		t.Fatalf("job still %s 5 s after its only watcher left", st.State)
	}
}

// fromAddr is an HTTP client whose requests come from the loopback address
// ip, so that a test can be several clients.
func fromAddr(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// One client may run one job at a time, and the server DefaultSlots: a
// client cannot hold every slot (it could before).
func TestJobsBusy(t *testing.T) {
	_, srv := jobsTestServer(t)
	post := func(ip string) (int, errorBody) {
		t.Helper()
		resp, err := fromAddr(ip).Post(srv.URL+"/api/sweeps", "application/json", strings.NewReader(jobsLong))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var e errorBody
		json.NewDecoder(resp.Body).Decode(&e)
		return resp.StatusCode, e
	}
	if code, e := post("127.0.0.1"); code != http.StatusAccepted {
		t.Fatalf("first job = %d %+v, want 202", code, e)
	}
	if code, e := post("127.0.0.1"); code != http.StatusTooManyRequests || !strings.Contains(e.Error, "one client") {
		t.Errorf("the same client's second job = %d %+v, want 429 naming the per-client limit", code, e)
	}
	if code, e := post("127.0.0.2"); code != http.StatusAccepted {
		t.Fatalf("another client's job = %d %+v, want 202", code, e)
	}
	if code, e := post("127.0.0.3"); code != http.StatusTooManyRequests || !strings.Contains(e.Error, "jobs are running") {
		t.Errorf("job %d = %d %+v, want 429", jobs.DefaultSlots+1, code, e)
	}
}

func TestJobsWebSocketCancelMessage(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/sweeps", jobsLong)
	c := jobsDial(t, srv, acc)
	if err := c.WriteJSON(map[string]string{"type": "cancel"}); err != nil {
		t.Fatal(err)
	}
	msgs := jobsFollow(t, c)
	if end := msgs[len(msgs)-1]; end.State != jobs.Cancelled {
		t.Errorf("end after a cancel message: %+v, want cancelled", end)
	}
}

func TestJobsForeignOrigin(t *testing.T) {
	_, srv := jobsTestServer(t)
	acc := jobsStart(t, srv, "/api/sweeps", jobsLong)
	h := http.Header{"Origin": {"http://evil.example"}}
	_, resp, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+acc.WS, h)
	if err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("dial from a foreign origin: %v, want 403", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/api/jobs/"+acc.ID+"/cancel", bytes.NewReader(nil))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}
