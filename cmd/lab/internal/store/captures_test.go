package store

import (
	"errors"
	"math"
	"testing"
	"time"

	"interplab/engine"
)

// A capture on either backend: batches stored in order (one out of order
// refused, changing nothing), read back exactly, counted, and finished
// into a trace in one transaction that removes the capture; a name a
// trace has is refused.
func TestCaptures(t *testing.T) {
	eachBackend(t, func(t *testing.T, dir string) {
		st := openTestStore(t, dir, storeT0)
		c, err := st.CreateCapture(Capture{Session: "k3v9x2m4q7ab", Name: "match-1", Engine: "mirror", Version: "96.0.1",
			Rate: 30, TimeBase: "seconds", Created: storeT0})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.CreateCapture(Capture{Session: "k3v9x2m4q7ab", Name: "match-1", Engine: "ngo", Version: "2", Rate: 30, TimeBase: "seconds", Created: storeT0}); !errors.Is(err, ErrTraceExists) {
			t.Errorf("a second capture called match-1: %v, want ErrTraceExists", err)
		}
		var all []CaptureUpdate
		batch := func(n, from, count int) CaptureBatch {
			us := make([]CaptureUpdate, count)
			for i := range us {
				k := from + i
				us[i] = CaptureUpdate{ID: uint32(k % 4), Sent: 10 + float64(k/4)*0.05, Arrive: 10.04 + float64(k/4)*0.05,
					Pos: [3]float64{float64(k), math.Pi, -1}}
				if k%3 == 0 {
					us[i].Flags, us[i].Rot = CaptureRot, [4]float64{0, 0, 0, 1}
				}
			}
			return CaptureBatch{Capture: c.ID, Batch: n, Dropped: n, Updates: us}
		}
		b1, b2 := batch(1, 0, 100), batch(2, 100, 60)
		if _, err := st.AppendCaptureBatches([]CaptureBatch{b1, b2}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.AppendCaptureBatches([]CaptureBatch{batch(4, 160, 10)}); !errors.Is(err, ErrCaptureOrder) {
			t.Errorf("batch 4 after 2: %v, want ErrCaptureOrder", err)
		}
		all = append(append(all, b1.Updates...), b2.Updates...)
		got, err := st.Capture(c.ID)
		if err != nil || got.Batches != 2 || got.Updates != 160 || got.Dropped != 2 || got.Bytes <= 0 {
			t.Errorf("Capture = %+v, %v; want 2 batches, 160 updates, 2 dropped", got, err)
		}
		var back []CaptureUpdate
		if err := st.CaptureUpdates(c.ID, func(u CaptureUpdate) error { back = append(back, u); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(back) != len(all) {
			t.Fatalf("read back %d updates, want %d", len(back), len(all))
		}
		for i := range all {
			if back[i] != all[i] {
				t.Fatalf("update %d = %+v, want %+v", i, back[i], all[i])
			}
		}
		if cs, err := st.Captures("k3v9x2m4q7ab"); err != nil || len(cs) != 1 || cs[0].ID != c.ID {
			t.Errorf("Captures = %+v, %v", cs, err)
		}
		tr := &engine.Trace{Name: "match-1", Entities: 1, Packets: []engine.TracePacket{{Sent: 1, Arrive: 1.1}}}
		if _, err := st.FinishCapture(c.ID, tr, "capture", storeT0.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := st.Capture(c.ID); !errors.Is(err, ErrCaptureNotFound) {
			t.Errorf("the capture after its finish: %v, want ErrCaptureNotFound", err)
		}
		if info, err := st.TraceInfo("match-1"); err != nil || info.Format != "capture" {
			t.Errorf("the trace: %+v, %v", info, err)
		}
		if n, err := st.CaptureBytes(); err != nil || n != 0 {
			t.Errorf("CaptureBytes after the finish = %d, %v, want 0", n, err)
		}
		if _, err := st.CreateCapture(Capture{Session: "k3v9x2m4q7ab", Name: "match-1", Engine: "mirror", Version: "1", Rate: 30, TimeBase: "seconds", Created: storeT0}); !errors.Is(err, ErrTraceExists) {
			t.Errorf("a capture named like a trace: %v, want ErrTraceExists", err)
		}
	})
}
