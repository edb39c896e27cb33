package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// sameTracePacket compares packets bit for bit, NaN arrivals equal.
func sameTracePacket(p, q engine.TracePacket) bool {
	pa, qa := p.Arrive, q.Arrive
	p.Arrive, q.Arrive = 0, 0
	return p == q && (math.Float64bits(pa) == math.Float64bits(qa) || math.IsNaN(pa) && math.IsNaN(qa))
}

// traceEnv is a sessionsEnv whose clock advances 50 ms a call: the hub's
// stamps of live packets and the saves' times.
type traceEnv struct {
	*sessionsEnv
}

func newTraceEnv(t testing.TB, dir string) *traceEnv {
	t.Helper()
	return &traceEnv{newSessionsEnvStep(t, dir, 50*time.Millisecond)}
}

// post sends body to path with the content type and returns the status and
// the decoded JSON answer.
func (e *traceEnv) post(t testing.TB, path, contentType string, body []byte) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest("POST", e.srv.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return traceDo(t, req)
}

func traceDo(t testing.TB, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s %s = %d: body %q is not a JSON object", req.Method, req.URL.Path, resp.StatusCode, jsonapi.Clip(string(data), 200))
	}
	return resp.StatusCode, m
}

// multipartBody builds a multipart/form-data body from field → content
// pairs; a field named file is sent as the file filename.
func multipartBody(t testing.TB, filename string, fields ...[2]string) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for _, f := range fields {
		var part io.Writer
		var err error
		if f[0] == "file" {
			part, err = w.CreateFormFile("file", filename)
		} else {
			part, err = w.CreateFormField(f[0])
		}
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(part, f[1])
	}
	w.Close()
	return b.Bytes(), w.FormDataContentType()
}

func traceCSV(t testing.TB, tr *engine.Trace) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := traceio.WriteCSV(&b, tr); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestTracesAPI(t *testing.T) {
	dir := t.TempDir()
	e := newTraceEnv(t, dir)
	s := engine.Defaults()
	s.Entities, s.Duration, s.Latency, s.Jitter, s.JitterDist, s.Loss = 2, 60, 0.04, 0.01, "uniform", 0.03
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	csvData := traceCSV(t, tr)

	// Raw body, named by the query.
	status, got := e.post(t, "/api/traces?name=office", "text/csv", csvData)
	if status != http.StatusCreated {
		t.Fatalf("POST /api/traces = %d %v, want 201", status, got)
	}
	network := got["network"].(map[string]any)
	if got["name"] != "office" || got["format"] != "csv" || got["packets"].(float64) != float64(len(tr.Packets)) ||
		network["jitterDist"] != "uniform" || math.Abs(network["latency"].(float64)-0.04) > 0.001 {
		t.Errorf("POST /api/traces = %v, want office, csv, %d packets, a uniform 40 ms network", got, len(tr.Packets))
	}
	settings := got["settings"].(map[string]any)
	if settings["jitterDist"] != "uniform" || settings["entities"].(float64) != 6 {
		t.Errorf("settings = %v, want the defaults with the derived network", settings)
	}

	// Multipart, named by the file.
	body, ct := multipartBody(t, "Lobby Run.jsonl", [2]string{"file",
		`{"sent":0,"arrive":0.03,"pos":[0,0,0],"vel":[1,0,0]}` + "\n" + `{"sent":0.05,"arrive":0.081,"pos":[0.05,0,0],"vel":[1,0,0]}`})
	if status, got := e.post(t, "/api/traces", ct, body); status != http.StatusCreated || got["name"] != "lobby-run" || got["format"] != "jsonl" {
		t.Errorf("POST multipart = %d %v, want 201 lobby-run jsonl", status, got)
	}
	body, ct = multipartBody(t, "x.txt", [2]string{"name", "seeded"}, [2]string{"format", "seed"},
		[2]string{"file", "0,0,0/1,0,0/0\n0.05,0,0/1,0,0/0.05\n"})
	if status, got := e.post(t, "/api/traces", ct, body); status != http.StatusCreated || got["name"] != "seeded" || got["format"] != "seed" {
		t.Errorf("POST multipart with name and format = %d %v, want 201 seeded seed", status, got)
	}

	// The list: samples first, then newest first.
	_, list := traceGet(t, e.srv.URL+"/api/traces")
	var names []string
	for _, x := range list["traces"].([]any) {
		names = append(names, x.(map[string]any)["name"].(string))
	}
	if want := "sample-lan sample-4g seeded lobby-run office"; strings.Join(names, " ") != want {
		t.Errorf("GET /api/traces = %v, want %s", names, want)
	}

	// The flat encoding decodes to the trace stored.
	resp, err := http.Get(e.srv.URL + "/api/traces/office/flat")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/octet-stream" || len(raw)%8 != 0 {
		t.Fatalf("GET flat = %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(raw))
	}
	flat := make([]float64, len(raw)/8)
	for i := range flat {
		flat[i] = math.Float64frombits(binary.LittleEndian.Uint64(raw[8*i:]))
	}
	back, err := engine.TraceFromFlat(flat)
	if err != nil {
		t.Fatalf("TraceFromFlat(GET flat) = %v", err)
	}
	_, stored, _ := e.st.LoadTrace("office")
	if !slices.EqualFunc(back.Packets, stored.Packets, sameTracePacket) {
		t.Error("GET flat differs from the stored trace")
	}

	// Samples are served and protected.
	if status, got := traceGet(t, e.srv.URL+"/api/traces/sample-4g"); status != 200 || got["sample"] != true {
		t.Errorf("GET sample-4g = %d %v", status, got)
	}
	if status, _ := traceRequest(t, "DELETE", e.srv.URL+"/api/traces/sample-4g", ""); status != http.StatusForbidden {
		t.Errorf("DELETE sample-4g = %d, want 403", status)
	}

	// Delete, then it is gone; a restart keeps the rest.
	if status, _ := traceRequest(t, "DELETE", e.srv.URL+"/api/traces/lobby-run", ""); status != 200 {
		t.Errorf("DELETE lobby-run = %d, want 200", status)
	}
	if status, _ := traceGet(t, e.srv.URL+"/api/traces/lobby-run"); status != 404 {
		t.Errorf("GET deleted = %d, want 404", status)
	}
	e.close()
	e = newTraceEnv(t, dir)
	if status, got := traceGet(t, e.srv.URL+"/api/traces/office"); status != 200 || got["packets"].(float64) != float64(len(tr.Packets)) {
		t.Errorf("GET office after a restart = %d %v", status, got)
	}
}

func traceGet(t testing.TB, url string) (int, map[string]any) {
	return traceRequest(t, "GET", url, "")
}

func traceRequest(t testing.TB, method, url, origin string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	return traceDo(t, req)
}

// A malformed file gets its line number, and nothing of it is saved.
func TestTracesAPIMalformed(t *testing.T) {
	e := newTraceEnv(t, t.TempDir())
	s := engine.Defaults()
	s.Duration = 10
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(traceCSV(t, tr)), "\n")
	// Line 700 of the file (a row of the 117th send) gets a bad x.
	cells := strings.Split(lines[699], ",")
	cells[4] = "1.2.3"
	lines[699] = strings.Join(cells, ",")
	status, got := e.post(t, "/api/traces?name=broken", "text/csv", []byte(strings.Join(lines, "")))
	if status != http.StatusBadRequest || got["line"] != 700.0 || got["field"] != "x" ||
		!strings.HasPrefix(got["error"].(string), "line 700: x: ") {
		t.Errorf("POST malformed = %d %v, want 400 at line 700, field x", status, got)
	}
	if status, _ := traceGet(t, e.srv.URL+"/api/traces/broken"); status != 404 {
		t.Errorf("GET broken = %d, want 404: nothing saved", status)
	}
	if list, err := e.st.ListTraces(); err != nil || len(list) != 2 {
		t.Errorf("ListTraces = %v, %v; want the two samples alone", list, err)
	}
}

func TestTracesAPIHostile(t *testing.T) {
	e := newTraceEnv(t, t.TempDir())
	good := "sent,arrive,x,y,z,vx,vy,vz\n0,0.02,0,0,0,1,0,0\n0.05,0.07,0.05,0,0,1,0,0\n"
	if status, got := e.post(t, "/api/traces?name=taken", "text/csv", []byte(good)); status != 201 {
		t.Fatalf("POST good = %d %v", status, got)
	}
	twoFiles, twoCT := multipartBody(t, "a.csv", [2]string{"file", good}, [2]string{"file", good})
	odd, oddCT := multipartBody(t, "a.csv", [2]string{"file", good}, [2]string{"comment", "hi"})
	noFile, noFileCT := multipartBody(t, "", [2]string{"name", "nofile"})
	badName, badNameCT := multipartBody(t, "a.csv", [2]string{"name", "Bad Name"}, [2]string{"file", good})
	cases := []struct {
		name, path, contentType string
		body                    []byte
		origin                  string
		status                  int
		field                   string
	}{
		{"no name", "/api/traces", "text/csv", []byte(good), "", 400, "name"},
		{"bad name", "/api/traces?name=../etc", "text/csv", []byte(good), "", 400, "name"},
		{"long name", "/api/traces?name=" + strings.Repeat("a", 65), "text/csv", []byte(good), "", 400, "name"},
		{"sample name", "/api/traces?name=sample-x", "text/csv", []byte(good), "", 400, "name"},
		{"taken", "/api/traces?name=taken", "text/csv", []byte(good), "", 409, "name"},
		{"unknown format", "/api/traces?name=f&format=xml", "text/csv", []byte(good), "", 400, "format"},
		{"empty", "/api/traces?name=empty", "text/csv", nil, "", 400, ""},
		{"binary", "/api/traces?name=bin", "application/octet-stream", []byte{0, 1, 2, 0xff, '\n', 0x80}, "", 400, ""},
		{"huge", "/api/traces?name=huge", "text/csv", bytes.Repeat([]byte("0,"), maxTraceUpload/2+1), "", 413, ""},
		{"cross-origin", "/api/traces?name=evil", "text/csv", []byte(good), "http://evil.example", 403, ""},
		{"two files", "/api/traces", twoCT, twoFiles, "", 400, "file"},
		{"unknown part", "/api/traces", oddCT, odd, "", 400, "comment"},
		{"no file", "/api/traces", noFileCT, noFile, "", 400, "file"},
		{"bad multipart name", "/api/traces", badNameCT, badName, "", 400, "name"},
		{"broken multipart", "/api/traces", "multipart/form-data; boundary=x", []byte("--x\r\nnonsense"), "", 400, ""},
		{"nan", "/api/traces?name=nan", "text/csv", []byte("sent,arrive,x,y,z,vx,vy,vz\nNaN,1,0,0,0,0,0,0\n"), "", 400, "sent"},
		{"huge coordinate", "/api/traces?name=far", "text/csv", []byte("sent,arrive,x,y,z,vx,vy,vz\n0,1,1e300,0,0,0,0,0\n"), "", 400, "x"},
		{"deep json", "/api/traces?name=deep", "application/x-ndjson", []byte(strings.Repeat("{\"sent\":", 10000)), "", 400, ""},
		{"no type", "/api/traces?name=untyped", "", []byte(good), "", 415, ""},
		{"form type", "/api/traces?name=form", "application/x-www-form-urlencoded", []byte(good), "", 415, ""},
	}
	for _, c := range cases {
		req, err := http.NewRequest("POST", e.srv.URL+c.path, bytes.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		if c.contentType != "" {
			req.Header.Set("Content-Type", c.contentType)
		}
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		status, got := traceDo(t, req)
		if status != c.status {
			t.Errorf("%s: POST = %d %v, want %d", c.name, status, got, c.status)
			continue
		}
		if msg, _ := got["error"].(string); msg == "" {
			t.Errorf("%s: answer %v has no error message", c.name, got)
		}
		if field, _ := got["field"].(string); c.field != "" && field != c.field {
			t.Errorf("%s: field %q (%v), want %q", c.name, field, got["error"], c.field)
		}
	}
	for _, c := range []struct {
		method, path, origin string
		status               int
	}{
		{"GET", "/api/traces/NOPE", "", 404},
		{"GET", "/api/traces/missing", "", 404},
		{"GET", "/api/traces/missing/flat", "", 404},
		{"DELETE", "/api/traces/missing", "", 404},
		{"DELETE", "/api/traces/taken", "http://evil.example", 403},
	} {
		if status, got := traceRequest(t, c.method, e.srv.URL+c.path, c.origin); status != c.status {
			t.Errorf("%s %s = %d %v, want %d", c.method, c.path, status, got, c.status)
		}
	}
	// Only the good upload was saved.
	list, err := e.st.ListTraces()
	if err != nil || len(list) != 3 || list[2].Name != "taken" {
		t.Errorf("ListTraces = %v, %v; want the samples and taken", list, err)
	}
}

// A game streams packets into a session's live trace over a real
// WebSocket; a tab sees them; the trace is saved through the API.
func TestLiveTrace(t *testing.T) {
	e := newTraceEnv(t, t.TempDir())
	id := e.create(t, "live", nil).ID
	game, _ := e.dial(t, id)
	tab, _ := e.dial(t, id)

	// The hub's clock advances 50 ms per packet from storeT0: a packet
	// sent 30 ms before the stamp has a 30 ms delay. Each entity sends
	// every other packet, at 10 Hz.
	t0 := float64(storeT0.UnixNano()) / 1e9
	stampAt := func(k int) float64 { return t0 + 0.05*float64(k) } // k-th call of the clock
	calls := 2                                                     // the server marking earlier jobs interrupted, and the session's creation
	for k := range 40 {
		calls++
		sent := stampAt(calls) - 0.03
		msg := fmt.Sprintf(`{"type":"packet","entity":%d,"sent":%.6f,"pos":[%d,0,0],"vel":[1,0,0],"rot":[0,0,0,1]}`,
			3+k%2, sent, k)
		sendWS(t, game, msg)
		var got struct {
			Type   string
			Entity int
			Arrive float64
			Pos    [3]float64
			Rot    []float64
			From   string
		}
		readWSInto(t, tab, &got)
		if got.Type != "packet" || got.Entity != 3+k%2 || math.Abs(got.Arrive-stampAt(calls)) > 1e-6 ||
			got.Pos[0] != float64(k) || len(got.Rot) != 4 || got.From == "" {
			t.Fatalf("tab got %+v for packet %d, want it stamped at %v", got, k, stampAt(calls))
		}
	}

	// Bad packets are refused, to the game only, and not recorded.
	for _, c := range []struct{ msg, field string }{
		{`{"type":"packet","sent":1,"pos":[0,0],"vel":[0,0,0]}`, "pos"},
		{`{"type":"packet","pos":[0,0,0],"vel":[0,0,0]}`, "sent"},
		{`{"type":"packet","entity":10000,"sent":1,"pos":[0,0,0],"vel":[0,0,0]}`, "entity"},
		{`{"type":"packet","entity":-1,"sent":1,"pos":[0,0,0],"vel":[0,0,0]}`, "entity"},
		{`{"type":"packet","sent":1,"pos":[0,0,1e8],"vel":[0,0,0]}`, "pos"},
		{`{"type":"packet","sent":1,"pos":[0,0,0],"vel":[0,0,0],"rot":[0,0,0,3]}`, "rot"},
		{`{"type":"packet","entity":3,"sent":1,"pos":[0,0,0],"vel":[0,0,0]}`, "sent"}, // before entity 3's last
		{`{"type":"packet","entity":2.5,"sent":1,"pos":[0,0,0],"vel":[0,0,0]}`, "entity"},
		{`{"type":"packet","sent":1e300,"pos":[0,0,0],"vel":[0,0,0]}`, "sent"},
		{`{"type":"packet","sent":1,"pos":[0,0,0],"vel":[0,0,0],"extra":1}`, "extra"},
	} {
		sendWS(t, game, c.msg)
		m := readWS(t, game)
		if m.Type != "error" || m.Field != c.field {
			t.Errorf("%s: got %+v, want an error on %s", c.msg, m, c.field)
		}
	}

	status, got := e.post(t, "/api/sessions/"+id+"/trace", "application/json", []byte(`{"name":"live-run"}`))
	if status != http.StatusCreated {
		t.Fatalf("POST live trace = %d %v", status, got)
	}
	network := got["network"].(map[string]any)
	if got["format"] != "live" || got["packets"].(float64) != 40 || got["entities"].(float64) != 2 ||
		math.Abs(network["latency"].(float64)-0.03) > 0.0005 || network["sendRate"].(float64) != 10 {
		t.Errorf("saved live trace = %v, want 40 packets of 2 entities, 30 ms latency, 10 Hz", got)
	}
	for _, c := range []struct {
		path, body string
		status     int
	}{
		{"/api/sessions/" + id + "/trace", `{"name":"live-run"}`, 409},
		{"/api/sessions/" + id + "/trace", `{"name":"Bad"}`, 400},
		{"/api/sessions/" + id + "/trace", `{"nom":"x"}`, 400},
		{"/api/sessions/aaaaaaaaaaaa/trace", `{"name":"x"}`, 404},
		{"/api/sessions/nope/trace", `{"name":"x"}`, 404},
	} {
		if status, got := e.post(t, c.path, "application/json", []byte(c.body)); status != c.status {
			t.Errorf("POST %s %s = %d %v, want %d", c.path, c.body, status, got, c.status)
		}
	}

	// With no client left the live trace is gone.
	game.Close()
	tab.Close()
	var last int
	if !waitFor(context.Background(), func() bool {
		last, _ = e.post(t, "/api/sessions/"+id+"/trace", "application/json", []byte(`{"name":"later"}`))
		return last == http.StatusConflict
	}, 5*time.Second) {
		t.Fatalf("POST live trace after every client left = %d, want 409", last)
	}
}

func readWSInto(t testing.TB, c interface {
	SetReadDeadline(time.Time) error
	ReadMessage() (int, []byte, error)
}, v any) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, data, err := c.ReadMessage()
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode %s: %v", data, err)
	}
}
