package server

// The lab in every engine a designer uses: Chromium (chromedp, the harness
// of browser_harness_test.go), Firefox (WebDriver BiDi,
// firefox_harness_test.go) and WebKit, Safari's engine (WebDriver classic,
// webkit_harness_test.go). The checks are the page-side JavaScript of the
// Chromium tests, evaluated through each driver, with the verdict in Go:
// one check, three engines. No check here times anything.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/link"
	"interplab/engine"
)

// enginePage is one tab of a real browser, in any engine.
type enginePage interface {
	engine() string
	// load opens path on the test server and waits for the document.
	load(path string)
	// evalJSON evaluates a JavaScript expression (a promise is awaited)
	// and returns its value as JSON.
	evalJSON(ctx context.Context, expr string) ([]byte, error)
	// viewport makes the page w×h CSS pixels.
	viewport(w, h int64)
	context() context.Context
	// allow makes page errors containing text expected.
	allow(text string)
	// takeProblems returns the page errors and outside requests seen so
	// far, which then no longer fail the test.
	takeProblems() []string
}

// page drives an enginePage for a test: what the checks call.
type page struct {
	enginePage
	t testing.TB
}

func (p page) eval(expr string, out any) {
	p.t.Helper()
	raw, err := p.evalJSON(p.context(), expr)
	if err != nil {
		p.t.Fatalf("%s: eval %s: %v", p.engine(), expr, err)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			p.t.Fatalf("%s: eval %s: decode %s: %v", p.engine(), expr, raw, err)
		}
	}
}

// holds reports whether the JavaScript condition cond is true now; an
// evaluation that fails (the page is loading) is false.
func (p page) holds(cond string) bool {
	ctx, cancel := context.WithTimeout(p.context(), 5*time.Second)
	defer cancel()
	raw, err := p.evalJSON(ctx, cond)
	return err == nil && string(raw) == "true"
}

func (p page) poll(cond string, within time.Duration) bool {
	return waitFor(p.context(), func() bool { return p.holds(cond) }, within)
}

// navigate opens the lab at path, waits until its engine runs and
// dismisses the first visit's library picker, as labTab.navigate.
func (p page) navigate(path string) {
	p.t.Helper()
	p.load(path)
	if !p.poll(`document.documentElement.dataset.ready === "1" && !!globalThis.lab`, 30*time.Second) {
		p.t.Fatalf("%s: %s not ready within 30 s", p.engine(), path)
	}
	p.eval(`(() => { const d = document.getElementById('library-start'); if (d && d.open) d.close(''); return true })()`, nil)
}

func (p page) location() string {
	p.t.Helper()
	var loc string
	p.eval(`location.pathname + location.search`, &loc)
	return loc
}

// controls returns the settings the page's controls show (labTab.controls).
func (p page) controls() engine.Settings {
	p.t.Helper()
	var text map[string]string
	p.eval(controlsJS, &text)
	s, errs := settingsOfControls(text)
	for _, err := range errs {
		p.t.Errorf("%s: %v", p.engine(), err)
	}
	return s
}

// chromiumPage is labTab as an enginePage.
type chromiumPage struct{ *labTab }

func (c chromiumPage) engine() string { return "chromium" }

func (c chromiumPage) load(path string) {
	c.t.Helper()
	if err := chromedp.Do(c.ctx, chromedp.Navigate(c.url+path)); err != nil {
		c.t.Fatalf("navigate %s: %v", path, err)
	}
}

func (c chromiumPage) evalJSON(ctx context.Context, expr string) ([]byte, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[[]byte](expr, chromedp.EvalAwaitPromise))
}

func (c chromiumPage) context() context.Context { return c.ctx }

func (c chromiumPage) takeProblems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.problems
	c.problems = nil
	return p
}

// viewport makes Chromium's page w×h CSS pixels.
func (b *labTab) viewport(w, h int64) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: w, Height: h, DeviceScaleFactor: 1,
	}); err != nil {
		b.t.Fatalf("window %d×%d: %v", w, h, err)
	}
}

// engineTimeout bounds one engine's browser session: every check of
// TestBrowserEngines (or every scene of BenchmarkBrowserEngines) runs in
// it, one after the other, on a machine that may be loaded.
const engineTimeout = 10 * time.Minute

// engines are the browsers the tests run in, with how to open one on a
// test server's base URL.
var engines = []struct {
	name string
	open func(t testing.TB, base string) enginePage
}{
	{"chromium", func(t testing.TB, base string) enginePage {
		b := openChromium(t, base)
		return chromiumPage{b}
	}},
	{"firefox", func(t testing.TB, base string) enginePage { return openFirefox(t, base) }},
	{"webkit", func(t testing.TB, base string) enginePage { return openWebKit(t, base) }},
}

// engineBinaries are what each engine needs, and the Debian packages that
// give them.
var engineBinaries = map[string]struct {
	paths    []string
	packages string
}{
	"chromium": {[]string{browserPath}, "chromium"},
	"firefox":  {[]string{firefoxPath}, "firefox-esr"},
	"webkit":   {[]string{webkitDriverPath, xvfbPath}, "webkit2gtk-driver xvfb"},
}

var engineInstall struct {
	mu   sync.Mutex
	errs map[string]error
}

// enginesInstalled makes sure the browser of engine is there, installing
// Debian's packages when the test runs as root (as make test's
// browser-deps does); otherwise it skips the test.
func enginesInstalled(t testing.TB, name string) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests skipped in -short mode")
	}
	bin := engineBinaries[name]
	missing := slices.ContainsFunc(bin.paths, func(p string) bool { _, err := os.Stat(p); return err != nil })
	if !missing {
		return
	}
	if os.Geteuid() != 0 {
		t.Skipf("%s is missing and the test is not root, so it cannot install it: run apt-get install -y %s", name, bin.packages)
	}
	engineInstall.mu.Lock()
	defer engineInstall.mu.Unlock()
	if engineInstall.errs == nil {
		engineInstall.errs = map[string]error{}
	}
	err, tried := engineInstall.errs[name]
	if !tried {
		cmd := exec.Command("sh", "-c", "apt-get update && apt-get install -y "+bin.packages)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, ierr := cmd.CombinedOutput(); ierr != nil {
			err = fmt.Errorf("install %s: %v\n%s", bin.packages, ierr, out)
		}
		engineInstall.errs[name] = err
	}
	if err != nil {
		t.Fatal(err)
	}
}

// openChromium starts Chromium on base with nothing open yet (the tab's
// first navigation is the test's).
func openChromium(t testing.TB, base string) *labTab {
	t.Helper()
	browserInstalled(t)
	return startChromium(t, base, engineTimeout)
}

// settingsOfControls turns controlsJS's answer into settings.
func settingsOfControls(text map[string]string) (engine.Settings, []error) {
	s := engine.Defaults()
	var errs []error
	for _, p := range engine.Params() {
		v, ok := text[p.Name]
		if !ok {
			errs = append(errs, fmt.Errorf("the page has no control named %q", p.Name))
			continue
		}
		var err error
		if p.Kind == engine.Float || p.Kind == engine.Int {
			var f float64
			if f, err = strconv.ParseFloat(v, 64); err == nil {
				err = p.Set(&s, f)
			}
		} else {
			err = s.SetText(p.Name, v)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("control %s: %v", p.Name, err))
		}
	}
	return s, errs
}

// TestBrowserEngines runs the lab's core checks in each engine, once the
// engine's harness is seen to catch page errors and requests beyond the
// test server (checkHarnessSees): every library preset opens and runs with
// no page error, a slider moves the simulation, a share link reproduces
// its state, the A/B view runs, a session saves and reopens, Record
// records a video (WebM, through WebCodecs where MediaRecorder has none;
// MP4 where the engine has neither) and the
// layout holds at 1024×768 and 1440×900. One browser per engine serves
// all of them.
func TestBrowserEngines(t *testing.T) {
	for _, e := range engines {
		t.Run(e.name, func(t *testing.T) {
			h, _ := newSessionServer(t)
			srv := newLoopbackServer(t, h)
			p := page{e.open(t, srv), t}
			t.Run("harness", func(t *testing.T) { checkHarnessSees(page{p.enginePage, t}) })
			t.Run("presets", func(t *testing.T) { checkPresetsRun(page{p.enginePage, t}) })
			t.Run("slider", func(t *testing.T) { checkSlider(page{p.enginePage, t}) })
			t.Run("share-link", func(t *testing.T) { checkShareLink(page{p.enginePage, t}) })
			t.Run("ab", func(t *testing.T) { checkAB(page{p.enginePage, t}) })
			t.Run("session", func(t *testing.T) { checkSessionSaveReopen(page{p.enginePage, t}) })
			t.Run("record", func(t *testing.T) { checkRecord(page{p.enginePage, t}) })
			t.Run("layout", func(t *testing.T) {
				p := page{p.enginePage, t}
				p.navigate("/?techniques=" + strings.Join(engine.TechniqueNames, ","))
				checkLayoutSizes(t, p, engineLayoutSizes)
			})
		})
	}
}

// engineLayoutSizes are the window sizes every engine is checked at.
var engineLayoutSizes = []layoutSize{{1440, 900, true}, {1024, 768, false}}

// checkPresetsRun opens each library's preset and the lab's own: the page
// runs (its frame count goes up) and shows no error.
func checkPresetsRun(p page) {
	for _, name := range append([]string{"lan"}, libraryPresets...) {
		p.navigate("/?preset=" + name)
		var frames int
		p.eval(`lab.state().frames`, &frames)
		if !p.poll(`lab.state().frames > `+strconv.Itoa(frames), 10*time.Second) {
			p.t.Errorf("%s: ?preset=%s: the simulation does not run (frame %d)", p.engine(), name, frames)
		}
		var shown struct {
			Errors bool
			Preset string
		}
		p.eval(`({Errors: !document.getElementById('errors').hidden, Preset: document.getElementById('preset').value})`, &shown)
		if shown.Errors || shown.Preset != name {
			p.t.Errorf("%s: ?preset=%s: errors shown %v, picker on %q", p.engine(), name, shown.Errors, shown.Preset)
		}
	}
}

// checkSlider moves the latency slider by a tenth of its range (PageUp's
// step) and checks the value shown, the address and the metrics.
func checkSlider(p page) {
	p.navigate("/?entities=4")
	p.eval(`window.notReloaded = true`, nil)
	const advance = `lab.pause(), lab.restart(), lab.advance(180)`
	p.eval(advance, nil)
	var before, after map[string]map[string]*float64
	p.eval(`lab.metrics()`, &before)
	p.eval(`(() => {
		const el = document.getElementById('p-latency');
		el.value = String(Number(el.value) + (Number(el.max) - Number(el.min)) / 10);
		el.dispatchEvent(new Event('input', {bubbles: true}));
		el.dispatchEvent(new Event('change', {bubbles: true}));
	})()`, nil)
	var shown string
	p.eval(`document.getElementById('n-latency').value`, &shown)
	if shown != "150" {
		p.t.Errorf("%s: latency shows %q ms after a tenth of the range up, want 150", p.engine(), shown)
	}
	if loc := p.location(); loc != "/?latency=150ms&entities=4" {
		p.t.Errorf("%s: address = %q, want /?latency=150ms&entities=4", p.engine(), loc)
	}
	p.eval(advance, nil)
	p.eval(`lab.metrics()`, &after)
	if sameMetrics(before, after) {
		p.t.Errorf("%s: metrics unchanged after latency 50 → 150 ms: %v", p.engine(), flatMetrics(after))
	}
	var still bool
	p.eval(`window.notReloaded === true`, &still)
	if !still {
		p.t.Errorf("%s: the page reloaded", p.engine())
	}
}

// checkShareLink opens browserShareLink: every control shows the linked
// state, the run has the linked techniques and the address is canonical.
func checkShareLink(p page) {
	preset, want := settingsFromLink(p.t, browserShareLink)
	p.navigate(browserShareLink)
	if diffs := settingsMismatch(p.controls(), want); len(diffs) > 0 {
		p.t.Errorf("%s: controls differ from the link:\n%s", p.engine(), strings.Join(diffs, "\n"))
	}
	var techs []string
	p.eval(`lab.state().techniques`, &techs)
	if !slices.Equal(techs, want.Techniques) {
		p.t.Errorf("%s: running techniques %v, want %v", p.engine(), techs, want.Techniques)
	}
	if loc, canon := p.location(), "/?"+link.Query(preset, want); loc != canon {
		p.t.Errorf("%s: address = %s on load, want the canonical %s", p.engine(), loc, canon)
	}
}

// checkAB pins the current settings: the A/B view opens and its pinned run
// (in a worker) steps.
func checkAB(p page) {
	p.navigate("/?preset=lan&techniques=epic,buffer")
	p.eval(`document.getElementById('ab-pin').click()`, nil)
	if !p.poll(`lab.ab().pinned && lab.ab().frames > 30 && !document.getElementById('ab-pane').hidden && document.querySelector('.stage').classList.contains('ab-on')`, 15*time.Second) {
		var st any
		p.eval(`lab.ab()`, &st)
		p.t.Fatalf("%s: the A/B view did not open and run: %v", p.engine(), st)
	}
	var techs []string
	p.eval(`lab.ab().techniques`, &techs)
	if !slices.Equal(techs, []string{"epic", "buffer"}) {
		p.t.Errorf("%s: the pinned run has techniques %v, want epic, buffer", p.engine(), techs)
	}
}

var sessionPath = regexp.MustCompile(`^/s/[a-z2-7]{12}$`)

// checkSessionSaveReopen saves the page as a session and opens the
// session's address afresh: the same settings.
func checkSessionSaveReopen(p page) {
	const link = "/?preset=wifi&latency=120&entities=3"
	_, want := settingsFromLink(p.t, link)
	p.navigate(link)
	name := "Harbor, " + p.engine()
	p.eval(`(() => {
		document.getElementById('save').click();
		document.getElementById('save-name').value = `+jsString(name)+`;
		document.getElementById('save-submit').click();
	})()`, nil)
	var path string
	if !waitFor(p.context(), func() bool {
		ctx, cancel := context.WithTimeout(p.context(), 5*time.Second)
		defer cancel()
		raw, err := p.evalJSON(ctx, `location.pathname`)
		return err == nil && json.Unmarshal(raw, &path) == nil && sessionPath.MatchString(path)
	}, 15*time.Second) {
		p.t.Fatalf("%s: saving did not go to the session's page (at %q)", p.engine(), path)
	}
	p.navigate(path)
	if diffs := settingsMismatch(p.controls(), want); len(diffs) > 0 {
		p.t.Errorf("%s: the reopened session differs from what was saved: %v", p.engine(), diffs)
	}
	var shown struct{ Name, Rev string }
	p.eval(`({Name: document.getElementById('session-name').textContent, Rev: document.getElementById('session-rev').textContent})`, &shown)
	if shown.Name != name || shown.Rev != "1" {
		p.t.Errorf("%s: the session's page shows %+v, want %q revision 1", p.engine(), shown, name)
	}
}

// checkHarnessSees checks the engine's harness itself: a page error, a
// console error and a request to another address than the test server's
// (127.0.0.2, loopback: it goes nowhere either way) are each seen, and the
// viewport is the size asked for. What it sees is taken, so it does not
// fail the test.
func checkHarnessSees(p page) {
	p.navigate("/?preset=lan")
	p.viewport(1024, 768)
	var size [2]int64
	p.eval(`[innerWidth, innerHeight]`, &size)
	if size != [2]int64{1024, 768} {
		p.t.Errorf("%s: viewport %d×%d, want 1024×768", p.engine(), size[0], size[1])
	}
	p.eval(`(() => {
		setTimeout(() => { throw new Error('harness-check thrown') });
		console.error('harness-check console');
	})()`, nil)
	// A navigation: the page's Content-Security-Policy stops a fetch
	// before any driver would see it.
	p.eval(`setTimeout(() => { location.href = 'http://127.0.0.2/harness-check' }, 200)`, nil)
	want := []string{"harness-check thrown", "harness-check console", "127.0.0.2"}
	var seen []string
	saw := func(w string) bool {
		return slices.ContainsFunc(seen, func(s string) bool { return strings.Contains(s, w) })
	}
	waitFor(p.context(), func() bool {
		seen = append(seen, p.takeProblems()...)
		return !slices.ContainsFunc(want, func(w string) bool { return !saw(w) })
	}, 10*time.Second)
	for _, w := range want {
		if !saw(w) {
			p.t.Errorf("%s: the harness did not see %q; it saw %q", p.engine(), w, seen)
		}
	}
}

// checkRecord records the view for a second with the Record button: the
// engine gives a video of a format the page asked for, a WebM wherever the
// engine has WebCodecs' VideoEncoder (WebKit through it). Then, in an
// engine whose MediaRecorder records WebM, it records again through
// WebCodecs (lab.capture.preferWebCodecs): the page's own WebM writer is
// checked in every engine.
func checkRecord(p page) {
	p.navigate("/?preset=lan")
	var encoder bool
	p.eval(`typeof VideoEncoder !== 'undefined'`, &encoder)
	got := recordOnce(p)
	switch {
	case strings.HasPrefix(got.Via, "WebCodecs"):
		checkCodecsWebM(p, got)
	case got.Size > 0:
		p.t.Logf("%s records %s through %s", p.engine(), got.Type, got.Via)
	case encoder:
		p.t.Errorf("%s: recorded 0 bytes of %s through %s, and it has a VideoEncoder for a WebM", p.engine(), got.Type, got.Via)
	default:
		// An engine without WebCodecs that offers a format it cannot
		// encode (WebKitGTK without an H.264 encoder) records nothing:
		// the page must say so.
		var errs string
		p.eval(pageErrorsJS, &errs)
		if !strings.Contains(errs, "recorded nothing") {
			p.t.Errorf("%s: recorded 0 bytes of %s and the page shows no error (%q)", p.engine(), got.Type, errs)
		}
		p.t.Logf("%s recorded nothing in %s, and says so", p.engine(), got.Type)
	}
	if !encoder || strings.HasPrefix(got.Via, "WebCodecs") {
		return
	}
	p.eval(`lab.capture.preferWebCodecs = true`, nil)
	got = recordOnce(p)
	p.eval(`lab.capture.preferWebCodecs = false`, nil)
	if !strings.HasPrefix(got.Via, "WebCodecs") {
		p.t.Fatalf("%s: recorded through %s with preferWebCodecs, want WebCodecs", p.engine(), got.Via)
	}
	checkCodecsWebM(p, got)
}

// pageErrorsJS is the text of the page's list of errors while it is
// shown, "" while it is hidden.
const pageErrorsJS = `document.getElementById('errors').hidden ? '' : document.getElementById('error-list').textContent`

// playRecordingJS plays the page's last recording (lab.capture.last) in a
// video element and gives its size and length, s (playedRecording). A
// MediaRecorder WebM has no duration in its header: seeking far past the
// end makes the browser find it.
const playRecordingJS = `new Promise((resolve, reject) => {
	const v = document.createElement('video');
	v.muted = true;
	setTimeout(() => reject(new Error('no metadata within 20 s')), 20000);
	v.onerror = () => reject(new Error('the recording does not load: ' + (v.error && v.error.code + ' ' + v.error.message)));
	const played = () => resolve({W: v.videoWidth, H: v.videoHeight, Duration: v.duration});
	v.onloadedmetadata = () => {
		if (Number.isFinite(v.duration)) { played(); return; }
		v.ondurationchange = () => { if (Number.isFinite(v.duration)) played(); };
		v.currentTime = 1e9;
	};
	v.src = URL.createObjectURL(lab.capture.last);
})`

// playedRecording is what playRecordingJS gives.
type playedRecording struct {
	W, H     int
	Duration float64
}

// recorded is what recordOnce read of a recording: its Blob's type and
// size, how it was recorded (Capture.via) and its frames' size.
type recorded struct {
	Type    string
	Size    int
	Via     string
	W, H    int
	Encoded struct{ Frames, Dropped int }
}

// recordOnce records the view for a second or so with the Record button.
func recordOnce(p page) recorded {
	p.t.Helper()
	p.eval(`lab.capture.last = null, document.getElementById('record').click(), true`, nil)
	// WebKitGTK's MediaRecorder hands its data over only when it stops:
	// no bytes while recording. A WebCodecs recording runs until it has
	// encoded 24 frames too: the page composes a frame per frame it draws,
	// which in WebKitGTK under Xvfb here is about 15 a second.
	if !p.poll(`lab.capture.recording && lab.capture.elapsed() >= 1.2 &&
		(!lab.capture.via.startsWith('WebCodecs') || lab.capture.encoded.frames - lab.capture.encoded.dropped >= 24)`, 20*time.Second) {
		var errs string
		p.eval(`document.getElementById('error-list')?.textContent ?? ''`, &errs)
		p.t.Fatalf("%s: the recording did not start: %s", p.engine(), errs)
	}
	p.eval(`document.getElementById('record').click()`, nil)
	if !p.poll(`!lab.capture.recording && lab.capture.last !== null`, 10*time.Second) {
		var errs string
		p.eval(pageErrorsJS, &errs)
		p.t.Fatalf("%s: the recording did not stop (%s): %s", p.engine(), p.evalString(`lab.capture.via`), errs)
	}
	var got recorded
	p.eval(`({Type: lab.capture.last.type, Size: lab.capture.last.size, Via: lab.capture.via,
		W: lab.capture.recorded.width, H: lab.capture.recorded.height, Encoded: lab.capture.encoded})`, &got)
	if got.Type != "video/webm" && got.Type != "video/mp4" {
		p.t.Errorf("%s: recorded %q, want a WebM or an MP4", p.engine(), got.Type)
	}
	return got
}

func (p page) evalString(expr string) string {
	p.t.Helper()
	var s string
	p.eval(expr, &s)
	return s
}

// checkCodecsWebM reads the WebM the page wrote from WebCodecs back, in
// Go: one video track of the codec the page chose at the recording's size,
// every frame the page encoded (at least 20), a keyframe first and a
// keyframe a second, each starting a Cluster with its cue, times that go up;
// and plays it in the page: its metadata loads with the
// recording's size and a duration.
func checkCodecsWebM(p page, got recorded) {
	p.t.Helper()
	if got.Type != "video/webm" || got.Size == 0 {
		p.t.Fatalf("%s: recorded %d bytes of %q through %s, want a WebM", p.engine(), got.Size, got.Type, got.Via)
	}
	b64 := p.evalString(`lab.capture.last.arrayBuffer().then((buf) => {
		const b = new Uint8Array(buf);
		let s = '';
		for (let i = 0; i < b.length; i += 0x8000) s += String.fromCharCode(...b.subarray(i, i + 0x8000));
		return btoa(s);
	})`)
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		p.t.Fatalf("%s: the WebM's base64: %v", p.engine(), err)
	}
	f, err := readWebM(data)
	if err != nil {
		p.t.Fatalf("%s: the WebM of %s (%d bytes) does not read: %v", p.engine(), got.Via, len(data), err)
	}
	codec := "V_VP8"
	if strings.HasPrefix(got.Via, "WebCodecs vp09") {
		codec = "V_VP9"
	}
	want := webmTrack{Number: 1, Type: 1, Codec: codec, Width: uint64(got.W), Height: uint64(got.H)}
	if f.DocType != "webm" || f.TimestampScale != 1_000_000 || len(f.Tracks) != 1 || f.Tracks[0] != want {
		p.t.Errorf("%s: the WebM of %s: DocType %q, TimestampScale %d, tracks %+v; want webm, 1000000, [%+v]",
			p.engine(), got.Via, f.DocType, f.TimestampScale, f.Tracks, want)
	}
	if encoded := got.Encoded.Frames - got.Encoded.Dropped; len(f.Blocks) < 20 || len(f.Blocks) != encoded {
		p.t.Fatalf("%s: the WebM of %s holds %d frames, want the %d encoded (%d composed, %d dropped), at least 20",
			p.engine(), got.Via, len(f.Blocks), encoded, got.Encoded.Frames, got.Encoded.Dropped)
	}
	if !f.Blocks[0].Key {
		p.t.Errorf("%s: the WebM's first frame is no keyframe", p.engine())
	}
	for i, b := range f.Blocks[1:] {
		if b.Time <= f.Blocks[i].Time || b.Track != 1 || b.Size == 0 {
			p.t.Errorf("%s: the WebM's frame %d: track %d, %d bytes at %d ms after %d ms; want track 1, bytes, a later time",
				p.engine(), i+1, b.Track, b.Size, b.Time, f.Blocks[i].Time)
			break
		}
	}
	last := f.Blocks[len(f.Blocks)-1].Time
	if !(f.Duration > float64(last)) {
		p.t.Errorf("%s: the WebM lasts %g ms with its last frame at %d ms; want longer", p.engine(), f.Duration, last)
	}
	// A keyframe a second, each the first of its Cluster, with its cue.
	keys := 0
	for i, b := range f.Blocks {
		if b.Key {
			keys++
		}
		if b.Key != b.First {
			p.t.Errorf("%s: the WebM's frame %d at %d ms: keyframe %v, first of its Cluster %v; want both or neither", p.engine(), i, b.Time, b.Key, b.First)
		}
	}
	if keys < 2 || keys != f.Cues {
		p.t.Errorf("%s: the WebM of %d ms holds %d keyframes and %d cues; want one each a second, at least 2", p.engine(), last, keys, f.Cues)
	}
	var played playedRecording
	p.eval(playRecordingJS, &played)
	if played.W != got.W || played.H != got.H || !(played.Duration > 0) {
		p.t.Errorf("%s: the WebM of %s plays at %d×%d for %g s, want %d×%d and a duration", p.engine(), got.Via, played.W, played.H, played.Duration, got.W, got.H)
	}
	p.t.Logf("%s: %s: %d bytes, %d frames over %d ms (%d composed, %d dropped), %d keyframes, plays %d×%d for %g s",
		p.engine(), got.Via, len(data), len(f.Blocks), last, got.Encoded.Frames, got.Encoded.Dropped, keys, played.W, played.H, played.Duration)
}
