package store

import (
	"bytes"
	"compress/flate"
	"database/sql"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"path/filepath"
	"testing"

	"interplab/engine"
)

// encodeTraceBlobV1 is the blob as layout 1 wrote it, before the reads
// were streamed: whole columns.
func encodeTraceBlobV1(tr *engine.Trace) []byte {
	flat := tr.AppendFlat(nil)
	n := len(tr.Packets)
	var raw []byte
	for _, v := range flat[:engine.TraceFlatHeader] {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
	}
	rows := flat[engine.TraceFlatHeader:]
	for c := range engine.TraceFlatStride {
		for i := range n {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(rows[i*engine.TraceFlatStride+c]))
		}
	}
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.DefaultCompression)
	w.Write(raw)
	w.Close()
	return buf.Bytes()
}

// flatBytes is tr's flat encoding as little-endian bytes.
func flatBytes(tr *engine.Trace) []byte {
	var b []byte
	for _, v := range tr.AppendFlat(nil) {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	return b
}

// bigTestTrace is a synthetic trace of more than two blocks.
func bigTestTrace(t testing.TB, name string) *engine.Trace {
	t.Helper()
	s := engine.Defaults()
	s.Entities, s.Duration, s.Loss, s.Duplicate, s.Jitter = 7, 100, 0.05, 0.03, 0.02
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		t.Fatal(err)
	}
	tr.Name = name
	if len(tr.Packets) < 2*blobBlock+1 {
		t.Fatalf("%d packets: want more than two blocks", len(tr.Packets))
	}
	return tr
}

// TraceFlat streams a stored trace's flat encoding as AppendFlat writes
// it, read in any sizes, from blobs of both layouts; LoadTrace decodes
// both to the trace saved.
func TestTraceFlat(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		defer st.Close()
		tr := bigTestTrace(t, "big")
		if _, err := st.SaveTrace(tr, "csv", storeT0); err != nil {
			t.Fatal(err)
		}
		old := traceTestTrace(t, "old")
		if _, err := st.SaveTrace(old, "csv", storeT0); err != nil {
			t.Fatal(err)
		}
		if _, err := st.db.Exec(`UPDATE traces SET data = ? WHERE name = 'old'`, encodeTraceBlobV1(old)); err != nil {
			t.Fatal(err)
		}
		sample, _, err := st.LoadTrace("sample-lan")
		if err != nil {
			t.Fatal(err)
		}
		_, sampleTrace, _ := st.LoadTrace("sample-lan")
		for _, want := range []*engine.Trace{tr, old, sampleTrace} {
			name := want.Name
			info, r, err := st.TraceFlat(name)
			if err != nil {
				t.Fatalf("TraceFlat(%s) = %v", name, err)
			}
			if info.Packets != len(want.Packets) || info.Name != name {
				t.Errorf("TraceFlat(%s) info = %+v", name, info)
			}
			// Odd reads: a reader must not care how it is read.
			var got bytes.Buffer
			buf := make([]byte, 1237)
			for {
				n, err := r.Read(buf[:1+got.Len()%len(buf)])
				got.Write(buf[:n])
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatalf("TraceFlat(%s) read: %v", name, err)
				}
			}
			if !bytes.Equal(got.Bytes(), flatBytes(want)) {
				t.Errorf("TraceFlat(%s) = %d bytes, want AppendFlat's %d, equal", name, got.Len(), len(flatBytes(want)))
			}
			_, back, err := st.LoadTrace(name)
			if err != nil || !sameTracePackets(back.Packets, want.Packets) {
				t.Errorf("LoadTrace(%s) = %v, or not the trace saved", name, err)
			}
			if info2, err := st.TraceInfo(name); err != nil || info2.Packets != info.Packets || info2.Network.SendRate != info.Network.SendRate {
				t.Errorf("TraceInfo(%s) = %+v, %v; want TraceFlat's %+v", name, info2, err, info)
			}
		}
		if sample.Name != "sample-lan" {
			t.Errorf("sample = %+v", sample)
		}
		for _, name := range []string{"missing", "sample-missing"} {
			if _, _, err := st.TraceFlat(name); !errors.Is(err, ErrTraceNotFound) {
				t.Errorf("TraceFlat(%s) = %v, want ErrTraceNotFound", name, err)
			}
			if _, err := st.TraceInfo(name); !errors.Is(err, ErrTraceNotFound) {
				t.Errorf("TraceInfo(%s) = %v, want ErrTraceNotFound", name, err)
			}
		}
	})
}

// A damaged blob is an error of TraceFlat or of its Read, never a
// complete answer; damage in the last block is found before its end.
func TestTraceFlatDamaged(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		defer st.Close()
		tr := bigTestTrace(t, "big")
		if _, err := st.SaveTrace(tr, "csv", storeT0); err != nil {
			t.Fatal(err)
		}
		blob, err := encodeTraceBlob(tr)
		if err != nil {
			t.Fatal(err)
		}
		longer, _ := encodeTraceBlob(&engine.Trace{Entities: tr.Entities, Packets: append(tr.Packets, tr.Packets[len(tr.Packets)-1])})
		for i, bad := range [][]byte{blob[:len(blob)-9], blob[:len(blob)/2], []byte("not deflate"), longer} {
			if _, err := st.db.Exec(`UPDATE traces SET data = ? WHERE name = 'big'`, bad); err != nil {
				t.Fatal(err)
			}
			_, r, err := st.TraceFlat("big")
			if err == nil {
				var n int64
				n, err = io.Copy(io.Discard, r)
				if err == nil {
					t.Errorf("damage %d: TraceFlat read %d bytes and no error", i, n)
				}
			}
			if _, _, err := st.LoadTrace("big"); err == nil {
				t.Errorf("damage %d: LoadTrace = nil error", i)
			}
		}
	})
}

// Layout 2's blocks compress about as well as layout 1's whole columns.
func TestTraceBlobLayoutsSize(t *testing.T) {
	tr := bigTestTrace(t, "big")
	v2, err := encodeTraceBlob(tr)
	if err != nil {
		t.Fatal(err)
	}
	v1 := encodeTraceBlobV1(tr)
	t.Logf("%d packets: layout 1 %d bytes, layout 2 %d bytes (%.3f×)", len(tr.Packets), len(v1), len(v2), float64(len(v2))/float64(len(v1)))
	if len(v2) > len(v1)*11/10 {
		t.Errorf("layout 2 takes %d bytes, layout 1 %d: want at most 10%% more", len(v2), len(v1))
	}
}

// BenchmarkTraceFlat reads a stored trace of about TraceMaxPackets
// packets whole, streamed (TraceFlat, from layout 2 and from layout 1) and
// decoded (LoadTrace): B/op is what a read holds and drops.
func BenchmarkTraceFlat(b *testing.B) {
	st := openTestStore(b, b.TempDir(), storeT0)
	defer st.Close()
	s := engine.Defaults()
	s.Entities, s.Duration, s.Loss, s.Jitter = 40, 249, 0.02, 0.01
	tr, err := engine.SyntheticTrace(s)
	if err != nil {
		b.Fatal(err)
	}
	tr.Name = "max"
	if _, err := st.SaveTrace(tr, "csv", storeT0); err != nil {
		b.Fatal(err)
	}
	tr.Name = "max-v1"
	if _, err := st.SaveTrace(tr, "csv", storeT0); err != nil {
		b.Fatal(err)
	}
	if _, err := st.db.Exec(`UPDATE traces SET data = ? WHERE name = 'max-v1'`, encodeTraceBlobV1(tr)); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"max", "max-v1"} {
		b.Run("stream "+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, r, err := st.TraceFlat(name)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := io.Copy(io.Discard, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("load", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := st.LoadTrace("max"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Traces a lab saved in layout 1 are rewritten in layout 2 when the store
// is upgraded: they then read a block at a time, their packets bit for bit
// as saved; a damaged one is left as it was.
func TestMigrateTracesToBlocks(t *testing.T) {
	dir := t.TempDir()
	migrateTo = 10 // as a lab of step 10 left it
	defer func() { migrateTo = 0 }()
	st := openTestStore(t, dir, storeT0)
	big := bigTestTrace(t, "big")
	small := traceTestTrace(t, "small")
	for _, tr := range []*engine.Trace{big, small, traceTestTrace(t, "damaged")} {
		if _, err := st.SaveTrace(tr, "csv", storeT0); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, dbFile))
	if err != nil {
		t.Fatal(err)
	}
	v1 := map[string][]byte{"big": encodeTraceBlobV1(big), "small": encodeTraceBlobV1(small)}
	damaged := encodeTraceBlobV1(small)
	v1["damaged"] = damaged[:len(damaged)-7]
	for name, blob := range v1 {
		if _, err := db.Exec(`UPDATE traces SET data = ? WHERE name = ?`, blob, name); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	migrateTo = 0

	st = openTestStore(t, dir, storeT0)
	defer st.Close()
	for _, want := range []*engine.Trace{big, small} {
		_, blob, err := st.traceRow(want.Name, true)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(inflate(t, blob), blobMagic[:]) {
			t.Errorf("%s is still in layout 1", want.Name)
		}
		_, got, err := st.LoadTrace(want.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !sameFlat(got, want) {
			t.Errorf("%s's packets changed in the rewrite", want.Name)
		}
	}
	if _, blob, err := st.traceRow("damaged", true); err != nil || !bytes.Equal(blob, v1["damaged"]) {
		t.Errorf("the damaged trace's blob was changed (%v)", err)
	}
	if _, _, err := st.LoadTrace("damaged"); err == nil {
		t.Error("the damaged trace loads")
	}
}

// inflate returns the first bytes of blob, decompressed.
func inflate(t *testing.T, blob []byte) []byte {
	t.Helper()
	head := make([]byte, 8)
	if _, err := io.ReadFull(flate.NewReader(bytes.NewReader(blob)), head); err != nil {
		t.Fatal(err)
	}
	return head
}
