package server

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/capture"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// The session's page lists who is connected (its tabs, a game following
// it with its engine and version, a game capturing with its engine,
// version and capture rate) and the capture's progress; Stop capture
// makes it a saved trace, and the game is told so.
func TestGameCaptureOnSessionPage(t *testing.T) {
	h, st := newSessionServer(t)
	rev, err := st.Create(store.Draft{Name: "playtest", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, h, "/s/"+rev.ID)
	b.waitLive()
	ws := "ws" + strings.TrimPrefix(b.url, "http") + "/ws/sessions/" + rev.ID

	follower, _, err := websocket.DefaultDialer.Dial(ws+"?engine=unreal&version=5.4.4&client=lab-follow", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer follower.Close()
	game, _, err := websocket.DefaultDialer.Dial(ws+"/capture", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer game.Close()
	read := func() map[string]any {
		t.Helper()
		game.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, data, err := game.ReadMessage()
		if err != nil {
			t.Fatalf("the game's read: %v", err)
		}
		var m map[string]any
		json.Unmarshal(data, &m)
		return m
	}
	game.WriteMessage(websocket.TextMessage, []byte(`{"type":"hello","protocol":1,"engine":"mirror","version":"96.0.1","rate":30,"name":"from-the-page"}`))
	if w := read(); w["type"] != "welcome" {
		t.Fatalf("welcome: %v", w)
	}
	us := make([]store.CaptureUpdate, 300)
	for i := range us {
		sent := 100 + float64(i/3)/30
		us[i] = store.CaptureUpdate{ID: uint32(i % 3), Sent: sent, Arrive: sent + 0.04, Pos: [3]float64{float64(i), 1, 0}}
	}
	game.WriteMessage(websocket.BinaryMessage, capture.AppendBatch(nil, 1, 7, us[:150]))
	game.WriteMessage(websocket.BinaryMessage, capture.AppendBatch(nil, 2, 7, us[150:]))
	for m := read(); m["type"] != "ack" || m["batch"] != float64(2); m = read() {
	}

	b.do(chromedp.Click(chromedp.ID("clients-summary")))
	var summary string
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.getElementById('clients-summary').textContent.includes('1 capture (1 live)')`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		b.eval(`document.getElementById('clients-summary').textContent`, &summary)
		t.Fatalf("the summary says %q, want the capture: %v", summary, err)
	}
	b.eval(`document.getElementById('clients-summary').textContent`, &summary)
	if summary != "1 tab · 1 game · 1 capture (1 live)" {
		t.Errorf("summary = %q, want 1 tab · 1 game · 1 capture (1 live)", summary)
	}
	var list string
	b.eval(`document.getElementById('clients-list').innerText`, &list)
	for _, want := range []string{"lab tabs 1", "unreal 5.4.4 following · lab-follow", "mirror 96.0.1", "30 Hz · from-the-page: 300 updates stored (2 batches", "7 dropped · streaming"} {
		if !strings.Contains(strings.Join(strings.Fields(list), " "), want) {
			t.Errorf("the list of who is connected lacks %q:\n%s", want, list)
		}
	}

	var clicked bool
	b.eval(`(() => { const s = document.querySelector('#clients-list .stop-capture'); s?.click(); return !!s; })()`, &clicked)
	if !clicked {
		t.Fatal("no Stop capture button")
	}
	if m := read(); m["type"] != "saved" || m["trace"] != "from-the-page" || m["updates"] != float64(300) || m["dropped"] != float64(7) {
		t.Errorf("the game was told %v, want saved from-the-page, 300 updates, 7 dropped", m)
	}
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`!!document.querySelector('#clients-list a.saved-trace')`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		b.eval(`document.getElementById('clients-list').innerText`, &list)
		t.Fatalf("no link to the saved trace on the page: %v\n%s", err, list)
	}
	var href string
	b.eval(`document.querySelector('#clients-list a.saved-trace').getAttribute('href')`, &href)
	if href != "/?trace=from-the-page" {
		t.Errorf("the saved trace's link = %q, want /?trace=from-the-page", href)
	}
	info, tr, err := st.LoadTrace("from-the-page")
	if err != nil || len(tr.Packets) != 300 || tr.Entities != 3 || info.Format != "capture" {
		t.Fatalf("the saved trace: %+v, %v", info, err)
	}
	// It is an ordinary trace: the lab replays it.
	b.navigate(href)
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.body.innerText.includes('from-the-page')`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Errorf("the lab page does not replay the capture's trace: %v", err)
	}
	b.finish()
}
