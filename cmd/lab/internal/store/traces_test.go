package store

import (
	"bytes"
	"database/sql"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/engine/geom"
)

// traceTestTrace is a synthetic trace with losses, duplicates and a
// packet without orientation.
func traceTestTrace(t testing.TB, name string) *engine.Trace {
	t.Helper()
	s := engine.Defaults()
	s.Entities, s.Duration, s.Loss, s.Duplicate, s.Jitter = 3, 20, 0.05, 0.03, 0.02
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = name
	tr.Packets[0].Rot, tr.Packets[0].HasRot = geom.Quat{}, false
	return tr
}

// sameTracePackets compares packets bit for bit, NaN arrivals equal.
func sameTracePackets(a, b []engine.TracePacket) bool {
	return slices.EqualFunc(a, b, func(p, q engine.TracePacket) bool {
		pa, qa := p.Arrive, q.Arrive
		p.Arrive, q.Arrive = 0, 0
		return p == q && math.Float64bits(pa) == math.Float64bits(qa) || p == q && math.IsNaN(pa) && math.IsNaN(qa)
	})
}

func TestTraceStore(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		tr := traceTestTrace(t, "office-wifi")
		info, err := st.SaveTrace(tr, "csv", storeT0)
		if err != nil {
			t.Fatalf("SaveTrace = %v", err)
		}
		if info.Packets != len(tr.Packets) || info.Entities != 3 || info.Span != 20 || info.Format != "csv" {
			t.Errorf("SaveTrace = %+v, want %d packets, 3 entities, span 20, csv", info, len(tr.Packets))
		}
		if _, err := st.SaveTrace(tr, "csv", storeT0); !errors.Is(err, ErrTraceExists) {
			t.Errorf("SaveTrace(same name) = %v, want ErrTraceExists", err)
		}
		for _, name := range []string{"sample-lan", "sample-mine", "Office", "../x", ""} {
			bad := *tr
			bad.Name = name
			if _, err := st.SaveTrace(&bad, "csv", storeT0); err == nil {
				t.Errorf("SaveTrace(name %q) = nil error, want a refusal", name)
			}
		}
		later := traceTestTrace(t, "later")
		if _, err := st.SaveTrace(later, "jsonl", storeT0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}

		// The blob is exact and compact.
		var size int
		if err := st.db.QueryRow(`SELECT length(data) FROM traces WHERE name = ?`, "office-wifi").Scan(&size); err != nil {
			t.Fatal(err)
		}
		raw := 8 * len(tr.AppendFlat(nil))
		t.Logf("%d packets: %d bytes stored, %d flat (%.1f×)", len(tr.Packets), size, raw, float64(raw)/float64(size))
		if size*2 > raw {
			t.Errorf("stored %d bytes for %d flat: want at most half", size, raw)
		}
		st.Close()

		// A reopened store lists and loads them as saved.
		st = openTestStore(t, dir, storeT0)
		defer st.Close()
		list, err := st.ListTraces()
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, l := range list {
			names = append(names, l.Name)
			if l.Name == "office-wifi" && (!reflect.DeepEqual(l.Network, tr.Network()) || l.MaxSpeed != tr.MaxSpeed()) {
				t.Errorf("ListTraces: office-wifi measures %+v and %v m/s, want the trace's own %+v and %v",
					l.Network, l.MaxSpeed, tr.Network(), tr.MaxSpeed())
			}
		}
		if want := []string{"sample-lan", "sample-4g", "later", "office-wifi"}; !slices.Equal(names, want) {
			t.Errorf("ListTraces = %v, want %v (samples, then newest first)", names, want)
		}
		got, loaded, err := st.LoadTrace("office-wifi")
		if err != nil {
			t.Fatalf("LoadTrace = %v", err)
		}
		if !reflect.DeepEqual(got, info) || loaded.Name != "office-wifi" || loaded.Entities != 3 || !sameTracePackets(loaded.Packets, tr.Packets) {
			t.Errorf("LoadTrace = %+v with %d packets, want %+v and the packets saved, bit for bit", got, len(loaded.Packets), info)
		}
		if _, s, err := st.LoadTrace("sample-4g"); err != nil || s.Entities != 2 {
			t.Errorf("LoadTrace(sample-4g) = %v, %v; want the sample", s, err)
		}
		if _, _, err := st.LoadTrace("missing"); !errors.Is(err, ErrTraceNotFound) {
			t.Errorf("LoadTrace(missing) = %v, want ErrTraceNotFound", err)
		}

		if err := st.DeleteTrace("office-wifi"); err != nil {
			t.Errorf("DeleteTrace = %v", err)
		}
		if err := st.DeleteTrace("office-wifi"); !errors.Is(err, ErrTraceNotFound) {
			t.Errorf("DeleteTrace twice = %v, want ErrTraceNotFound", err)
		}
		if err := st.DeleteTrace("sample-lan"); !errors.Is(err, ErrTraceSample) {
			t.Errorf("DeleteTrace(sample-lan) = %v, want ErrTraceSample", err)
		}
	})
}

// A database made before traces existed gains the table and keeps its
// sessions.
func TestTraceStoreMigration(t *testing.T) {
	dir := t.TempDir()
	migrateTo = 1 // as a lab of step 1 left it
	defer func() { migrateTo = 0 }()
	st := openTestStore(t, dir, storeT0)
	r, err := st.Create(testDraft("before traces", nil), storeT0)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	migrateTo = 0

	st = openTestStore(t, dir, storeT0)
	defer st.Close()
	if v, err := st.schemaVersion(); err != nil || v != latestVersion() {
		t.Errorf("schemaVersion = %d, %v, want %d", v, err, latestVersion())
	}
	if got, err := st.Latest(r.ID); err != nil || got.Name != "before traces" {
		t.Errorf("Latest = %q, %v, want the session kept", got.Name, err)
	}
	if _, err := st.SaveTrace(traceTestTrace(t, "after"), "csv", storeT0); err != nil {
		t.Errorf("SaveTrace after the migration = %v", err)
	}
}

// A corrupt blob is an error, never a panic or a wrong trace.
func TestTraceBlobCorrupt(t *testing.T) {
	blob, err := encodeTraceBlob(traceTestTrace(t, "x"))
	if err != nil {
		t.Fatal(err)
	}
	for i, bad := range [][]byte{nil, blob[:len(blob)/2], append(slices.Clone(blob[:10]), make([]byte, 50)...), []byte("not deflate")} {
		if _, err := decodeTraceBlob(bad); err == nil {
			t.Errorf("decodeTraceBlob(corrupt %d) = nil error", i)
		}
	}
	// A stored row with a damaged blob fails to load cleanly.
	dir := t.TempDir()
	st := openTestStore(t, dir, storeT0)
	defer st.Close()
	if _, err := st.SaveTrace(traceTestTrace(t, "damaged"), "csv", storeT0); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`UPDATE traces SET data = ? WHERE name = 'damaged'`, blob[:len(blob)-7]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.LoadTrace("damaged"); err == nil || errors.Is(err, ErrTraceNotFound) {
		t.Errorf("LoadTrace(damaged) = %v, want a decode error", err)
	}
}

// FuzzTraceBlob: every trace the parsers accept survives the store's
// compressed column encoding bit for bit.
func FuzzTraceBlob(f *testing.F) {
	f.Add([]byte("entity,seq,sent,arrive,x,y,z,vx,vy,vz,yaw\n0,0,0,0.05,1,2,3,1,0,0,0.5\n1,0,0,,1,2,3,1,0,0,0\n"))
	f.Add([]byte(`{"sent":1,"arrive":1.2,"pos":[0,0,0],"vel":[1,0,0],"rot":[0,0,0,1]}` + "\n"))
	f.Add([]byte("0,0,0 / 1,0.5,0 / 0\n0.05,0.025,0/1,0.5,0/0.05\nq\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, _, err := traceio.Parse(bytes.NewReader(data), "", "fuzz")
		if err != nil {
			return
		}
		blob, err := encodeTraceBlob(tr)
		if err != nil {
			t.Fatal(err)
		}
		back, err := decodeTraceBlob(blob)
		if err != nil {
			t.Fatalf("blob round trip: %v", err)
		}
		if !sameTracePackets(back.Packets, tr.Packets) || back.Entities != tr.Entities {
			t.Fatalf("blob round trip changed the trace")
		}
	})
}

// Traces saved before their measures were kept (schema 2) get them when
// the store opens, so the traces page never decodes a trace.
func TestTraceMeasuresBackfilled(t *testing.T) {
	dir := t.TempDir()
	migrateTo = 2 // as a lab of step 2 left it
	defer func() { migrateTo = 0 }()
	st := openTestStore(t, dir, storeT0)
	tr := traceTestTrace(t, "old")
	blob, err := encodeTraceBlob(tr)
	if err != nil {
		t.Fatal(err)
	}
	// As schema 2 saved it: no measures.
	if _, err := st.db.Exec(`INSERT INTO traces (name, created_ns, format, packets, entities, span, data) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		"old", storeT0.UnixNano(), "csv", len(tr.Packets), tr.Entities, tr.Span(), blob); err != nil {
		t.Fatal(err)
	}
	st.Close()
	migrateTo = 0

	st = openTestStore(t, dir, storeT0)
	defer st.Close()
	var null int
	if err := st.db.QueryRow(`SELECT count(*) FROM traces WHERE network IS NULL`).Scan(&null); err != nil || null != 0 {
		t.Errorf("%d traces without measures after Open (%v), want 0", null, err)
	}
	list, err := st.ListTraces()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range list {
		if l.Name == "old" {
			found = true
			if !reflect.DeepEqual(l.Network, tr.Network()) || l.MaxSpeed != tr.MaxSpeed() {
				t.Errorf("old trace measures %+v, %v; want %+v, %v", l.Network, l.MaxSpeed, tr.Network(), tr.MaxSpeed())
			}
		}
	}
	if !found {
		t.Error("the old trace is not listed")
	}
}
