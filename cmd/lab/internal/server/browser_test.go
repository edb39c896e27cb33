package server

// Real-browser tests of the lab page (harness in browser_harness_test.go).
// They need Chromium; run as root they install Debian's package when it is
// missing. -short skips them.

import (
	"bytes"
	"context"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/link"
	"interplab/engine"
	"interplab/presets"
)

// TestBrowserLoads checks that the page loads with no console error and no
// request outside the server, that it has a control for every parameter,
// and that the engine runs: entities move between two reads and two
// screenshots.
func TestBrowserLoads(t *testing.T) {
	b := openLab(t, "/")
	if diffs := settingsMismatch(b.controls(), engine.Defaults()); len(diffs) > 0 {
		t.Errorf("controls at / differ from the defaults: %v", diffs)
	}
	var hidden bool
	b.eval(`document.getElementById('errors').hidden`, &hidden)
	if !hidden {
		t.Error("errors shown on a plain load")
	}

	var first, second []float64
	shot1, err := chromedp.Run(b.ctx, chromedp.Screenshot(chromedp.ID("view")))
	if err != nil {
		t.Fatal(err)
	}
	b.eval(`lab.pose(0, 0)`, &first)
	moved := waitFor(b.ctx, func() bool {
		b.eval(`lab.pose(0, 0)`, &second)
		return !slices.Equal(first[:2], second[:2])
	}, 5*time.Second)
	if !moved {
		t.Errorf("entity 0 did not move in 5 s: %v then %v", first, second)
	}
	shot2, err := chromedp.Run(b.ctx, chromedp.Screenshot(chromedp.ID("view")))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(shot1, shot2) {
		t.Error("two screenshots of the view, before and after entity 0 moved, are identical")
	}
	var st struct {
		Frames     int
		Techniques []string
	}
	b.eval(`lab.state()`, &st)
	if st.Frames == 0 || !slices.Equal(st.Techniques, engine.Defaults().Techniques) {
		t.Errorf("state = %+v, want frames and every default technique", st)
	}
}

// TestBrowserSlider moves a slider with the keyboard, as a designer would,
// and checks that the value shown, the metrics and the address change
// without a reload.
func TestBrowserSlider(t *testing.T) {
	b := openLab(t, "/?entities=4")
	b.eval(`window.notReloaded = true`, nil)
	const frames = 180
	var before map[string]map[string]*float64
	b.eval(`lab.pause(), lab.restart(), lab.advance(`+strconv.Itoa(frames)+`)`, nil)
	before = b.pageMetrics()

	// PageUp moves a range input by a tenth of its range: latency 50 → 150 ms.
	b.do(chromedp.Focus(chromedp.ID("p-latency")), chromedp.KeyEvent(kb.PageUp))
	var shown string
	b.eval(`document.getElementById('n-latency').value`, &shown)
	if shown != "150" {
		t.Errorf("latency shows %q ms after PageUp, want 150", shown)
	}
	if loc := b.location(); loc != "/?latency=150ms&entities=4" {
		t.Errorf("address = %q, want /?latency=150ms&entities=4", loc)
	}
	b.eval(`lab.restart(), lab.advance(`+strconv.Itoa(frames)+`)`, nil)
	after := b.pageMetrics()
	if sameMetrics(before, after) {
		t.Errorf("metrics unchanged after latency 50 → 150 ms: %v", flatMetrics(after))
	}
	b.copyLinkIs(b.url + "/?latency=150ms&entities=4")
	var still bool
	b.eval(`window.notReloaded === true`, &still)
	if !still {
		t.Error("the page reloaded")
	}

	// A restart parameter applies on release: a new seed restarts the run.
	b.eval(`lab.resume()`, nil)
	if !b.poll(`lab.state().time > 0.3`, 5*time.Second) {
		t.Fatal("the run does not go on after resume")
	}
	b.do(chromedp.SetValue(chromedp.ID("p-seed"), "99"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('p-seed').dispatchEvent(new Event('change', {bubbles: true}))`))
	var st struct{ Time float64 }
	b.eval(`lab.state()`, &st)
	if st.Time > 0.2 {
		t.Errorf("time %v s just after a new seed, want a restart", st.Time)
	}
	if loc := b.location(); loc != "/?latency=150ms&entities=4&seed=99" {
		t.Errorf("address = %q, want /?latency=150ms&entities=4&seed=99", loc)
	}
}

// copyLinkIs clicks "Copy link" and checks what the clipboard then holds.
func (b *labTab) copyLinkIs(want string) {
	b.t.Helper()
	for _, name := range []string{"clipboard-read", "clipboard-write"} {
		if _, err := chromedp.CallBrowser(b.ctx, browser.SetPermission, browser.SetPermissionParams{
			Permission: &browser.PermissionDescriptor{Name: name}, Setting: browser.PermissionSettingGranted, Origin: b.url,
		}); err != nil {
			b.t.Fatalf("grant %s: %v", name, err)
		}
	}
	b.do(chromedp.Click(chromedp.ID("copy-link")), chromedp.WaitVisible(chromedp.ID("copied")))
	var got string
	b.eval(`navigator.clipboard.readText()`, &got)
	if got != want {
		b.t.Errorf("Copy link copied %q, want %q", got, want)
	}
}

func sameMetrics(a, b map[string]map[string]*float64) bool {
	fa, fb := flatMetrics(a), flatMetrics(b)
	return slices.Equal(fa, fb)
}

// flatMetrics lists a page's metrics as "technique field value" lines.
func flatMetrics(m map[string]map[string]*float64) []string {
	var out []string
	for tech, fields := range m {
		for f, v := range fields {
			s := "NaN"
			if v != nil {
				s = strconv.FormatFloat(*v, 'g', -1, 64)
			}
			out = append(out, tech+" "+f+" "+s)
		}
	}
	slices.Sort(out)
	return out
}

// browserShareLink sets a value of every kind (float, int, bool, enum, set)
// away from the preset.
const browserShareLink = "/?preset=wifi&calcAhead=80&displayBehind=150&latency=42&jitterDist=lognormal" +
	"&loss=3.5&lossModel=burst&burstLength=4.5&sendRate=30&clockDrift=-300&adaptive=true&margin=31" +
	"&adaptWindow=64&speedClamp=false&rotation=euler&motion=circle&entities=12&maxSpeed=9.5&seed=4242" +
	"&techniques=epic,buffer,hermite"

// TestBrowserShareLink opens a share link and checks that every control
// shows exactly the linked state, that the address becomes the canonical
// link (the server's linkQuery), and that choosing a preset restores the
// preset.
func TestBrowserShareLink(t *testing.T) {
	preset, want := settingsFromLink(t, browserShareLink)
	wifi, err := presets.Get("wifi")
	if err != nil {
		t.Fatal(err)
	}
	// A value equal to the preset's is redundant: the address drops it.
	share := browserShareLink + "&duration=" + strconv.FormatFloat(wifi.Settings.Duration, 'g', -1, 64)
	b := openLab(t, share)
	if diffs := settingsMismatch(b.controls(), want); len(diffs) > 0 {
		t.Errorf("controls differ from the link:\n%s", strings.Join(diffs, "\n"))
	}
	var selected string
	b.eval(`document.getElementById('preset').value`, &selected)
	if selected != preset {
		t.Errorf("preset picker shows %q, want %q", selected, preset)
	}
	var techs []string
	b.eval(`lab.state().techniques`, &techs)
	if !slices.Equal(techs, want.Techniques) {
		t.Errorf("running techniques %v, want %v", techs, want.Techniques)
	}
	if loc, canon := b.location(), "/?"+link.Query(preset, want); loc != canon {
		t.Errorf("address = %s on load, want the canonical %s", loc, canon)
	}

	// The preset picker: everything goes back to the preset, the address
	// names only it.
	lan, err := presets.Get("lan")
	if err != nil {
		t.Fatal(err)
	}
	b.do(chromedp.SetValue(chromedp.ID("preset"), "lan"),
		chromedp.Evaluate[chromedp.Void](`document.getElementById('preset').dispatchEvent(new Event('change'))`))
	if diffs := settingsMismatch(b.controls(), lan.Settings); len(diffs) > 0 {
		t.Errorf("after choosing lan, controls differ from the preset:\n%s", strings.Join(diffs, "\n"))
	}
	if loc := b.location(); loc != "/?preset=lan" {
		t.Errorf("address = %q after choosing lan, want /?preset=lan", loc)
	}
}

// TestBrowserBadLink opens a link with bad values and checks that the page
// reports each of them, in the server's words, and still runs.
func TestBrowserBadLink(t *testing.T) {
	const share = "/?preset=wifi&loss=95&jitterDist=gaussian&sendRate=fast&bogus=1"
	u, _ := url.Parse(share)
	_, _, errs := link.Parse(u.Query())
	if len(errs) != 4 {
		t.Fatalf("link.Parse found %d errors in %s, want 4: %v", len(errs), share, errs)
	}
	b := openLab(t, share)
	var shown struct {
		Hidden bool
		Items  []string
	}
	b.eval(`({hidden: document.getElementById('errors').hidden,
		items: [...document.querySelectorAll('#error-list li')].map((li) => li.textContent)})`, &shown)
	if shown.Hidden {
		t.Fatal("errors are hidden")
	}
	for _, e := range errs {
		if !slices.Contains(shown.Items, e.Error()) {
			t.Errorf("the page does not show %q; it shows %q", e.Error(), shown.Items)
		}
	}
	if loc := b.location(); loc != share {
		t.Errorf("address = %s, want the bad link kept as it is", loc)
	}
	if !b.poll(`lab.state().frames > 0`, 5*time.Second) {
		t.Error("the page does not run after a bad link")
	}
}

// TestBrowserExports clicks each export link after a slider change and
// checks that the download is what lab export gives for the page's settings.
func TestBrowserExports(t *testing.T) {
	// Every technique, so that every library's export is offered.
	b := openLab(t, "/?preset=harbor-after&loss=2&techniques="+strings.Join(engine.TechniqueNames, ","))
	b.do(chromedp.Focus(chromedp.ID("p-jitter")), chromedp.KeyEvent(kb.PageUp))
	got := b.controls()
	if got.Jitter == 0.01 {
		t.Fatal("the jitter slider did not move")
	}

	// The "vs" links follow the settings too: each compares the page's
	// settings over the lab's network and over its engine's simulator.
	var query string
	b.eval(`location.search.slice(1)`, &query)
	for _, name := range export.Formats() {
		sim := export.NetSim(name)
		if sim == "" {
			continue
		}
		var href string
		b.eval(`document.getElementById("preview-`+name+`").getAttribute("href")`, &href)
		got, err1 := url.Parse(href)
		want, err2 := url.Parse(export.PreviewURL(sim, query))
		if err1 != nil || err2 != nil || got.Path != want.Path || !slices.Equal(got.Query()["v"], want.Query()["v"]) {
			t.Errorf("preview link of %s = %s, want the comparison %s", name, href, want)
		}
	}

	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(b.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true),
	}); err != nil {
		t.Fatal(err)
	}
	downloads := 0
	for _, name := range export.Formats() {
		if tech := export.Technique(name); tech != "" && !slices.Contains(got.Techniques, tech) {
			continue // a library's export is offered beside its technique only
		}
		// Chromium (156) starts no more than ten downloads from one page
		// load: reload (the address holds the settings) every eight.
		if downloads > 0 && downloads%8 == 0 {
			b.do(chromedp.Reload())
			if !b.poll(`document.documentElement.dataset.ready === '1'`, 10*time.Second) {
				t.Fatal("the page did not come back after a reload")
			}
			if again := b.controls(); !reflect.DeepEqual(again, got) {
				t.Fatalf("after a reload the page has %+v, want %+v", again, got)
			}
		}
		downloads++
		want, err := export.Render(name, export.Origin{Preset: "harbor-after"}, got)
		if err != nil {
			t.Fatalf("export %s: %v", name, err)
		}
		body := b.download(dir, "export-"+name)
		if !bytes.Equal(body, want.Body) {
			t.Errorf("export %s: download differs from lab export for the page's settings:\n got: %.300s\nwant: %.300s", name, body, want.Body)
		}
	}
}

// download clicks the link with the given id and returns the downloaded file.
func (b *labTab) download(dir, id string) []byte {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	begins := chromedp.BrowserEvents(ctx, browser.DownloadWillBegin)
	progress := chromedp.BrowserEvents(ctx, browser.DownloadProgress)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID(id))); err != nil {
		b.t.Fatalf("click %s: %v", id, err)
	}
	var guid string
	for ev, err := range begins {
		if err != nil {
			b.t.Fatalf("click %s: no download: %v", id, err)
		}
		guid = ev.GUID
		break
	}
	for ev, err := range progress {
		if err != nil {
			b.t.Fatalf("download %s: %v", id, err)
		}
		if ev.GUID != guid {
			continue
		}
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			body, err := os.ReadFile(filepath.Join(dir, guid))
			if err != nil {
				b.t.Fatal(err)
			}
			return body
		case browser.DownloadProgressStateCanceled:
			b.t.Fatalf("download %s canceled", id)
		}
	}
	return nil
}

// TestBrowserMatchesEngine steps the page to a fixed frame and checks that
// its metrics and poses are bit for bit the native engine's for the same
// settings and seed.
func TestBrowserMatchesEngine(t *testing.T) {
	const link = "/?preset=4g&entities=10&motion=mix&seed=77&adaptive=true&clockDrift=400"
	const frames = 900
	_, s := settingsFromLink(t, link)
	sim, err := engine.NewSim(s)
	if err != nil {
		t.Fatal(err)
	}
	// The page's procedure: quarter-frame steps until the frame count is reached.
	for sim.Frames() < frames {
		sim.Step(1 / s.RenderRate / 4)
	}
	want := map[string]map[string]float64{}
	for i, m := range sim.Metrics(nil) {
		want[sim.Techniques()[i]] = map[string]float64{}
		for j, v := range m.Values(nil) {
			want[sim.Techniques()[i]][engine.MetricFields[j].Name] = v
		}
	}

	b := openLab(t, link)
	var n int
	b.eval(`lab.pause(), lab.restart(), lab.advance(`+strconv.Itoa(frames)+`)`, &n)
	if n != sim.Frames() {
		t.Fatalf("page at frame %d, engine at %d", n, sim.Frames())
	}
	got := b.pageMetrics()
	for tech, fields := range want {
		for f, w := range fields {
			g := got[tech][f]
			switch {
			case g == nil && math.IsNaN(w):
			case g == nil || math.Float64bits(*g) != math.Float64bits(w):
				t.Errorf("%s %s: page %v, engine %v", tech, f, deref(g), w)
			}
		}
	}
	var poses []float64
	b.eval(`lab.poses()`, &poses)
	wantPoses := sim.Poses()
	if len(poses) != len(wantPoses) {
		t.Fatalf("page has %d pose values, engine %d", len(poses), len(wantPoses))
	}
	for i, w := range wantPoses {
		if float32(poses[i]) != w {
			t.Errorf("pose value %d: page %v, engine %v", i, poses[i], w)
			break
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return "NaN"
	}
	return *p
}

// TestBrowserFocusAndStress clicks an entity to focus it, then turns on the
// stress view.
func TestBrowserFocusAndStress(t *testing.T) {
	b := openLab(t, "/?entities=8&motion=circle")
	b.eval(`lab.pause()`, nil)
	// The camera eases towards its target on every animation frame, paused
	// or not: let it settle (0.85^40 < 0.2%) before aiming.
	b.eval(`new Promise((done) => {
		let n = 40;
		const tick = () => (--n > 0 ? requestAnimationFrame(tick) : done(true));
		requestAnimationFrame(tick);
	})`, nil)
	// The entity farthest from every other, so the click cannot miss.
	var target struct {
		Entity int
		X, Y   float64
	}
	b.eval(`(() => {
		const n = lab.state().entities, pts = [];
		for (let e = 0; e < n; e++) pts.push(lab.screen(0, e));
		let best = 0, bestD = -1;
		pts.forEach((p, i) => {
			const d = Math.min(...pts.filter((_, j) => j !== i).map((q) => Math.hypot(p.x - q.x, p.y - q.y)));
			if (d > bestD) { bestD = d; best = i; }
		});
		const r = document.getElementById('view').getBoundingClientRect();
		return {entity: best, x: r.left + pts[best].x, y: r.top + pts[best].y};
	})()`, &target)
	b.do(chromedp.MouseClickXY(target.X, target.Y))
	var focus int
	b.eval(`lab.state().focus`, &focus)
	if focus != target.Entity {
		t.Errorf("focus = %d after clicking entity %d", focus, target.Entity)
	}

	b.eval(`lab.resume()`, nil)
	b.do(chromedp.Click(chromedp.ID("stress")))
	var st struct{ Entities int }
	b.eval(`lab.state()`, &st)
	if st.Entities != 10000 {
		t.Errorf("stress view runs %d entities, want 10000", st.Entities)
	}
	if loc := b.location(); !strings.Contains(loc, "entities=10000") {
		t.Errorf("address %q does not say entities=10000", loc)
	}
	// The readout refreshes four times a second, on an animation frame.
	if _, err := chromedp.Run(b.ctx, chromedp.Poll[bool](
		`/^step [0-9.]+ ms · draw [0-9.]+ ms · [0-9]+ fps · 10000 × 5$/.test(document.getElementById('perf').textContent)`,
		chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		var perf string
		b.eval(`document.getElementById('perf').textContent`, &perf)
		t.Errorf("frame-time readout %q, want step and draw times for 10000 × 5 (%v)", perf, err)
	}
}

// TestBrowserRefused moves tickRate below sendRate: the page shows the
// engine's refusal, keeps the run as it was, and applies the value once
// sendRate comes down too.
func TestBrowserRefused(t *testing.T) {
	sim, err := engine.NewSim(engine.Defaults())
	if err != nil {
		t.Fatal(err)
	}
	_, refusal := sim.Set("tickRate", 10)
	if refusal == nil {
		t.Fatal("the engine accepts tickRate 10 below sendRate 20")
	}

	b := openLab(t, "/")
	move := func(name, value string) {
		b.do(chromedp.SetValue(chromedp.ID("p-"+name), value),
			chromedp.Evaluate[chromedp.Void](`document.getElementById('p-`+name+`').dispatchEvent(new Event('input', {bubbles: true}))`))
	}
	var shown struct {
		Hidden  bool
		Items   []string
		Invalid []string
	}
	read := func() {
		b.eval(`({hidden: document.getElementById('errors').hidden,
			items: [...document.querySelectorAll('#error-list li')].map((li) => li.textContent),
			invalid: [...document.querySelectorAll('.field.invalid [name]')].map((el) => el.name)})`, &shown)
	}
	move("tickRate", "10")
	read()
	if shown.Hidden || !slices.Equal(shown.Items, []string{refusal.Error()}) || !slices.Equal(shown.Invalid, []string{"tickRate"}) {
		t.Errorf("after tickRate 10: errors hidden %v %q, invalid %v; want %q on tickRate", shown.Hidden, shown.Items, shown.Invalid, refusal.Error())
	}
	if loc := b.location(); loc != "/" {
		t.Errorf("address %q names a refused value", loc)
	}

	move("sendRate", "10")
	read()
	if !shown.Hidden || len(shown.Invalid) > 0 {
		t.Errorf("after sendRate 10: errors %q, invalid %v; want none", shown.Items, shown.Invalid)
	}
	if loc := b.location(); loc != "/?tickRate=10Hz&sendRate=10Hz" {
		t.Errorf("address = %q, want /?tickRate=10Hz&sendRate=10Hz", loc)
	}
}
