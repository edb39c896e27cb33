package live

import (
	"math"
	"testing"

	"interplab/cmd/lab/internal/traceio"
	"interplab/engine/geom"
)

// A game on its own clock gets its arrivals shifted: no latency, the
// jitter kept.
func TestLiveTraceOtherClock(t *testing.T) {
	var rows []traceio.Row
	for k := range 30 {
		rows = append(rows, traceio.Row{Line: k + 1, Seq: k, Sent: 0.05 * float64(k),
			Arrive: 1.7e9 + 0.05*float64(k) + 0.001*float64(k%3), Vel: geom.Vec3{1, 0, 0}})
	}
	tr, err := TraceFrom(rows, "own-clock")
	if err != nil {
		t.Fatal(err)
	}
	e := tr.Network()
	// The delays are now 0, 1 and 2 ms: the fit puts the latency near 0
	// and the mean above it near 1 ms.
	if math.Abs(e.Latency) > 2e-4 || math.Abs(e.Jitter-0.001) > 1e-4 {
		t.Errorf("network = latency %v jitter %v, want 0 and 1 ms, ± 0.1 ms", e.Latency, e.Jitter)
	}
}

func TestLiveTraceRing(t *testing.T) {
	var lt liveTrace
	for k := range LiveTraceCap + 10 {
		lt.add(traceio.Row{Seq: k, Sent: float64(k)}, LiveTraceCap)
	}
	rows := lt.rows()
	if len(rows) != LiveTraceCap || rows[0].Seq != 10 || rows[0].Line != 11 || rows[len(rows)-1].Seq != LiveTraceCap+9 {
		t.Errorf("rows = %d from seq %d (line %d) to %d, want %d from 10 (line 11) to %d",
			len(rows), rows[0].Seq, rows[0].Line, rows[len(rows)-1].Seq, LiveTraceCap, LiveTraceCap+9)
	}
}

// Whatever a game sends as a packet, checking it never panics, and a
// packet it accepts makes a valid trace.
func FuzzLivePacket(f *testing.F) {
	for _, seed := range []string{
		`{"type":"packet","entity":0,"sent":1.5,"pos":[1,2,3],"vel":[0,0,0],"rot":[0,0,0,1]}`,
		`{"type":"packet","seq":4,"sent":-3,"pos":[0,0,0],"vel":[1e7,0,0]}`,
		`{"type":"packet","sent":1,"pos":[0,0,0],"vel":[0,0,0],"rot":[0,0,1,0.01]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		m, err := wsDecode(frame)
		if err != nil || m.Type != "packet" {
			return
		}
		var lt liveTrace
		row, err := lt.check(&m)
		if err != nil {
			return
		}
		row.Arrive = row.Sent + 0.01
		lt.add(row, LiveTraceCap)
		if _, err := TraceFrom(lt.rows(), "fuzz"); err != nil {
			t.Fatalf("an accepted packet makes no trace: %v", err)
		}
	})
}
