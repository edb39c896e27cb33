package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// TestSessionSaveWithoutChange: a save that changes nothing answers 200
// with the revision it edited, says it changed nothing, and makes no
// revision; the next real change is the next revision.
func TestSessionSaveWithoutChange(t *testing.T) {
	e := newSessionsEnv(t, t.TempDir())
	var r1 sessionRevisionJSON
	e.must(t, http.StatusCreated, "POST", "/api/sessions", `{"name":"Harbor","notes":"n","settings":{"latency":0.08}}`, &r1)
	path := "/api/sessions/" + r1.ID

	for _, body := range []map[string]any{
		{"rev": 1},
		{"rev": 1, "name": "Harbor", "notes": "n", "settings": map[string]any{"latency": 0.08}},
	} {
		status, data := e.do(t, "PUT", path, body)
		var got struct {
			sessionRevisionJSON
			Unchanged bool `json:"unchanged"`
		}
		json.Unmarshal(data, &got)
		if status != http.StatusOK || got.Rev != 1 || !got.Unchanged || got.Name != "Harbor" {
			t.Errorf("PUT %v = %d %s, want 200 with revision 1, unchanged", body, status, data)
		}
	}
	var s sessionJSON
	e.must(t, http.StatusOK, "GET", path, nil, &s)
	if s.Rev != 1 || len(s.Revisions) != 1 {
		t.Errorf("after saves without change: rev %d, %d revisions; want 1, 1", s.Rev, len(s.Revisions))
	}
	status, data := e.do(t, "PUT", path, map[string]any{"rev": 1, "settings": map[string]any{"latency": 0.09}})
	var r2 struct {
		sessionRevisionJSON
		Unchanged *bool `json:"unchanged"`
	}
	json.Unmarshal(data, &r2)
	if status != http.StatusOK || r2.Rev != 2 || r2.Unchanged != nil {
		t.Errorf("PUT a change = %d %s, want 200 with revision 2 and no unchanged flag", status, data)
	}
}

// TestBrowserSaveWithoutChange: Save on a session page with nothing changed
// says so in the session bar and stays at the same revision; a change is
// saved as the next one.
func TestBrowserSaveWithoutChange(t *testing.T) {
	browserInstalled(t)
	srv, st := testServer(t, browserAssets(t), t.TempDir(), nil)
	sess, err := st.Create(store.Draft{Name: "steady", Settings: engine.Defaults()}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, srv, "/s/"+sess.ID)
	const status = `(() => { const e = document.getElementById('save-status'); return e.hidden ? '' : e.textContent })()`
	b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")), chromedp.Click(chromedp.ID("save-submit")))
	if !b.poll(status+` === 'nothing changed: still rev 1'`, 10*time.Second) {
		var got string
		b.eval(status, &got)
		t.Errorf("save without a change: status %q, want %q", got, "nothing changed: still rev 1")
	}
	b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")),
		chromedp.SetValue(chromedp.ID("save-name"), "steady, renamed"), chromedp.Click(chromedp.ID("save-submit")))
	if !b.poll(status+` === 'saved as rev 2'`, 10*time.Second) {
		var got string
		b.eval(status, &got)
		t.Errorf("save of a rename: status %q, want %q", got, "saved as rev 2")
	}
	if s, err := st.Get(sess.ID); err != nil || len(s.History) != 2 {
		t.Errorf("after both saves: %d revisions (%v), want 2", len(s.History), err)
	}
}
