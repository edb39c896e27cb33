package capture

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// send streams us in batches of size from batch number first, and
// returns the next batch number.
func (c *client) send(first, size, dropped int, us []store.CaptureUpdate) int {
	c.t.Helper()
	n := first
	for start := 0; start < len(us); start += size {
		c.binary(AppendBatch(nil, n, dropped, us[start:min(len(us), start+size)]))
		n++
	}
	return n
}

// A capture becomes a trace by the protocol's rules: ids numbered in
// order of first appearance, sorted by sent, seq and missing velocities
// derived, copies kept, arrivals shifted when the clocks differ; and the
// trace equals the one the CSV of the same updates makes.
func TestCaptureBecomesTheTraceItRecorded(t *testing.T) {
	l := newLab(t, Options{})
	c := l.dial()
	c.text(`{"type":"hello","protocol":1,"engine":"geckos","version":"1.1.1","rate":20,"name":"recorded"}`)
	w := c.until("welcome")
	if w.Trace != "recorded" || w.Acked != 0 || w.Window != Window || w.MaxBatch != MaxBatch || w.Capture == "" {
		t.Fatalf("welcome = %+v", w)
	}
	q := [4]float64{0, 0, math.Sqrt(0.5), math.Sqrt(0.5)}
	id := [4]float64{0, 0, 0, 1}
	// The sender's clock is 500 s behind the client's: the arrivals are
	// shifted so that the smallest delay is 0.
	us := []store.CaptureUpdate{
		{ID: 7, Sent: 10.00, Arrive: 510.05, Pos: [3]float64{0, 0, 0}, Flags: flagRot, Rot: id},
		{ID: 9, Sent: 10.00, Arrive: 510.06, Pos: [3]float64{5, 5, 0}, Flags: flagRot, Rot: q},
		{ID: 7, Sent: 10.10, Arrive: 510.12, Pos: [3]float64{1, 0, 0}, Flags: flagRot, Rot: id},
		// Reordered: entity 9's send at 10.20 arrives before its 10.10.
		{ID: 9, Sent: 10.20, Arrive: 510.23, Pos: [3]float64{5, 7, 0}, Flags: flagRot | flagVel, Vel: [3]float64{0, 10, 0}, Rot: q},
		{ID: 9, Sent: 10.10, Arrive: 510.25, Pos: [3]float64{5, 6, 0}, Flags: flagRot, Rot: q},
		// A copy of entity 7's send at 10.10.
		{ID: 7, Sent: 10.10, Arrive: 510.26, Pos: [3]float64{1, 0, 0}, Flags: flagRot, Rot: id},
		{ID: 7, Sent: 10.30, Arrive: 510.33, Pos: [3]float64{3, 0, 0}, Flags: flagRot, Rot: id},
	}
	next := c.send(1, 3, 0, us)
	c.ackAtLeast(next - 1)
	c.text(`{"type":"end","dropped":4}`)
	saved := c.until("saved")
	if saved.Trace != "recorded" || saved.Updates != len(us) || saved.Dropped != 4 {
		t.Errorf("saved = %+v, want the trace recorded with %d updates, 4 dropped", saved, len(us))
	}
	if cl := c.read(); cl.Type != "close" || cl.closeCode != websocket.CloseNormalClosure {
		t.Errorf("after saved: %+v, want close 1000", cl)
	}
	_, got, err := l.st.LoadTrace("recorded")
	if err != nil {
		t.Fatal(err)
	}
	// The CSV a game programmer would write of the same updates.
	csv := `entity,seq,sent,arrive,x,y,z,vx,vy,vz,qx,qy,qz,qw
0,0,10,10.03,0,0,0,0,0,0,0,0,0,1
1,0,10,10.04,5,5,0,0,0,0,0,0,0.7071067811865476,0.7071067811865476
0,1,10.1,10.1,1,0,0,10,0,0,0,0,0,1
1,1,10.1,10.23,5,6,0,0,10,0,0,0,0.7071067811865476,0.7071067811865476
0,1,10.1,10.24,1,0,0,10,0,0,0,0,0,1
1,2,10.2,10.21,5,7,0,0,10,0,0,0,0.7071067811865476,0.7071067811865476
0,2,10.3,10.31,3,0,0,10,0,0,0,0,0,1
`
	want, _, err := traceio.Parse(strings.NewReader(csv), "csv", "recorded")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Packets) != len(want.Packets) || got.Entities != want.Entities {
		t.Fatalf("trace: %d packets of %d entities, want %d of %d", len(got.Packets), got.Entities, len(want.Packets), want.Entities)
	}
	for i := range want.Packets {
		g, w := got.Packets[i], want.Packets[i]
		ok := g.Entity == w.Entity && g.Seq == w.Seq && g.HasRot == w.HasRot && g.Rot == w.Rot &&
			math.Abs(g.Sent-w.Sent) < 1e-9 && math.Abs(g.Arrive-w.Arrive) < 1e-9
		for k := range 3 {
			ok = ok && math.Abs(g.Pos[k]-w.Pos[k]) < 1e-9 && math.Abs(g.Vel[k]-w.Vel[k]) < 1e-6
		}
		if !ok {
			t.Errorf("packet %d = %+v, want %+v", i, g, w)
		}
	}
	if cs, _ := l.st.Captures(l.session); len(cs) != 0 {
		t.Errorf("open captures after the save: %+v, want none", cs)
	}
}

// A lab that stops (or dies) keeps a capture up to its last acknowledged
// batch; the client resumes it with its id after the restart, sends the
// rest, and the trace holds every update once.
func TestCaptureSurvivesRestart(t *testing.T) {
	l := newLab(t, Options{})
	all := updates(0, 6000, 20)
	c := l.dial()
	c.text(helloMirror)
	w := c.until("welcome")
	next := c.send(1, 500, 0, all[:3000])
	c.ackAtLeast(next - 1)
	l.restart(Options{})
	if cl := c.read(); cl.Type != "error" && cl.Type != "close" {
		t.Fatalf("the lab's shutdown: got %+v, want an error and close 1001", cl)
	}
	c = l.dial()
	c.text(`{"type":"hello","protocol":1,"engine":"mirror","version":"96.0.1","rate":30,"capture":"` + w.Capture + `"}`)
	w2 := c.until("welcome")
	if w2.Capture != w.Capture || w2.Acked != 6 || w2.Updates != 3000 {
		t.Fatalf("resumed welcome = %+v, want capture %s, acked 6, 3000 updates", w2, w.Capture)
	}
	next = c.send(w2.Acked+1, 500, 2, all[3000:])
	c.ackAtLeast(next - 1)
	c.text(`{"type":"end"}`)
	if s := c.until("saved"); s.Updates != 6000 || s.Dropped != 2 {
		t.Errorf("saved = %+v, want 6000 updates, 2 dropped", s)
	}
	_, tr, err := l.st.LoadTrace(w.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Packets) != 6000 || tr.Entities != 20 {
		t.Errorf("trace: %d packets of %d entities, want 6000 of 20", len(tr.Packets), tr.Entities)
	}
	for i, p := range tr.Packets {
		if u := all[i]; p.Pos != u.Pos || p.Sent != u.Sent || p.Entity != int(u.ID-100) {
			t.Fatalf("packet %d = %+v, want update %+v", i, p, u)
		}
	}
}

// Bad input: each a clear error to that client and a close code saying
// what to do; what was acknowledged is kept; a client streaming beside it
// carries on.
func TestCaptureBadInput(t *testing.T) {
	l := newLab(t, Options{Quota: 3000})
	// A bystander streams all along.
	other := l.dial()
	other.text(`{"type":"hello","protocol":1,"engine":"ngo","version":"2.1.1","rate":30,"name":"bystander"}`)
	other.until("welcome")
	otherNext, otherSent := 1, 0

	cases := []struct {
		name      string
		hello     string
		started   bool                  // the hello is good: a batch of 500 is acknowledged first
		frame     func(next int) []byte // then this frame
		text      string                // or this message
		code      int
		wantError string
		field     string
	}{
		{name: "unknown version", hello: `{"type":"hello","protocol":2,"engine":"mirror","version":"96","rate":30}`,
			code: CloseVersion, wantError: "version 2 is not spoken here: this lab speaks version 1", field: "protocol"},
		{name: "hello missing rate", hello: `{"type":"hello","protocol":1,"engine":"mirror","version":"96"}`,
			code: 1007, wantError: "rate: want the capture rate in Hz", field: "rate"},
		{name: "unknown hello field", hello: `{"type":"hello","protocol":1,"engine":"mirror","version":"96","rate":30,"fps":60}`,
			code: 1007, wantError: `unknown field "fps"`, field: "fps"},
		{name: "batch before hello", frame: func(int) []byte { return AppendBatch(nil, 1, 0, updates(0, 1, 1)) },
			code: websocket.CloseUnsupportedData, wantError: "the first message must be a hello"},
		{name: "not a batch", hello: helloMirror, started: true, frame: func(int) []byte { return []byte("GET / HTTP/1.1 and so on") },
			code: 1007, wantError: `not a batch: a batch starts with the 4 bytes "ilc1"`},
		{name: "truncated batch", hello: helloMirror, started: true, frame: func(n int) []byte {
			b := AppendBatch(nil, n, 0, updates(500, 10, 5))
			return b[:len(b)-3]
		}, code: 1007, wantError: "update 9: the frame ends inside the update"},
		{name: "NaN position", hello: helloMirror, started: true, frame: func(n int) []byte {
			us := updates(500, 10, 5)
			us[4].Pos[0] = math.NaN()
			return AppendBatch(nil, n, 0, us)
		}, code: 1007, wantError: "update 4: x: NaN: want a finite number", field: "x"},
		{name: "batch number skipped", hello: helloMirror, started: true, frame: func(n int) []byte { return AppendBatch(nil, n+1, 0, updates(500, 5, 5)) },
			code: 1007, wantError: "want batch 2 next", field: "batch"},
		{name: "arrivals out of order", hello: helloMirror, started: true, frame: func(n int) []byte {
			us := updates(500, 5, 5)
			us[3].Arrive = 900
			return AppendBatch(nil, n, 0, us)
		}, code: 1007, wantError: "update 3: arrive: 900 is before the previous update's", field: "arrive"},
		{name: "a copy with another state", hello: helloMirror, started: true, frame: func(n int) []byte {
			us := updates(495, 5, 5) // the last step again, received later
			for i := range us {
				us[i].Arrive += 0.2
			}
			us[2].Pos[1] += 1
			return AppendBatch(nil, n, 0, us)
		}, code: 1007, wantError: "update 2: x: the same send (entity and sent) as an earlier update with another state", field: "x"},
		{name: "over the quota", hello: helloMirror, started: true, frame: func(n int) []byte { return AppendBatch(nil, n, 0, updates(500, 2501, 5)) },
			code: CloseQuota, wantError: "the capture would hold 3001 updates: at most 3000 (its quota)"},
		{name: "unknown message", hello: helloMirror, started: true, text: `{"type":"pause"}`,
			code: 1002, wantError: `type: "pause": after the hello a client sends batches (binary) and end`, field: "type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := l.dial()
			c.t = t
			if tc.hello != "" {
				c.text(tc.hello)
			}
			var w msg
			if tc.started {
				w = c.until("welcome")
				c.send(1, 500, 0, updates(0, 500, 5))
				c.ackAtLeast(1)
			}
			if tc.frame != nil {
				c.binary(tc.frame(2))
			}
			if tc.text != "" {
				c.text(tc.text)
			}
			e, cl := c.refused()
			if !strings.Contains(e.Error, tc.wantError) || e.Field != tc.field || cl.closeCode != tc.code {
				t.Errorf("error %q (field %q), close %d; want an error with %q (field %q), close %d",
					e.Error, e.Field, cl.closeCode, tc.wantError, tc.field, tc.code)
			}
			if tc.started {
				cp, err := l.st.Capture(w.Capture)
				if err != nil || cp.Batches != 1 || cp.Updates != 500 {
					t.Errorf("the capture after the error: %+v, %v; want its acknowledged batch of 500 kept", cp, err)
				}
			}
			// The bystander's next batch is stored as ever.
			otherNext = other.send(otherNext, 100, 0, updates(otherSent, 100, 10))
			otherSent += 100
			other.ackAtLeast(otherNext - 1)
		})
	}
	other.text(`{"type":"end"}`)
	if s := other.until("saved"); s.Updates != otherSent {
		t.Errorf("the bystander's capture saved %d updates, want %d", s.Updates, otherSent)
	}
}

// A capture over the lab's disk quota is refused, keeps what was
// acknowledged, and can be ended into a trace after a resume.
func TestCaptureDiskQuota(t *testing.T) {
	l := newLab(t, Options{DiskQuota: 1})
	c := l.dial()
	c.text(helloMirror)
	w := c.until("welcome")
	c.send(1, 500, 0, updates(0, 500, 5))
	c.ackAtLeast(1)
	c.binary(AppendBatch(nil, 2, 0, updates(500, 500, 5)))
	e, cl := c.refused()
	if cl.closeCode != CloseQuota || !strings.Contains(e.Error, "at most 1 (its disk quota, lab serve -capture-quota); what was acknowledged is kept") {
		t.Errorf("over the disk quota: error %q, close %d; want 4413 naming the quota", e.Error, cl.closeCode)
	}
	c = l.dial()
	c.text(`{"type":"hello","protocol":1,"engine":"mirror","version":"96.0.1","rate":30,"capture":"` + w.Capture + `"}`)
	if w2 := c.until("welcome"); w2.Acked != 1 || w2.Updates != 500 {
		t.Fatalf("resumed: %+v, want batch 1 of 500 updates acknowledged", w2)
	}
	c.text(`{"type":"end"}`)
	if s := c.until("saved"); s.Updates != 500 {
		t.Errorf("saved %+v, want 500 updates", s)
	}
}

// A client that outruns the store is told to slow down, and the lab
// raises its ceiling again once it has caught up.
func TestCaptureSlowDown(t *testing.T) {
	gate := &gatedStore{release: make(chan struct{}), entered: make(chan struct{}, 100)}
	l := newWrappedLab(t, Options{Queue: 4}, func(st *store.DB) Store { gate.DB = st; return gate })
	c := l.dial()
	c.text(helloMirror)
	w := c.until("welcome")
	us := updates(0, 100*Window, 10)
	// The store holds the first write until released; the batches after
	// it fill the queue, and the client is told to slow down.
	c.send(1, 100, 0, us[:100])
	<-gate.entered
	c.send(2, 100, 0, us[100:])
	slow := c.until("slow")
	if slow.Rate >= w.Rate || slow.Rate < minCeiling || slow.Reason != "the lab's writes are behind" {
		t.Errorf("slow = %+v, want a ceiling below the welcome's %d", slow, w.Rate)
	}
	close(gate.release)
	for m := c.until("slow"); m.Rate != w.Rate; m = c.until("slow") {
	}
	c.ackAtLeast(Window)
}

// A client over its ceiling is told to slow down; one over twice its
// ceiling is closed.
func TestCaptureRate(t *testing.T) {
	l := newLab(t, Options{Rate: 100})
	c := l.dial()
	c.text(helloMirror)
	if w := c.until("welcome"); w.Rate != 100 {
		t.Fatalf("welcome = %+v, want rate 100", w)
	}
	// The ceiling's bucket holds a second and a batch, 4,196 updates;
	// twice the ceiling's, 4,296: 4,096 and 150 are over the first.
	c.send(1, 4096, 0, updates(0, 4246, 10))
	if m := c.until("slow"); m.Rate != 100 || m.Reason != "over the rate" {
		t.Errorf("slow = %+v, want the ceiling 100 again, over the rate", m)
	}
	// And 100 more are over the second.
	c.send(3, 100, 0, updates(4246, 100, 10))
	e, cl := c.refused()
	if cl.closeCode != websocket.ClosePolicyViolation || !strings.Contains(e.Error, "batch 3: over twice the rate: at most 100 updates a second now") {
		t.Errorf("over twice the rate: error %q, close %d; want 1008", e.Error, cl.closeCode)
	}
}

// A client that goes beyond its window of unacknowledged batches is
// closed.
func TestCaptureWindow(t *testing.T) {
	gate := &gatedStore{release: make(chan struct{}), entered: make(chan struct{}, 100)}
	l := newWrappedLab(t, Options{}, func(st *store.DB) Store { gate.DB = st; return gate })
	defer close(gate.release)
	c := l.dial()
	c.text(helloMirror)
	c.until("welcome")
	c.send(1, 10, 0, updates(0, 10*(Window+1), 10))
	e, cl := c.refused()
	if cl.closeCode != websocket.ClosePolicyViolation || !strings.Contains(e.Error, "batch 9: 9 batches unacknowledged: at most 8 (the window)") {
		t.Errorf("over the window: error %q, close %d; want 1008 naming the window", e.Error, cl.closeCode)
	}
}

// gatedStore holds each AppendCaptureBatches until release is closed,
// and says on entered that one is waiting.
type gatedStore struct {
	*store.DB
	release, entered chan struct{}
}

func (g *gatedStore) AppendCaptureBatches(b []store.CaptureBatch) ([]int64, error) {
	g.entered <- struct{}{}
	<-g.release
	return g.DB.AppendCaptureBatches(b)
}

// A whole match: a million updates of 64 entities go through the
// protocol to disk and come back as an ordinary trace, every update in
// place.
func TestCaptureMillion(t *testing.T) {
	if testing.Short() {
		t.Skip("a million updates")
	}
	// As fast as the lab takes them: a replayed match, not a live one.
	l := newLab(t, Options{Rate: 10_000_000})
	c := l.dial()
	c.text(helloMirror)
	w := c.until("welcome")
	const n, k = 1_000_000, 64
	var frame []byte
	acked := 0
	for b, start := 1, 0; start < n; b, start = b+1, start+MaxBatch {
		for b-acked > Window {
			acked = c.until("ack").Batch
		}
		frame = AppendBatch(frame[:0], b, 0, updates(start, min(MaxBatch, n-start), k))
		c.binary(frame)
	}
	c.text(`{"type":"end"}`)
	c.wait = 5 * time.Minute // a million updates sorted, checked and compressed into a trace
	if s := c.until("saved"); s.Updates != n {
		t.Fatalf("saved = %+v, want %d updates", s, n)
	}
	_, tr, err := l.st.LoadTrace(w.Trace)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Packets) != n || tr.Entities != k {
		t.Fatalf("trace: %d packets of %d entities, want %d of %d", len(tr.Packets), tr.Entities, n, k)
	}
	for i := 0; i < n; i += 9973 {
		u := updates(i, 1, k)[0]
		if p := tr.Packets[i]; p.Pos != u.Pos || p.Sent != u.Sent || p.Arrive != u.Arrive || p.Seq != i/k {
			t.Fatalf("packet %d = %+v, want update %+v, seq %d", i, p, u, i/k)
		}
	}
	if _, err := engine.NewReplay(tr, engine.Defaults()); err != nil {
		t.Errorf("replay of the capture: %v", err)
	}
}

// A negative disk quota (lab serve -capture-quota -1) is refused, naming
// the flag.
func TestNegativeDiskQuota(t *testing.T) {
	st := openStore(t, t.TempDir())
	defer st.Close()
	if _, err := New(st, nil, Options{DiskQuota: -1}); err == nil || !strings.Contains(err.Error(), "capture-quota: -1 bytes: want 0 (no quota) or more") {
		t.Errorf("New with a disk quota of -1: %v, want the flag's error", err)
	}
}
