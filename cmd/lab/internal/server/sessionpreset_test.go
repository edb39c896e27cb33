package server

import (
	"html"
	"net/url"
	"regexp"
	"testing"
	"time"

	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

// TestSessionPageNamesItsPreset: a session saved from a library preset
// shows that preset in the picker, not "(defaults)", and its export and
// study links start from it; the session's address carries no preset (it
// holds only unsaved changes), a query that names one is refused, and an
// edit is read as one edit.
func TestSessionPageNamesItsPreset(t *testing.T) {
	ts, st, e := newPagesServer(t)
	p, err := presets.Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	tuned := p.Settings
	tuned.MirrorSettings.BufferTimeMultiplier = 2.5
	tuned.Jitter = 0.02
	plain := engine.Defaults()
	plain.Latency = 0.08
	selected := regexp.MustCompile(`<option value="([^"]*)"[^>]*selected`)
	exportHref := regexp.MustCompile(`id="export-json"[^>]*href="([^"]*)"`)
	edits := regexp.MustCompile(`data-edits="([^"]*)"`)
	for _, c := range []struct {
		name   string
		s      engine.Settings
		preset string
	}{{"from mirror-30hz", tuned, "mirror-30hz"}, {"from the defaults", plain, ""}} {
		sess, err := st.Create(store.Draft{Name: c.name, Settings: c.s}, e.clock())
		if err != nil {
			t.Fatal(err)
		}
		_, page := get(t, ts.URL+"/s/"+sess.ID)
		m := selected.FindSubmatch(page)
		if m == nil || string(m[1]) != c.preset {
			t.Errorf("%s: the picker selects %q, want %q", c.name, m, c.preset)
		}
		// The exports start from the preset: the preset and what differs.
		h := exportHref.FindSubmatch(page)
		if h == nil {
			t.Fatalf("%s: no JSON export link", c.name)
		}
		u, err := url.Parse(html.UnescapeString(string(h[1])))
		if err != nil {
			t.Fatal(err)
		}
		q := u.Query()
		q.Del("format")
		q.Del("from")
		if got, want := q.Encode(), mustQuery(t, link.Query(c.preset, c.s)).Encode(); got != want {
			t.Errorf("%s: the export link's settings = %s, want %s", c.name, got, want)
		}
		// A preset on the session's query is refused, not read as an address.
		_, page = get(t, ts.URL+"/s/"+sess.ID+"?"+link.Query(c.preset, c.s))
		if g := edits.FindSubmatch(page); c.preset != "" && (g == nil || len(g[1]) != 0 ||
			!regexp.MustCompile(`preset = .*/\?preset=NAME`).Match(page)) {
			t.Errorf("%s: /s/ID?preset=… reads as edits %q, or its refusal is missing", c.name, g)
		}
		// An edit is one edit.
		_, page = get(t, ts.URL+"/s/"+sess.ID+"?loss=1%25")
		if g := edits.FindSubmatch(page); g == nil || html.UnescapeString(string(g[1])) != "loss=1%25" {
			t.Errorf("%s: /s/ID?loss=1%%25 reads as edits %q, want loss=1%%25", c.name, g)
		}
	}
}

// mustQuery parses a query the test built.
func mustQuery(t *testing.T, q string) url.Values {
	t.Helper()
	v, err := url.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestBrowserSessionNamesItsPreset: in the browser, a session saved from a
// library preset opens on that preset with no unsaved change and an
// address that carries neither (/s/ID); an edit puts only itself in the
// address, and the exports are headed with the session's name and revision.
func TestBrowserSessionNamesItsPreset(t *testing.T) {
	browserInstalled(t)
	srv, st := testServer(t, browserAssets(t), t.TempDir(), nil)
	p, err := presets.Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	tuned := p.Settings
	tuned.MirrorSettings.BufferTimeMultiplier = 2.5
	sess, err := st.Create(store.Draft{Name: "mirror game", Settings: tuned}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, srv, "/s/"+sess.ID)
	var got struct {
		Preset, Search, Export string
		Unsaved                bool
	}
	const read = `({Preset: document.getElementById('preset').value, Search: location.search,
		Unsaved: !document.getElementById('unsaved').hidden, Export: document.getElementById('export-mirror').href})`
	b.eval(read, &got)
	if got.Preset != "mirror-30hz" || got.Unsaved || got.Search != "" {
		t.Errorf("session page: preset %q, unsaved %v, address query %q; want mirror-30hz, nothing unsaved, none", got.Preset, got.Unsaved, got.Search)
	}
	resp, body := get(t, got.Export)
	if resp.StatusCode != 200 || !regexp.MustCompile(`\(session "mirror game" rev 1\)`).Match(body) {
		t.Errorf("the session's mirror export = %s: %.300s; want it headed with the session", resp.Status, body)
	}
	b.typeInto("loss", "1")
	if !b.poll(`!document.getElementById('unsaved').hidden && location.search === '?loss=1%25'`, 5*time.Second) {
		b.eval(read, &got)
		t.Errorf("after loss = 1 %%: address query %q, preset %q; want ?loss=1%%25 alone", got.Search, got.Preset)
	}
	b.eval(read, &got)
	if got.Preset != "mirror-30hz" {
		t.Errorf("after an edit the picker shows %q, want mirror-30hz", got.Preset)
	}
	resp, body = get(t, got.Export)
	if resp.StatusCode != 200 || !regexp.MustCompile(`\(session "mirror game" rev 1, with unsaved changes\)`).Match(body) {
		t.Errorf("the mirror export with an edit = %s: %.300s; want it headed with the session and its unsaved changes", resp.Status, body)
	}
}
