package server

// Real-browser tests of saved sessions on the lab page: live sync between
// tabs and a game, Save, the history and sessions pages, and the Compare
// link (harness in browser_harness_test.go).

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/templates"
)

// syncWithin is how soon a change in one tab must show in the others.
const syncWithin = time.Second

// newSessionServer returns the lab's server with this run's wasm and a
// fresh store, and the store.
func newSessionServer(t *testing.T) (*Server, *store.SQLite) {
	t.Helper()
	browserInstalled(t)
	return testServer(t, browserAssets(t), t.TempDir(), nil)
}

// waitLive waits until the page's live sync is connected.
func (b *labTab) waitLive() {
	b.t.Helper()
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](`document.getElementById('sync-state')?.dataset.state === 'live'`,
		chromedp.WithPollingTimeout(10*time.Second))); err != nil {
		var state string
		b.eval(`document.getElementById('sync-state')?.dataset.state ?? 'no indicator'`, &state)
		b.t.Fatalf("live sync not connected (state %q): %v", state, err)
	}
}

// gameMsg is a live sync message as a game sees it: decoded, and the raw
// config settings to check that every key is there.
type gameMsg struct {
	wsTestMsg
	raw map[string]json.RawMessage
}

// gameFeed is a game's connection, read by a goroutine of its own, so that
// a test can wait for a message or for a time without one.
type gameFeed struct {
	msgs chan []byte
	errc chan error
}

// feed starts reading c until it fails or closes.
func feed(c *websocket.Conn) *gameFeed {
	f := &gameFeed{msgs: make(chan []byte, 64), errc: make(chan error, 1)}
	go func() {
		for {
			_, data, err := c.ReadMessage()
			if err != nil {
				f.errc <- err
				return
			}
			f.msgs <- data
		}
	}()
	return f
}

// read returns the game's next message, waiting up to within.
func (f *gameFeed) read(t *testing.T, within time.Duration) gameMsg {
	t.Helper()
	var data []byte
	select {
	case data = <-f.msgs:
	case err := <-f.errc:
		t.Fatalf("game: read: %v", err)
	case <-time.After(within):
		t.Fatalf("game: no message within %v", within)
	}
	var m gameMsg
	var raw struct {
		Config struct {
			Settings map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &m.wsTestMsg); err != nil {
		t.Fatalf("game: decode %s: %v", data, err)
	}
	json.Unmarshal(data, &raw)
	m.raw = raw.Config.Settings
	return m
}

// quiet checks that the game gets no message for d.
func (f *gameFeed) quiet(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case data := <-f.msgs:
		t.Errorf("game got %s, want nothing", data)
	case <-time.After(d):
	}
}

// checkFullConfig checks that m is a config carrying every setting of the
// vocabulary, equal to want.
func checkFullConfig(t *testing.T, what string, m gameMsg, want engine.Settings) {
	t.Helper()
	if m.Type != "config" {
		t.Fatalf("%s: game got %q, want a config", what, m.Type)
	}
	for _, p := range engine.Params() {
		if _, ok := m.raw[p.Name]; !ok {
			t.Errorf("%s: the game's config lacks %s", what, p.Name)
		}
	}
	if diffs := settingsMismatch(m.Config.Settings, want); len(diffs) > 0 {
		t.Errorf("%s: the game's config differs: %v", what, diffs)
	}
}

// TestBrowserSessionLiveSync opens one session in two tabs, with a game
// following it: a slider moved in one tab moves the other tab's slider, its
// engine and its address within a second, the game gets the full config,
// and nothing is echoed back.
func TestBrowserSessionLiveSync(t *testing.T) {
	h, st := newSessionServer(t)
	start := engine.Defaults()
	start.Entities = 4
	rev, err := st.Create(store.Draft{Name: "sync", Settings: start}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	path := "/s/" + rev.ID
	a := openLabOn(t, h, path)
	b := a.newTab(path)
	a.waitLive()
	b.waitLive()
	for _, tab := range []*labTab{a, b} {
		if diffs := settingsMismatch(tab.controls(), start); len(diffs) > 0 {
			t.Errorf("a tab on %s starts away from the session: %v", path, diffs)
		}
	}

	conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(a.url, "http")+"/ws/sessions/"+rev.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	game := feed(conn)
	checkFullConfig(t, "on connect", game.read(t, 5*time.Second), start)

	// Tab a: PageUp moves latency a tenth of its range, 50 → 150 ms.
	want := start
	want.Latency = 0.15
	began := time.Now()
	a.do(chromedp.Focus(chromedp.ID("p-latency")), chromedp.KeyEvent(kb.PageUp))
	if !b.poll(`document.getElementById('p-latency').value === '0.15' && lab.settings().latency === '150ms' &&
		new URLSearchParams(location.search).get('latency') === '150ms'`, syncWithin) {
		var got struct {
			Slider, Engine, Location string
		}
		b.eval(`({slider: document.getElementById('p-latency').value, engine: lab.settings().latency, location: location.pathname + location.search})`, &got)
		t.Fatalf("tab b %v after tab a moved latency to 0.15: slider %s, engine %s, address %s", time.Since(began), got.Slider, got.Engine, got.Location)
	}
	t.Logf("tab b followed tab a in %v", time.Since(began))
	// A session page's address carries only what differs from the saved
	// revision: the live latency, not the session's own entities=4.
	if loc := b.location(); loc != path+"?latency=150ms" {
		t.Errorf("tab b's address = %s, want %s?latency=150ms", loc, path)
	}
	set := game.read(t, syncWithin)
	if set.Type != "set" || set.Name != "latency" || set.Value != 0.15 {
		t.Errorf("game got %+v, want set latency 0.15", set.wsTestMsg)
	}
	checkFullConfig(t, "after the change", game.read(t, syncWithin), want)

	// Tab b: a select; tab a follows, and no tab sends anything back.
	want.Motion = "circle"
	b.do(chromedp.SetValue(chromedp.ID("p-motion"), "circle"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('p-motion').dispatchEvent(new Event('change', {bubbles: true}))`))
	if !a.poll(`document.getElementById('p-motion').value === 'circle' && lab.settings().motion === 'circle'`, syncWithin) {
		t.Fatalf("tab a did not follow tab b's motion = circle within %v", syncWithin)
	}
	if m := game.read(t, syncWithin); m.Type != "set" || m.Name != "motion" {
		t.Errorf("game got %+v, want set motion", m.wsTestMsg)
	}
	checkFullConfig(t, "after tab b's change", game.read(t, syncWithin), want)
	for _, tab := range []*labTab{a, b} {
		if diffs := settingsMismatch(tab.controls(), want); len(diffs) > 0 {
			t.Errorf("tab controls differ from the live state: %v", diffs)
		}
	}
	var hidden bool
	a.eval(`document.getElementById('sync-error').hidden`, &hidden)
	if !hidden {
		t.Error("a sync error is shown")
	}

	// No tab echoes a change it applied: the game hears nothing more.
	// Then tab a saves: tab b and the game learn of revision 2.
	game.quiet(t, 300*time.Millisecond)
	a.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")),
		chromedp.SetValue(chromedp.ID("save-name"), "sync, saved"), chromedp.Click(chromedp.ID("save-submit")))
	if !b.poll(`document.getElementById('session-rev').textContent === '2' && document.getElementById('session-name').textContent === 'sync, saved'`, 5*time.Second) {
		t.Error("tab b does not show revision 2 and its name after tab a saved")
	}
	m := game.read(t, 5*time.Second)
	if m.Type != "config" || m.Rev != 2 || m.From != "" {
		t.Errorf("game got %s rev %d from %q, want the saved config, rev 2 (did a tab echo a change?)", m.Type, m.Rev, m.From)
	}
	checkFullConfig(t, "after the save", m, want)
	if saved, err := st.Latest(rev.ID); err != nil || saved.Rev != 2 || len(settingsMismatch(saved.Settings, want)) > 0 {
		t.Errorf("saved revision %d, settings differ by %v (%v)", saved.Rev, settingsMismatch(saved.Settings, want), err)
	}
}

// TestBrowserSyncModule drives sync.js with a stand-in page whose settings
// are plain numbers, so it can send what the server refuses: the refusal is
// reported and the value follows the server again; a refused value is sent
// again once another change makes it valid; a dropped connection comes back;
// and the lab page says so when its session is deleted.
func TestBrowserSyncModule(t *testing.T) {
	h, st := newSessionServer(t)
	rev, err := st.Create(store.Draft{Name: "module", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, h, "/s/"+rev.ID)
	b.waitLive()
	b.eval(`(async () => {
		const { Sync, syncURL } = await import('/static/sync.js');
		const params = interplab.params().filter((p) => p.name === 'tickRate' || p.name === 'sendRate');
		const values = Float64Array.from(params, (p) => p.default);
		const log = { states: [], errors: [], revs: [] };
		const page = {
			params,
			values: () => values,
			set: (name, v) => { values[params.findIndex((p) => p.name === name)] = v; },
			format: (name, v) => interplab.format(name, v),
			parse: (name, text) => interplab.parse(name, text),
		};
		const sync = new Sync(syncURL('`+rev.ID+`'), page, {
			state: (s) => log.states.push(s), error: (e) => log.errors.push(e), rev: (r) => log.revs.push(r),
		}, 1);
		sync.start();
		globalThis.stand = { sync, values, log };
	})()`, nil)
	if !b.poll(`stand.log.states.at(-1) === 'live'`, 5*time.Second) {
		t.Fatal("the stand-in never connected")
	}
	// tickRate 10 below sendRate 20: refused, and tickRate follows the server back to 60.
	b.eval(`stand.values[0] = 10, stand.sync.local()`, nil)
	if !b.poll(`stand.values[0] === 60 && stand.log.errors.length === 1`, syncWithin) {
		var got any
		b.eval(`({values: [...stand.values], log: stand.log})`, &got)
		t.Fatalf("after a refused tickRate: %v, want tickRate back at 60 and one error", got)
	}
	var msg string
	b.eval(`stand.log.errors[0]`, &msg)
	if !strings.Contains(msg, "sendRate") {
		t.Errorf("error %q, want the server's reason naming sendRate", msg)
	}
	// Both at once: tickRate is refused first, then sent again after sendRate 10 is accepted.
	b.eval(`stand.values[0] = 10, stand.values[1] = 10, stand.sync.local()`, nil)
	if !b.poll(`stand.values[0] === 10 && stand.values[1] === 10 && stand.log.errors.at(-1) === '' &&
		lab.settings().tickRate === '10Hz' && lab.settings().sendRate === '10Hz'`, syncWithin) {
		var got any
		b.eval(`({values: [...stand.values], log: stand.log, page: [lab.settings().tickRate, lab.settings().sendRate]})`, &got)
		t.Fatalf("tickRate and sendRate 10 together: %v, want both on the server and on the page", got)
	}
	// A dropped connection reconnects.
	b.eval(`stand.log.states.length = 0, stand.sync.ws.close()`, nil)
	if !b.poll(`stand.log.states.join() === 'offline,connecting,live'`, 5*time.Second) {
		var states []string
		b.eval(`stand.log.states`, &states)
		t.Errorf("states after a drop %q, want offline, connecting, live", states)
	}
	// Deleting the session: the lab page says so and stops. What asks for
	// the session after that is answered 410 Gone, which Chromium logs as a
	// console error when it arrives before the test ends (now and then).
	b.allow("status of 410 (Gone)")
	b.eval(`fetch('/api/sessions/`+rev.ID+`', {method: 'DELETE'}).then((r) => r.status)`, nil)
	if !b.poll(`document.getElementById('sync-state').dataset.state === 'gone' && !document.getElementById('sync-error').hidden`, 5*time.Second) {
		t.Error("the page does not show that its session was deleted")
	}
}

// TestBrowserSessionSave saves a fresh page as a session, saves a second
// revision, and finds both on the history and sessions pages; a name with
// markup shows as text everywhere.
func TestBrowserSessionSave(t *testing.T) {
	h, st := newSessionServer(t)
	b := openLabOn(t, h, "/?preset=wifi&latency=120&entities=3")
	_, want := settingsFromLink(t, "/?preset=wifi&latency=120&entities=3")
	const name = `<script>window.pwned = 1</script> Harbor & co`

	// A bad name first: the API's error shows in the dialog (and Chromium
	// logs the 400 as a console error).
	b.allow("status of 400 (Bad Request)")
	b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")),
		chromedp.SetValue(chromedp.ID("save-name"), strings.Repeat("x", 201)), chromedp.Click(chromedp.ID("save-submit")))
	if !b.poll(`!document.getElementById('save-error').hidden && document.getElementById('save-name').hasAttribute('aria-invalid')`, 5*time.Second) {
		t.Error("a 201-character name: no error in the dialog")
	}
	b.do(chromedp.SetValue(chromedp.ID("save-name"), name), chromedp.SetValue(chromedp.ID("save-notes"), "wifi, a bit more ping"),
		chromedp.Click(chromedp.ID("save-submit")))
	id := b.waitPath(regexp.MustCompile(`^/s/([a-z2-7]{12})$`))
	b.waitReady()
	b.waitLive()
	saved, err := st.Latest(id)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Name != name || saved.Rev != 1 || saved.Notes != "wifi, a bit more ping" {
		t.Errorf("saved %q rev %d notes %q", saved.Name, saved.Rev, saved.Notes)
	}
	if diffs := settingsMismatch(saved.Settings, want); len(diffs) > 0 {
		t.Errorf("saved settings differ from the page's: %v", diffs)
	}
	if diffs := settingsMismatch(b.controls(), want); len(diffs) > 0 {
		t.Errorf("the session's page starts away from its settings: %v", diffs)
	}
	b.notMarkup(name, "#session-name")

	// Save again after moving latency: revision 2, which the history shows.
	b.do(chromedp.Focus(chromedp.ID("p-latency")), chromedp.KeyEvent(kb.PageUp))
	b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")),
		chromedp.SetValue(chromedp.ID("save-notes"), "more latency"), chromedp.Click(chromedp.ID("save-submit")))
	if !b.poll(`document.getElementById('session-rev').textContent === '2' && !document.getElementById('save-dialog').open`, 5*time.Second) {
		t.Fatal("the page does not show rev 2 after the second save")
	}
	second, err := st.Latest(id)
	if err != nil {
		t.Fatal(err)
	}
	if second.Rev != 2 || second.Settings.Latency != 0.22 || second.Notes != "more latency" {
		t.Errorf("second save: rev %d latency %v notes %q, want rev 2, 0.22, more latency", second.Rev, second.Settings.Latency, second.Notes)
	}
	latency, _ := engine.Lookup("latency")
	b.open("/s/" + id + "/history")
	var change string
	b.eval(`document.querySelector('#rev-2 .changes li[data-name=latency]')?.textContent ?? ''`, &change)
	if wantChange := "latency " + templates.Shown(latency, 0.12) + " → " + templates.Shown(latency, 0.22); change != wantChange {
		t.Errorf("history of rev 2 shows %q, want %q", change, wantChange)
	}
	b.notMarkup(name, "#rev-1 .rev-name")

	// The sessions page lists it; a search by name finds it, another does not.
	b.open("/sessions")
	b.notMarkup(name, "#sessions a.session-link")
	b.eval(`document.getElementById('q').value = 'HARBOR', document.querySelector('form.search').requestSubmit()`, nil)
	b.waitPath(regexp.MustCompile(`^/sessions$`))
	if !b.poll(`location.search === '?q=HARBOR' && document.querySelectorAll('#sessions tbody tr').length === 1`, 5*time.Second) {
		t.Error("searching HARBOR does not list the session alone")
	}
	b.open("/sessions?q=nothing")
	var rows int
	b.eval(`document.querySelectorAll('#sessions tbody tr').length`, &rows)
	if rows != 0 {
		t.Errorf("searching 'nothing' lists %d sessions", rows)
	}

	// Delete and restore from the sessions page.
	b.open("/sessions")
	// Clicks through JavaScript: chromedp's node ids go stale across reloads.
	b.eval(`document.querySelector('button[data-delete="`+id+`"]').click()`, nil)
	if !b.poll(`document.readyState === 'complete' && !!document.querySelector('#deleted button[data-restore="`+id+`"]') &&
		!document.getElementById('sessions')`, 5*time.Second) {
		t.Fatal("a deleted session is not listed under Deleted with Restore")
	}
	b.eval(`document.querySelector('button[data-restore="`+id+`"]').click()`, nil)
	if !b.poll(`!!document.querySelector('#sessions tr[data-id="`+id+`"]') && !document.getElementById('deleted')`, 5*time.Second) {
		t.Fatal("a restored session is not listed again")
	}
}

// waitPath waits until the tab's address path matches re (navigations
// included) and returns the first submatch.
func (b *labTab) waitPath(re *regexp.Regexp) string {
	b.t.Helper()
	var path string
	var match []string
	waitFor(b.ctx, func() bool {
		ctx, cancel := context.WithTimeout(b.ctx, time.Second)
		defer cancel()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
		if err == nil {
			path = got
			match = re.FindStringSubmatch(path)
		}
		return match != nil
	}, 10*time.Second)
	if match != nil {
		if len(match) > 1 {
			return match[1]
		}
		return ""
	}
	b.t.Fatalf("address %s, want one matching %s", path, re)
	return ""
}

// open navigates to a page that is not the lab and waits for it to load.
func (b *labTab) open(path string) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, chromedp.Navigate(b.url+path)); err != nil {
		b.t.Fatalf("navigate %s: %v", path, err)
	}
}

// notMarkup checks that the element of sel shows name as text and that no
// script in it ran.
func (b *labTab) notMarkup(name, sel string) {
	b.t.Helper()
	var got struct {
		Text   *string
		Pwned  bool
		Script int
	}
	b.eval(fmt.Sprintf(`({text: document.querySelector(%q)?.textContent ?? null, pwned: window.pwned === 1,
		script: document.querySelectorAll(%q).length})`, sel, sel+" script"), &got)
	if got.Text == nil || *got.Text != name || got.Pwned || got.Script > 0 {
		b.t.Errorf("%s on %s: text %v, script ran %v, script elements %d; want the name as text", sel, b.location(), quoteOrNone(got.Text), got.Pwned, got.Script)
	}
}

func quoteOrNone(p *string) string {
	if p == nil {
		return "(no element)"
	}
	return strconv.Quote(*p)
}

// TestBrowserCompareLink follows the lab page's Compare link, after picking
// a preset and a revision of the session, and checks that the comparison
// page loads and draws (compareBrowserLoad, as TestCompareBrowser).
func TestBrowserCompareLink(t *testing.T) {
	chrome := compareBrowserPath(t)
	h, st := newSessionServer(t)
	start := engine.Defaults()
	start.Duration = 20
	rev, err := st.Create(store.Draft{Name: "compare me", Settings: start}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b := openLabOn(t, h, "/s/"+rev.ID)
	b.waitLive()
	b.do(chromedp.Focus(chromedp.ID("p-loss")), chromedp.KeyEvent(kb.PageUp))
	b.do(chromedp.Click(chromedp.CSS(`#compare-picker summary`)),
		chromedp.Click(chromedp.CSS(`#compare-picker input[value="preset:lan"]`)))
	var href string
	b.eval(`document.getElementById('compare-link').href`, &href)
	refs := regexp.MustCompile(`[?&]v=([^&]*)`).FindAllStringSubmatch(href, -1)
	var got []string
	for _, r := range refs {
		got = append(got, unescapeQuery(t, r[1]))
	}
	// The current settings in full: the page's address holds only the
	// unsaved loss (TestBrowserSessionLinkNames).
	q := link.Query("", b.controls())
	if want := []string{"q:" + q, "session:" + rev.ID + "@1", "preset:lan"}; !slices.Equal(got, want) {
		t.Fatalf("Compare link variants %q, want %q", got, want)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ids := []string{"compare-latency", "compare-metric-errP95"}
	rep, err := compareBrowserLoad(ctx, chrome, b.url, href, ids, 20*time.Second, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Console {
		t.Errorf("console: %s", m)
	}
	for _, u := range rep.Blocked {
		t.Errorf("the page asked for %s, outside the lab", u)
	}
	for _, id := range ids {
		if c := rep.Charts[id]; !c.Canvas || c.Data == 0 {
			t.Errorf("%s: canvas %v, %d data pixels: not drawn", id, c.Canvas, c.Data)
		}
	}
}

func unescapeQuery(t *testing.T, s string) string {
	t.Helper()
	u, err := url.QueryUnescape(s)
	if err != nil {
		t.Fatalf("unescape %q: %v", s, err)
	}
	return u
}

// TestBrowserSessionScenario: a session saved with a custom scenario keeps
// its text: the store has it, the session's page runs it with no unsaved
// edit, and editing the text marks the page unsaved.
func TestBrowserSessionScenario(t *testing.T) {
	h, st := newSessionServer(t)
	const text = "set latency=250ms\noutage at=2 for=1"
	b := openLabOn(t, h, "/?scenario=custom&scenarioText="+url.QueryEscape(text))
	b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")),
		chromedp.SetValue(chromedp.ID("save-name"), "outage study"), chromedp.Click(chromedp.ID("save-submit")))
	id := b.waitPath(regexp.MustCompile(`^/s/([a-z2-7]{12})$`))
	b.waitReady()
	saved, err := st.Latest(id)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Settings.Scenario != "custom" || saved.Settings.ScenarioText != text {
		t.Fatalf("saved scenario %q text %q, want custom and %q", saved.Settings.Scenario, saved.Settings.ScenarioText, text)
	}
	var page struct {
		Text    string
		Unsaved bool
	}
	b.eval(`({Text: document.getElementById('scenario-text').value, Unsaved: !document.getElementById('unsaved').hidden})`, &page)
	if page.Text != text || page.Unsaved {
		t.Errorf("the session's page: editor %q, unsaved %v; want the saved text and nothing unsaved", page.Text, page.Unsaved)
	}
	b.eval(`(() => { const el = document.getElementById('scenario-text'); el.closest('details').open = true;
		el.value = "set latency=100ms"; el.dispatchEvent(new Event('input', {bubbles: true})); })()`, nil)
	b.do(chromedp.Click(chromedp.ID("scenario-apply")))
	if !b.poll(`!document.getElementById('unsaved').hidden`, 5*time.Second) {
		t.Error("a new scenario text does not mark the page unsaved")
	}
}

// copied returns the link the page last put on the clipboard (Copy link,
// Copy link with my unsaved changes), without the server's origin.
func (b *labTab) copied(button string) string {
	b.t.Helper()
	b.eval(`delete document.getElementById('copied').dataset.text, true`, nil)
	b.do(chromedp.Click(chromedp.ID(button)))
	if !b.poll(`!!document.getElementById('copied').dataset.text`, 5*time.Second) {
		b.t.Fatalf("%s copied nothing", button)
	}
	var link string
	b.eval(`document.getElementById('copied').dataset.text`, &link)
	if !strings.HasPrefix(link, b.url+"/") {
		b.t.Fatalf("%s copied %q, want a link to %s", button, link, b.url)
	}
	return strings.TrimPrefix(link, b.url)
}

// TestBrowserSessionLinkNames: a session's link names it, not its values.
// Tab a saves, copies its link; tab b changes the same setting and saves;
// the link a copied opens on b's values, with no unsaved edit to undo b's
// save. Unsaved edits travel only by "Copy link with my unsaved changes",
// and only those; the address bar carries only them too. A revision page
// links to its revision.
func TestBrowserSessionLinkNames(t *testing.T) {
	h, st := newSessionServer(t)
	start := engine.Defaults()
	start.Entities = 4
	rev, err := st.Create(store.Draft{Name: "links", Settings: start}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	path := "/s/" + rev.ID
	a := openLabOn(t, h, path)
	a.waitLive()
	if loc := a.location(); loc != path {
		t.Errorf("a fresh session page's address = %s, want %s (nothing unsaved)", loc, path)
	}
	if a.holds(`!document.getElementById('copy-link-edits').hidden`) {
		t.Error("Copy link with my unsaved changes offered with nothing unsaved")
	}
	a.do(chromedp.Focus(chromedp.ID("p-latency")), chromedp.KeyEvent(kb.PageUp)) // 50 → 150 ms
	if !a.poll(`lab.settings().latency === '150ms'`, 5*time.Second) {
		t.Fatal("latency did not move")
	}
	if loc := a.location(); loc != path+"?latency=150ms" {
		t.Errorf("with latency unsaved the address = %s, want %s?latency=150ms (the edit alone)", loc, path)
	}
	a.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")), chromedp.Click(chromedp.ID("save-submit")))
	if !a.poll(`document.getElementById('session-rev').textContent === '2' && document.getElementById('unsaved').hidden`, 5*time.Second) {
		t.Fatal("tab a did not save revision 2")
	}
	if loc := a.location(); loc != path {
		t.Errorf("after the save the address = %s, want %s", loc, path)
	}
	link := a.copied("copy-link")
	if link != path {
		t.Errorf("Copy link = %s, want %s", link, path)
	}

	b := a.newTab(path)
	b.waitLive()
	b.do(chromedp.Focus(chromedp.ID("p-latency")), chromedp.KeyEvent(kb.PageUp)) // 150 → 250 ms
	if !b.poll(`lab.settings().latency === '250ms'`, 5*time.Second) {
		t.Fatal("latency did not move in tab b")
	}
	b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")), chromedp.Click(chromedp.ID("save-submit")))
	if !b.poll(`document.getElementById('session-rev').textContent === '3' && document.getElementById('unsaved').hidden`, 5*time.Second) {
		t.Fatal("tab b did not save revision 3")
	}

	c := a.newTab(link)
	c.waitLive()
	var got struct {
		Latency string
		Notice  bool
		Unsaved bool
	}
	c.eval(`({Latency: lab.settings().latency, Notice: !document.getElementById('edits-notice').hidden,
		Unsaved: !document.getElementById('unsaved').hidden})`, &got)
	if got.Latency != "250ms" || got.Notice || got.Unsaved {
		t.Errorf("tab a's copied link %s opens with latency %s (edits notice %v, unsaved %v); want the latest, 250ms, and nothing unsaved",
			link, got.Latency, got.Notice, got.Unsaved)
	}

	// Unsaved edits travel when asked for, and only they.
	c.do(chromedp.Focus(chromedp.ID("p-loss")), chromedp.KeyEvent(kb.PageUp))
	if !c.poll(`lab.settings().loss !== '0%' && !document.getElementById('copy-link-edits').hidden`, 5*time.Second) {
		t.Fatal("an unsaved loss: no Copy link with my unsaved changes")
	}
	loss := url.QueryEscape(c.setting("loss")) // 9%: 9%25 in a link
	if with := c.copied("copy-link-edits"); with != path+"?loss="+loss {
		t.Errorf("Copy link with my unsaved changes = %s, want %s?loss=%s", with, path, loss)
	}
	if plain := c.copied("copy-link"); plain != path {
		t.Errorf("Copy link with an unsaved change = %s, want %s", plain, path)
	}
	// A bug report's PNG names the revision and carries the unsaved change:
	// its link reopens what it shows even after the session moves on.
	var shot struct{ Link, Settings string }
	c.eval(`lab.capture.png().then(() => ({
		Link: lab.capture.drawn.texts.filter((t) => t.kind === 'link').map((t) => t.text).join(''),
		Settings: lab.capture.drawn.texts.filter((t) => t.kind.startsWith('setting')).map((t) => t.text).join(' | '),
	}))`, &shot)
	if want := c.url + path + "/r/3?loss=" + loss; shot.Link != want {
		t.Errorf("the PNG's link = %s, want %s", shot.Link, want)
	}
	if !strings.Contains(shot.Settings, "differ from the saved revision") || !strings.Contains(shot.Settings, "loss = ") {
		t.Errorf("the PNG's settings %q, want loss against the saved revision", shot.Settings)
	}

	// A revision's page links to that revision; its edits go with the
	// revision's link, and open there as unsaved edits.
	r := a.newTab(path + "/r/2")
	if link := r.copied("copy-link"); link != path+"/r/2" {
		t.Errorf("Copy link on revision 2 = %s, want %s/r/2", link, path)
	}
	r.do(chromedp.Focus(chromedp.ID("p-jitter")), chromedp.KeyEvent(kb.PageUp))
	if !r.poll(`lab.settings().jitter !== '10ms'`, 5*time.Second) {
		t.Fatal("jitter did not move on the revision page")
	}
	jitter := r.setting("jitter")
	with := r.copied("copy-link-edits")
	if with != path+"/r/2?jitter="+url.QueryEscape(jitter) {
		t.Errorf("Copy link with my unsaved changes on revision 2 = %s, want %s/r/2?jitter=%s", with, path, jitter)
	}
	d := a.newTab(with)
	var edits struct {
		Latency, Jitter string
		Notice          string
	}
	d.eval(`({Latency: lab.settings().latency, Jitter: lab.settings().jitter,
		Notice: document.getElementById('edits-notice').hidden ? '' : document.getElementById('edits-notice').textContent})`, &edits)
	if edits.Latency != "150ms" || edits.Jitter != jitter || !strings.Contains(edits.Notice, "jitter") || strings.Contains(edits.Notice, "latency") {
		t.Errorf("%s opens with latency %s, jitter %s, notice %q; want revision 2's latency 150ms, jitter %s as the one unsaved edit",
			with, edits.Latency, edits.Jitter, edits.Notice, jitter)
	}
}
