package server

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

// loadCounter is a store that counts the traces loaded whole.
type loadCounter struct {
	store.Store
	loads atomic.Int32
}

func (c *loadCounter) LoadTrace(name string) (store.TraceInfo, *engine.Trace, error) {
	c.loads.Add(1)
	return c.Store.LoadTrace(name)
}

// heavyServer is the lab on a store holding the trace "big", counting the
// traces it loads whole.
func heavyServer(t *testing.T) (*Server, string, *loadCounter, *store.SQLite) {
	t.Helper()
	dir := t.TempDir()
	_, st := testServer(t, testAssets(t, false), dir, nil)
	set := engine.Defaults()
	set.Entities, set.Duration, set.Loss, set.Jitter = 20, 240, 0.02, 0.01
	tr, err := engine.SyntheticTrace(set)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = "big"
	if _, err := st.SaveTrace(tr, "csv", storeT0); err != nil {
		t.Fatal(err)
	}
	counter := &loadCounter{Store: st}
	list, _ := presets.All()
	s, err := New(Deps{Presets: list, Assets: testAssets(t, false), Store: counter})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	heavyDirs[st] = dir
	return s, serve(t, s).URL, counter, st
}

// heavyDirs are the data directories of heavyServer's stores.
var heavyDirs = map[*store.SQLite]string{}

// damageTraceBlob cuts the end off the stored packets of trace name, in
// the database file, as a damaged disk might.
func damageTraceBlob(st *store.SQLite, name string) error {
	db, err := sql.Open("sqlite", filepath.Join(heavyDirs[st], "lab.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(`UPDATE traces SET data = substr(data, 1, length(data) - 9) WHERE name = ?`, name)
	return err
}

// A trace's packets are streamed as the flat encoding, with their length
// declared, and its description is answered from what the store keeps of
// it: neither loads the trace whole.
func TestTraceReadsLoadNoTrace(t *testing.T) {
	_, base, counter, st := heavyServer(t)
	info, tr, err := st.LoadTrace("big")
	if err != nil {
		t.Fatal(err)
	}
	resp, body := get(t, base+"/api/traces/big/flat")
	var want bytes.Buffer
	for _, v := range tr.AppendFlat(nil) {
		binary.Write(&want, binary.LittleEndian, math.Float64bits(v))
	}
	if resp.StatusCode != http.StatusOK || !bytes.Equal(body, want.Bytes()) || resp.ContentLength != int64(want.Len()) {
		t.Errorf("GET flat = %d, %d bytes (Content-Length %d), want 200 and AppendFlat's %d", resp.StatusCode, len(body), resp.ContentLength, want.Len())
	}
	resp, body = get(t, base+"/api/traces/big")
	wantJSON, _ := json.Marshal(report.DescribeTrace(info, tr))
	var got, wantV any
	json.Unmarshal(body, &got)
	json.Unmarshal(wantJSON, &wantV)
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ = json.Marshal(wantV)
	if resp.StatusCode != http.StatusOK || !bytes.Equal(gotJSON, wantJSON) {
		t.Errorf("GET /api/traces/big = %d %s, want %s", resp.StatusCode, gotJSON, wantJSON)
	}
	if n := counter.loads.Load(); n != 0 {
		t.Errorf("the reads loaded %d traces whole, want 0", n)
	}
}

// When every heavy read's slot stays taken, a heavy read is a 503 with a
// Retry-After, as JSON for the API and as a page for the lab page; a read
// that needs no packets is not held up.
func TestHeavyReadBusy(t *testing.T) {
	s, base, _, _ := heavyServer(t)
	s.reads = jsonapi.NewSlots(1, 10*time.Millisecond)
	release, err := s.reads.Take(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cmp := "/compare.csv?" + url.Values{"chart": {"metrics"}, "v": {"trace:big", "preset:lan"}}.Encode()
	for _, path := range []string{"/api/traces/big/flat", cmp, "/?trace=big"} {
		resp, body := get(t, base+path)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "busy") {
			t.Errorf("GET %s with the slots taken = %d (Retry-After %q) %.200s, want 503 with Retry-After", path, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	if resp, _ := get(t, base+"/api/traces/big"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/traces/big with the slots taken = %d, want 200", resp.StatusCode)
	}
}

// A comparison whose work or traces are over its bounds is refused before
// any trace is loaded; one within them loads each trace once, however many
// variants replay it.
func TestCompareChecksBeforeLoading(t *testing.T) {
	_, base, counter, _ := heavyServer(t)
	csv := func(refs ...string) (int, string) {
		resp, body := get(t, base+"/compare.csv?"+url.Values{"chart": {"metrics"}, "v": refs}.Encode())
		return resp.StatusCode, string(body)
	}
	var long []string
	for range 8 {
		long = append(long, "trace:big@q:duration=3600")
	}
	if status, body := csv(long...); status != http.StatusBadRequest || !strings.Contains(body, "entity-technique-frames") {
		t.Errorf("8 long trace variants = %d %.300s, want 400 for the work", status, body)
	}
	if n := counter.loads.Load(); n != 0 {
		t.Errorf("the refused comparison loaded %d traces, want 0", n)
	}
	var short []string
	for i := range 8 {
		short = append(short, "trace:big@q:duration=2&techniques=buffer&delay="+[]string{"0.05", "0.06", "0.07", "0.08", "0.09", "0.1", "0.11", "0.12"}[i])
	}
	if status, body := csv(short...); status != http.StatusOK {
		t.Errorf("8 short variants of one trace = %d %.300s, want 200", status, body)
	}
	if n := counter.loads.Load(); n != 1 {
		t.Errorf("8 variants of one trace loaded it %d times, want once", n)
	}
}

// A trace whose packets turn out damaged while they stream is never
// answered as complete: the answer is cut short.
func TestTraceFlatDamagedIsCutShort(t *testing.T) {
	_, base, _, st := heavyServer(t)
	if err := damageTraceBlob(st, "big"); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("GET", base+"/api/traces/big/flat", nil)
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		_, err = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	if err == nil {
		t.Errorf("GET flat of a damaged trace = %d with a whole body, want the answer cut short", resp.StatusCode)
	}
	// Its description needs no packets.
	if resp, _ := get(t, base+"/api/traces/big"); resp.StatusCode != http.StatusOK {
		t.Errorf("GET /api/traces/big (damaged packets) = %d, want 200", resp.StatusCode)
	}
}
