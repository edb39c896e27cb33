package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// A save that changes only the notes, while a designer changes the
// settings live, never reverts the designer's change: settings come from
// the request or the stored revision, and a save tells the live state only
// what it changed. (With one WebSocket viewer about 130 of 300 such saves
// reverted a live change: the save read the live settings before its
// write, and the hub then took the saved settings wholesale.)
func TestNotesOnlySaveNeverRevertsALiveChange(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	r := e.create(t, "live", nil)
	designer, _ := e.dial(t, r.ID)
	rev := r.Rev
	reverted := 0
	const tries = 300
	for i := 1; i <= tries && reverted < 10; i++ {
		var wg sync.WaitGroup
		wg.Go(func() {
			sendWS(t, designer, `{"type":"set","name":"seed","value":`+strconv.Itoa(i)+`}`)
		})
		var saved sessionRevisionJSON
		wg.Go(func() {
			e.must(t, http.StatusOK, "PUT", "/api/sessions/"+r.ID, map[string]any{"rev": rev, "notes": "note " + strconv.Itoa(i)}, &saved)
		})
		wg.Wait()
		rev = saved.Rev
		// Once the designer has been told of the save, both the change
		// and the save have reached the hub... or the change is still on
		// its way: give it a moment.
		for {
			if m := readWS(t, designer); m.Type == "config" && m.Rev >= rev {
				break
			}
		}
		ok := false
		for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if live, _ := e.server.hub.Live(r.ID); live.Seed == i {
				ok = true
				break
			}
		}
		if !ok {
			reverted++
		}
		time.Sleep(10 * time.Millisecond) // a designer's pace: within the set budget
	}
	if reverted > 0 {
		t.Errorf("%d of %d notes-only saves reverted a live change of the settings", reverted, tries)
	}
	// And the stored revisions never took the live, unsaved seed.
	var sess sessionJSON
	e.must(t, http.StatusOK, "GET", "/api/sessions/"+r.ID, nil, &sess)
	if sess.Settings.Seed != 1 || sess.Notes != "note "+strconv.Itoa(tries) {
		t.Errorf("latest revision: seed %d, notes %q; want the stored seed 1 and the last notes", sess.Settings.Seed, sess.Notes)
	}
}

// A save that edits an older revision than the latest is refused with 409
// and the latest revision, whether it says so in the body or in If-Match;
// a save that says nothing is refused with 428.
func TestStaleSaveConflicts(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	r := e.create(t, "shared", map[string]any{"delay": 0.1})
	var second sessionRevisionJSON
	e.must(t, http.StatusOK, "PUT", "/api/sessions/"+r.ID, map[string]any{"rev": 1, "settings": map[string]any{"delay": 0.12}, "notes": "theirs"}, &second)

	status, body := e.do(t, "PUT", "/api/sessions/"+r.ID, map[string]any{"rev": 1, "settings": map[string]any{"delay": 0.2}, "notes": "mine"})
	var conflict struct {
		Error   string
		Field   string
		Current sessionRevisionJSON
	}
	if err := json.Unmarshal(body, &conflict); err != nil {
		t.Fatal(err)
	}
	if status != http.StatusConflict || conflict.Field != "rev" || conflict.Current.Rev != 2 || conflict.Current.Notes != "theirs" || conflict.Current.Settings.Delay != 0.12 {
		t.Errorf("a save of rev 1 after rev 2 = %d %s, want 409 naming rev with revision 2", status, body)
	}

	// If-Match: the same, by header.
	req, _ := http.NewRequest("PUT", e.srv.URL+"/api/sessions/"+r.ID, jsonBody(t, map[string]any{"notes": "mine"}))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-Match", `"1"`)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Errorf("If-Match \"1\" after rev 2 = %d, want 409", resp.StatusCode)
	}
	req, _ = http.NewRequest("PUT", e.srv.URL+"/api/sessions/"+r.ID, jsonBody(t, map[string]any{"notes": "mine"}))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("If-Match", `"2"`)
	if resp, err = http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("If-Match \"2\" = %v, %v; want 200", resp.StatusCode, err)
	}
	resp.Body.Close()

	if status, body := e.do(t, "PUT", "/api/sessions/"+r.ID, map[string]any{"notes": "blind"}); status != http.StatusPreconditionRequired {
		t.Errorf("a save without a revision = %d %s, want 428", status, body)
	}
	if status, body := e.do(t, "PUT", "/api/sessions/"+r.ID, map[string]any{"rev": 0, "notes": "x"}); status != http.StatusBadRequest {
		t.Errorf("rev 0 = %d %s, want 400", status, body)
	}
}

func jsonBody(t *testing.T, v any) *bytes.Reader {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(data)
}

// The page, saving over a revision the session has moved on from, shows
// the conflict instead of overwriting: what the latest revision has against
// what it was saving; "Take theirs" puts the latest revision in the page,
// "Keep mine" saves over it.
func TestBrowserSessionConflict(t *testing.T) {
	h, st := newSessionServer(t)
	first, err := st.Create(store.Draft{Name: "shared", Notes: "base", Settings: engine.Defaults()}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	theirs := engine.Defaults()
	theirs.Delay = 0.15
	second, err := st.Save(first.ID, store.Draft{Name: "shared", Notes: "theirs", Settings: theirs}, storeT0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}

	// Revision 1's page edits revision 1: its save meets revision 2.
	b := openLabOn(t, h, "/s/"+first.ID+"/r/1")
	b.allow("status of 409 (Conflict)")
	openConflict := func() {
		t.Helper()
		b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")),
			chromedp.SetValue(chromedp.ID("save-notes"), "mine"), chromedp.Click(chromedp.ID("save-submit")))
		if !b.poll(`document.getElementById('conflict-dialog').open`, 5*time.Second) {
			t.Fatal("a save over revision 1 after revision 2: no conflict view")
		}
	}
	openConflict()
	var rows string
	b.eval(`document.getElementById('conflict-rows').innerText`, &rows)
	if !strings.Contains(rows, "delay") || !strings.Contains(rows, "150ms") || !strings.Contains(rows, "theirs") || !strings.Contains(rows, "mine") {
		t.Errorf("the conflict view shows %q, want the delay (150ms theirs, as the page writes it) and both notes", rows)
	}
	if latest, _ := st.Latest(first.ID); latest.Rev != 2 {
		t.Fatalf("after the refused save the session is at rev %d, want 2: nothing overwritten", latest.Rev)
	}

	// Take theirs: the page shows revision 2's delay.
	b.do(chromedp.Click(chromedp.ID("conflict-theirs")))
	if !b.poll(`!document.getElementById('conflict-dialog').open`, 5*time.Second) || b.controls().Delay != 0.15 {
		t.Errorf("after Take theirs the page's delay is %v, want 0.15", b.controls().Delay)
	}

	// Then, with another revision saved meanwhile, keep mine: saved over it.
	if _, err := st.Save(first.ID, store.Draft{Name: "shared", Notes: "third", Settings: theirs}, storeT0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	openConflict()
	b.do(chromedp.Click(chromedp.ID("conflict-mine")))
	var latest store.Revision
	if !waitFor(b.ctx, func() bool { latest, _ = st.Latest(first.ID); return latest.Rev == 4 }, 5*time.Second) {
		t.Fatalf("after Keep mine the session is at rev %d, want 4", latest.Rev)
	}
	if latest.Notes != "mine" || latest.Settings.Delay != 0.15 {
		t.Errorf("rev 4 has notes %q and delay %v, want mine with the delay taken from theirs (0.15)", latest.Notes, latest.Settings.Delay)
	}
	_ = second
}
