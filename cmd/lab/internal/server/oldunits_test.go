package server

import (
	"html"
	"net/http"
	"strings"
	"testing"
)

// A link with plain numbers an older link meant in seconds or fractions
// opens with a note naming each and a link to the values it meant; the
// lab reads the link by the rule meanwhile, and a link the lab writes gets
// no note.
func TestPageNotesOldUnits(t *testing.T) {
	_, ts := newTestServer(t, false)
	page := func(path string) string {
		t.Helper()
		resp, body := get(t, ts.URL+path)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %s", path, resp.Status)
		}
		return html.UnescapeString(string(body))
	}
	body := page("/?preset=mirror-30hz&latency=0.08&loss=0.02")
	for _, want := range []string{
		`id="unit-notes"`,
		"latency=0.08 reads as 0.08 ms; a link made before plain numbers were in ms held seconds there, and meant 80ms",
		"loss=0.02 reads as 0.02 %; a link made before plain numbers were in % held fractions there, and meant 2%",
		`href="/?latency=80ms&loss=2%25&preset=mirror-30hz"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if older := page("/?latency=80ms&loss=2%25&preset=mirror-30hz"); strings.Contains(older, `id="unit-notes"`) {
		t.Error("the older link's page has the note too")
	}
	if plain := page("/?preset=mirror-30hz&latency=80"); strings.Contains(plain, `id="unit-notes"`) {
		t.Error("a link in display units has the note")
	}
}
