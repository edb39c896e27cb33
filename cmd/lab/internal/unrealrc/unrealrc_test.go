package unrealrc

import (
	"bytes"
	"context"
	"flag"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"interplab/engine"
)

// syncBuffer is a bytes.Buffer safe for the pusher's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

const (
	hero  = "/Game/Maps/Arena.Arena:PersistentLevel.BP_Hero_C_0.CharMoveComp"
	rival = "/Game/Maps/Arena.Arena:PersistentLevel.BP_Hero_C_1.CharMoveComp"
)

// startPusher runs a pusher of objs on e until the end of the test.
func startPusher(t *testing.T, e *rcEditor, access string, log io.Writer, objs ...string) *Pusher {
	p := NewPusher(e.srv.URL, objs, access, log, 5*time.Millisecond, 20*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return p
}

// TestPusherSetsWhatChanged: the first settings set every property on every
// object, with the exact bodies of Epic's reference; later settings send
// only the properties that changed, and the same settings nothing.
func TestPusherSetsWhatChanged(t *testing.T) {
	e := newRCEditor(t, hero, rival)
	p := startPusher(t, e, WriteAccess, io.Discard, hero, rival)
	s := engine.Defaults()
	s.NetworkSmoothingMode, s.NetworkSimulatedSmoothLocationTime, s.NetworkMaxSmoothUpdateDistance = "linear", 0.15, 300
	p.Push(s)
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	got := e.writes()
	want := []string{
		`{"objectPath":"` + hero + `","access":"WRITE_ACCESS","propertyName":"NetworkSmoothingMode","propertyValue":{"NetworkSmoothingMode":"Linear"}}`,
		`{"objectPath":"` + hero + `","access":"WRITE_ACCESS","propertyName":"NetworkSimulatedSmoothLocationTime","propertyValue":{"NetworkSimulatedSmoothLocationTime":0.15}}`,
		`{"objectPath":"` + hero + `","access":"WRITE_ACCESS","propertyName":"NetworkSimulatedSmoothRotationTime","propertyValue":{"NetworkSimulatedSmoothRotationTime":0.05}}`,
		`{"objectPath":"` + hero + `","access":"WRITE_ACCESS","propertyName":"NetworkMaxSmoothUpdateDistance","propertyValue":{"NetworkMaxSmoothUpdateDistance":300}}`,
		`{"objectPath":"` + hero + `","access":"WRITE_ACCESS","propertyName":"NetworkNoSmoothUpdateDistance","propertyValue":{"NetworkNoSmoothUpdateDistance":384}}`,
	}
	if len(got) != 10 {
		t.Fatalf("first settings: %d writes, want 5 properties × 2 objects:\n%s", len(got), strings.Join(got, "\n"))
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("write %d = %s, want %s", i, got[i], w)
		}
	}
	for _, obj := range []string{hero, rival} {
		if v := e.value(obj, "NetworkSmoothingMode"); v != "Linear" {
			t.Errorf("%s NetworkSmoothingMode = %v, want Linear", obj, v)
		}
		if v := e.value(obj, "NetworkMaxSmoothUpdateDistance"); v != 300.0 {
			t.Errorf("%s NetworkMaxSmoothUpdateDistance = %v, want 300 (cm)", obj, v)
		}
	}

	s.NetworkSimulatedSmoothRotationTime = 0.08
	p.Push(s)
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	got = e.writes()
	if len(got) != 2 || !strings.Contains(got[0], `"propertyValue":{"NetworkSimulatedSmoothRotationTime":0.08}`) || !strings.Contains(got[1], rival) {
		t.Errorf("one knob changed: writes\n%s\nwant NetworkSimulatedSmoothRotationTime = 0.08 on each object only", strings.Join(got, "\n"))
	}
	p.Push(s)
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if got = e.writes(); len(got) != 0 {
		t.Errorf("the same settings again: writes\n%s\nwant none", strings.Join(got, "\n"))
	}
}

// TestPusherTransactionAccess: -unreal-transaction writes with
// WRITE_TRANSACTION_ACCESS, which the editor's Undo reverts.
func TestPusherTransactionAccess(t *testing.T) {
	e := newRCEditor(t, hero)
	p := startPusher(t, e, WriteTransactionAccess, io.Discard, hero)
	p.Push(engine.Defaults())
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	for _, b := range e.writes() {
		if !strings.Contains(b, `"access":"WRITE_TRANSACTION_ACCESS"`) {
			t.Errorf("write %s: want WRITE_TRANSACTION_ACCESS", b)
		}
	}
}

// TestPusherLogsRefusals: a property the editor refuses is one log line
// naming it, its value, the lab parameter, the object and the editor's
// reason; the other properties and objects are set; the refused value is
// not sent again, a new one is.
func TestPusherLogsRefusals(t *testing.T) {
	e := newRCEditor(t, hero)
	e.readOnly["NetworkNoSmoothUpdateDistance"] = true
	var log syncBuffer
	p := startPusher(t, e, WriteAccess, &log, hero, "/Game/Maps/Arena.Arena:PersistentLevel.Gone_0.CharMoveComp")
	s := engine.Defaults()
	s.NetworkNoSmoothUpdateDistance, s.NetworkSimulatedSmoothLocationTime = 500, 0.2
	p.Push(s)
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	out := log.String()
	for _, want := range []string{
		"lab follow: unreal refused NetworkNoSmoothUpdateDistance = 500 (unreal.networkNoSmoothUpdateDistance) on " + hero + ": 400 Bad Request: Property NetworkNoSmoothUpdateDistance is not writable through Remote Control\n",
		"lab follow: unreal refused NetworkSmoothingMode = \"Exponential\" (unreal.networkSmoothingMode) on /Game/Maps/Arena.Arena:PersistentLevel.Gone_0.CharMoveComp: 400 Bad Request: Object /Game/Maps/Arena.Arena:PersistentLevel.Gone_0.CharMoveComp could not be resolved\n",
		"lab follow: unreal: set NetworkSimulatedSmoothLocationTime = 0.2 on " + hero + "\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if v := e.value(hero, "NetworkSimulatedSmoothLocationTime"); v != 0.2 {
		t.Errorf("NetworkSimulatedSmoothLocationTime = %v beside a refusal, want 0.2", v)
	}
	e.writes()
	s.NetworkSimulatedSmoothRotationTime = 0.07
	p.Push(s)
	p.Wait(5 * time.Second)
	for _, b := range e.writes() {
		if strings.Contains(b, `"NetworkNoSmoothUpdateDistance":500`) {
			t.Errorf("the refused value was sent again: %s", b)
		}
	}
	s.NetworkNoSmoothUpdateDistance = 600
	p.Push(s)
	p.Wait(5 * time.Second)
	if got := e.writes(); !strings.Contains(strings.Join(got, "\n"), `"NetworkNoSmoothUpdateDistance":600`) {
		t.Errorf("a new value of a refused property was not sent: %v", got)
	}
}

// TestPusherRetries: an editor that fails (5xx) is asked again with
// backoff, with the newest settings, until they are set.
func TestPusherRetries(t *testing.T) {
	e := newRCEditor(t, hero)
	e.fail = 3
	var log syncBuffer
	p := startPusher(t, e, WriteAccess, &log, hero)
	s := engine.Defaults()
	s.NetworkSmoothingMode = "disabled"
	p.Push(s)
	s.NetworkSmoothingMode = "linear"
	p.Push(s)
	if err := p.Wait(5 * time.Second); err != nil {
		t.Fatalf("after retries: %v\n%s", err, log.String())
	}
	if v := e.value(hero, "NetworkSmoothingMode"); v != "Linear" {
		t.Errorf("NetworkSmoothingMode = %v, want the newest, Linear", v)
	}
	if n := strings.Count(log.String(), "503 Service Unavailable: editor busy; retrying in"); n != 3 {
		t.Errorf("%d retry lines, want 3:\n%s", n, log.String())
	}
}

// TestPusherUnreachable: an editor that does not answer leaves Wait with
// an error saying the settings are not set.
func TestPusherUnreachable(t *testing.T) {
	e := newRCEditor(t, hero)
	e.srv.Close()
	p := startPusher(t, e, WriteAccess, io.Discard, hero)
	p.Push(engine.Defaults())
	err := p.Wait(200 * time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "not all set") || !strings.Contains(err.Error(), "PUT "+e.srv.URL+"/remote/object/property") {
		t.Errorf("Wait on an editor that is down = %v, want the settings not set and the failed PUT", err)
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		args []string
		want string // in the error; "" for none
	}{
		{nil, ""},
		{[]string{"-unreal", "http://127.0.0.1:30010", "-unreal-object", hero}, ""},
		{[]string{"-unreal", "http://127.0.0.1:30010"}, "at least one -unreal-object"},
		{[]string{"-unreal-object", hero}, "need -unreal URL"},
		{[]string{"-unreal", "ftp://127.0.0.1:30010", "-unreal-object", hero}, "want the Remote Control API's http://host:port"},
		{[]string{"-unreal", "http://127.0.0.1:30010/remote/object/property", "-unreal-object", hero}, "want the Remote Control API's http://host:port"},
		{[]string{"-unreal", "http://127.0.0.1:30010", "-unreal-object", "BP_Hero_C_0"}, "want an Unreal object path"},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("follow", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		f := AddFlags(fs)
		err := fs.Parse(tt.args)
		var stop func(error) error
		if err == nil {
			_, stop, err = f.Start(context.Background(), io.Discard, io.Discard)
		}
		if stop != nil {
			stop(nil)
		}
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
