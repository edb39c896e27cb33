package server

import (
	"html"
	"net/url"
	"regexp"
	"testing"

	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/presets"
)

// TestSessionPageNamesItsPreset: a session saved from a library preset
// shows that preset in the picker, not "(defaults)", and the address the
// page keeps (the preset and what differs from it) reads back as no edit.
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
		// The page's own address: the preset, then what differs from it.
		q := link.Query(c.preset, c.s)
		_, page = get(t, ts.URL+"/s/"+sess.ID+"?"+q)
		edits := regexp.MustCompile(`data-edits="([^"]*)"`).FindSubmatch(page)
		if edits == nil || len(edits[1]) != 0 || regexp.MustCompile(`<div id="errors"[^>]*hidden`).Find(page) == nil {
			t.Errorf("%s: /s/ID?%s reads as edits %q or errors, want neither", c.name, q, edits)
		}
		// An edit on top of the preset's address is one edit.
		q2, _ := url.ParseQuery(q)
		q2.Set("loss", "0.01")
		_, page = get(t, ts.URL+"/s/"+sess.ID+"?"+q2.Encode())
		edits = regexp.MustCompile(`data-edits="([^"]*)"`).FindSubmatch(page)
		if edits == nil || html.UnescapeString(string(edits[1])) != "loss=0.01" {
			t.Errorf("%s: /s/ID?%s reads as edits %q, want loss=0.01", c.name, q2.Encode(), edits)
		}
	}
}

// TestBrowserSessionNamesItsPreset: in the browser, a session saved from a
// library preset opens on that preset, with no unsaved change, and its
// exports are headed with the session's name and revision.
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
	if got.Preset != "mirror-30hz" || got.Unsaved {
		t.Errorf("session page: preset %q, unsaved %v; want mirror-30hz and nothing unsaved", got.Preset, got.Unsaved)
	}
	b.navigate("/s/" + sess.ID + got.Search) // the address the page keeps reads back the same
	b.eval(read, &got)
	if got.Preset != "mirror-30hz" || got.Unsaved {
		t.Errorf("session page reopened at %s: preset %q, unsaved %v; want mirror-30hz and nothing unsaved", got.Search, got.Preset, got.Unsaved)
	}
	resp, body := get(t, got.Export)
	if resp.StatusCode != 200 || !regexp.MustCompile(`\(session "mirror game" rev 1\)`).Match(body) {
		t.Errorf("the session's mirror export = %s: %.300s; want it headed with the session", resp.Status, body)
	}
}
