package unrealrc

import (
	"context"
	"flag"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/server"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

// TestFollowSetsTheEditor follows a real lab's session as lab follow
// -unreal does: the session's knobs reach both characters of the editor
// fixture, and a designer's set from a browser-side WebSocket reaches them
// as one write per character.
func TestFollowSetsTheEditor(t *testing.T) {
	list, err := presets.All()
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.TempDir(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv, err := server.New(server.Deps{Presets: list, Assets: fstest.MapFS{}, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	lab := httptest.NewServer(srv)
	t.Cleanup(lab.Close)
	s := engine.Defaults()
	s.NetworkSimulatedSmoothLocationTime = 0.12
	r, err := st.Create(store.Draft{Name: "unreal", Settings: s}, time.Now())
	if err != nil {
		t.Fatal(err)
	}

	e := newRCEditor(t, hero, rival)
	fs := flag.NewFlagSet("follow", flag.ContinueOnError)
	f := AddFlags(fs)
	if err := fs.Parse([]string{"-unreal", e.srv.URL, "-unreal-object", hero, "-unreal-object", rival}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var log syncBuffer
	out, stop, err := f.Start(ctx, io.Discard, &log)
	if err != nil {
		t.Fatal(err)
	}
	wsURL, err := live.FollowURL(lab.URL + "/s/" + r.ID)
	if err != nil {
		t.Fatal(err)
	}
	follower := live.Follower{URL: wsURL, Stdout: out, Stderr: &log, MinWait: 10 * time.Millisecond, MaxWait: time.Second, Jitter: rand.Int64N}
	done := make(chan error, 1)
	go func() { done <- stop(follower.Run(ctx)) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("follow: %v", err)
		}
	}()

	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within 10 s; log:\n%s", what, log.String())
			}
		}
	}
	waitFor("the session's config on both characters", func() bool { return e.count() >= 10 })
	if v := e.value(rival, "NetworkSimulatedSmoothLocationTime"); v != 0.12 {
		t.Errorf("NetworkSimulatedSmoothLocationTime = %v, want the session's 0.12", v)
	}
	time.Sleep(50 * time.Millisecond) // nothing more is to come
	if n := len(e.writes()); n != 10 {
		t.Errorf("the first config made %d writes, want 5 properties × 2 characters", n)
	}

	designer, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(lab.URL, "http")+"/ws/sessions/"+r.ID, http.Header{"Origin": {lab.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer designer.Close()
	if err := designer.WriteJSON(map[string]any{"type": "set", "name": "unreal.networkSmoothingMode", "value": "linear"}); err != nil {
		t.Fatal(err)
	}
	waitFor("the designer's set on both characters", func() bool { return e.value(rival, "NetworkSmoothingMode") == "Linear" })
	time.Sleep(50 * time.Millisecond)
	if got := e.writes(); len(got) != 2 {
		t.Errorf("one set made writes\n%s\nwant NetworkSmoothingMode on each character only", strings.Join(got, "\n"))
	}
}
