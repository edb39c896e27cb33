package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/capture"
	"interplab/cmd/lab/internal/store"
)

// kill -9 the real lab while a game streams a capture: after a restart on
// the same data directory the game resumes it, the lab holds at least
// every batch it acknowledged, and the trace holds every update once.
func TestCaptureSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the lab binary")
	}
	bin := labBinary(t)
	data := filepath.Join(t.TempDir(), "data")
	base, stop := startLab(t, bin, data)
	resp, err := http.Post(base+"/api/sessions", "application/json", strings.NewReader(`{"name":"crash"}`))
	if err != nil {
		t.Fatal(err)
	}
	var sess struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&sess)
	resp.Body.Close()

	const batches, size, entities = 60, 500, 25
	all := make([]store.CaptureUpdate, batches*size)
	for i := range all {
		step, e := i/entities, i%entities
		sent := 50 + float64(step)/30
		all[i] = store.CaptureUpdate{ID: uint32(e), Sent: sent, Arrive: sent + 0.03 + 1e-5*float64(e), Pos: [3]float64{float64(step), float64(e), 0}}
	}
	type welcome struct {
		Type, Capture, Trace, Error string
		Acked, Updates, Batch       int
	}
	connect := func(hello string) (*websocket.Conn, welcome) {
		t.Helper()
		ws := "ws" + strings.TrimPrefix(base, "http") + "/ws/sessions/" + sess.ID + "/capture"
		c, _, err := websocket.DefaultDialer.Dial(ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.WriteMessage(websocket.TextMessage, []byte(hello))
		var w welcome
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if err := c.ReadJSON(&w); err != nil || w.Type != "welcome" {
			t.Fatalf("welcome: %+v, %v", w, err)
		}
		return c, w
	}
	c, w := connect(`{"type":"hello","protocol":1,"engine":"mirror","version":"96.0.1","rate":30}`)
	acks := make(chan int, batches)
	go func() {
		for {
			var m welcome
			if err := c.ReadJSON(&m); err != nil {
				close(acks)
				return
			}
			if m.Type == "ack" {
				acks <- m.Batch
			}
		}
	}()
	acked, sent := 0, 0
	for b := 1; b <= batches/2; b++ {
		for b-acked > capture.Window {
			acked = max(acked, <-acks)
		}
		if err := c.WriteMessage(websocket.BinaryMessage, capture.AppendBatch(nil, b, 0, all[(b-1)*size:b*size])); err != nil {
			break
		}
		sent = b
	}
	// Kill the lab once it has acknowledged some, with batches in flight.
	for acked < 5 {
		acked = max(acked, <-acks)
	}
	stop()
	for a := range acks {
		acked = max(acked, a)
	}
	base, _ = startLab(t, bin, data)
	c, w2 := connect(`{"type":"hello","protocol":1,"engine":"mirror","version":"96.0.1","rate":30,"capture":"` + w.Capture + `"}`)
	defer c.Close()
	if w2.Acked < acked || w2.Acked > sent || w2.Updates != w2.Acked*size {
		t.Fatalf("after the kill: the lab holds %d batches (%d updates); it had acknowledged %d of the %d sent", w2.Acked, w2.Updates, acked, sent)
	}
	t.Logf("killed with %d batches sent and %d acknowledged; the lab kept %d", sent, acked, w2.Acked)
	for b := w2.Acked + 1; b <= batches; b++ {
		if err := c.WriteMessage(websocket.BinaryMessage, capture.AppendBatch(nil, b, 0, all[(b-1)*size:b*size])); err != nil {
			t.Fatal(err)
		}
		var m welcome
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		for m.Batch != b {
			if err := c.ReadJSON(&m); err != nil || m.Type == "error" {
				t.Fatalf("batch %d: %+v, %v", b, m, err)
			}
		}
	}
	c.WriteMessage(websocket.TextMessage, []byte(`{"type":"end"}`))
	var saved welcome
	for saved.Type != "saved" {
		if err := c.ReadJSON(&saved); err != nil {
			t.Fatal(err)
		}
	}
	if saved.Updates != len(all) {
		t.Errorf("saved %d updates, want %d", saved.Updates, len(all))
	}
}
