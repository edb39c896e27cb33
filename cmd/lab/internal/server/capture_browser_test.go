package server

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserCapture records the view with the Record button and checks the
// WebM plays (a duration above zero), and that the PNG holds the view, the
// timeline and the metrics.
func TestBrowserCapture(t *testing.T) {
	b := openLab(t, "/?preset=wifi")
	b.do(chromedp.Click(chromedp.ID("record")))
	if !b.poll(`lab.capture.recording && lab.capture.elapsed() >= 1 && lab.capture.bytes > 0`, 20*time.Second) {
		t.Fatal("the recording did not start, or recorded nothing")
	}
	b.do(chromedp.Click(chromedp.ID("record")))
	if !b.poll(`!lab.capture.recording && lab.capture.last !== null`, 10*time.Second) {
		t.Fatal("the recording did not stop")
	}
	var size int
	b.eval(`lab.capture.last.size`, &size)
	if size == 0 {
		t.Fatal("the WebM is empty")
	}
	var played playedRecording
	b.eval(playRecordingJS, &played)
	// The canvas stream makes a frame per drawn frame, so a loaded machine
	// records fewer: any positive length shows a WebM that plays.
	if !(played.Duration > 0) {
		t.Errorf("the WebM plays for %g s, want the time recorded", played.Duration)
	}

	var png struct{ W, H, ViewH, LineH int }
	b.eval(`lab.capture.png().then((blob) => createImageBitmap(blob)).then((img) => ({
		W: img.width, H: img.height,
		ViewH: document.getElementById('view').height + document.getElementById('timeline').height,
	}))`, &png)
	if png.W == 0 || png.H <= png.ViewH {
		t.Errorf("PNG %d×%d, want the view and timeline (%d px high) with the metrics below", png.W, png.H, png.ViewH)
	}
}

// TestBrowserCaptureEncoderError records through WebCodecs with an encoder
// that fails after its first frame: the recording ends, the page says why,
// and Record can start again, instead of a recorder that never stops.
func TestBrowserCaptureEncoderError(t *testing.T) {
	b := openLab(t, "/?preset=lan")
	b.eval(`(() => {
		const Real = VideoEncoder;
		window.VideoEncoder = class extends Real {
			constructor(init) {
				super(init);
				this.failWith = init.error;
			}
			encode(frame, options) {
				super.encode(frame, options);
				if (this.failing) return;
				this.failing = true;
				setTimeout(() => this.failWith(new DOMException('out of test memory', 'EncodingError')), 300);
			}
		};
		lab.capture.preferWebCodecs = true;
		return true;
	})()`, nil)
	b.do(chromedp.Click(chromedp.ID("record")))
	if !b.poll(`lab.capture.via.startsWith('WebCodecs') && !lab.capture.recording && !lab.capture.starting`, 10*time.Second) {
		t.Fatal("the recording did not end after its encoder failed")
	}
	var shown struct {
		Errors, Button string
		Last           bool
	}
	b.eval(`({Errors: `+pageErrorsJS+`,
		Button: document.getElementById('record').textContent, Last: lab.capture.last !== null})`, &shown)
	if !strings.Contains(shown.Errors, "video encoder") || !strings.Contains(shown.Errors, "out of test memory") || shown.Button != "Record" || shown.Last {
		t.Errorf("after the encoder failed: errors %q, button %q, a recording kept %v; want the encoder's error, Record, none", shown.Errors, shown.Button, shown.Last)
	}
	b.eval(`window.VideoEncoder = Object.getPrototypeOf(VideoEncoder), true`, nil)
	b.do(chromedp.Click(chromedp.ID("record")))
	if !b.poll(`lab.capture.recording && lab.capture.bytes > 0`, 10*time.Second) {
		t.Fatal("Record does not start again after the encoder failed")
	}
}

// capturedPNG is what TestBrowserCaptureBugReport reads back from the PNG:
// its size, and per view box and per piece of text the capture says it
// drew, how many pixels there are not the background (ink) and, in the
// views, how many are of the mirror technique's colour.
type capturedPNG struct {
	W, H, DrawnW, DrawnH int
	ViewW                []int
	Boxes                []struct{ X, Y, W, H float64 }
	Views                []struct{ Mirror, Ink int }
	Texts                []struct {
		Kind, Text string
		Ink        int
	}
	Href string
}

// pixelsJS defines, in the page, counting helpers over RGBA pixels.
const pixelsJS = `
	const rgb = (h) => [1, 3, 5].map((i) => parseInt(h.trim().slice(i, i + 2), 16));
	const mirror = rgb(getComputedStyle(document.documentElement).getPropertyValue('--tech-mirror'));
	const bg = rgb('#0d1117');
	const near = (px, i, c, tol) => Math.abs(px[i] - c[0]) <= tol && Math.abs(px[i + 1] - c[1]) <= tol && Math.abs(px[i + 2] - c[2]) <= tol;
	const count = (px, w, box, c, tol, match) => {
		let n = 0;
		const x0 = Math.max(0, Math.floor(box.x)), y0 = Math.max(0, Math.floor(box.y));
		for (let y = y0; y < Math.ceil(box.y + box.h); y++) {
			for (let x = x0; x < Math.ceil(box.x + box.w); x++) {
				if (near(px, (y * w + x) * 4, c, tol) === match) n++;
			}
		}
		return n;
	};
`

// TestBrowserCaptureBugReport: with the A/B view pinned, the PNG holds both
// views side by side, neither blank, each with its legend, the timeline,
// the metrics and the deltas, the settings that differ from the preset, the
// link of the state and the time; the WebM holds both views side by side.
func TestBrowserCaptureBugReport(t *testing.T) {
	b := openLab(t, "/?preset=mirror-30hz&latency=120ms&entities=4")
	b.do(chromedp.Click(chromedp.ID("ab-pin")))
	if !b.poll(`lab.ab().pinned && lab.ab().frames > 60 && lab.state().frames > 60`, 20*time.Second) {
		t.Fatalf("the A/B view did not run: %+v", b.ab())
	}
	b.eval(`lab.pause()`, nil)

	var png capturedPNG
	b.eval(`(async () => {`+pixelsJS+`
		const blob = await lab.capture.png();
		const d = lab.capture.drawn;
		const img = await createImageBitmap(blob);
		const c = new OffscreenCanvas(img.width, img.height);
		const ctx = c.getContext('2d');
		ctx.drawImage(img, 0, 0);
		const px = ctx.getImageData(0, 0, img.width, img.height).data;
		return {
			W: img.width, H: img.height, DrawnW: d.width, DrawnH: d.height,
			ViewW: ['view', 'ab-view'].map((id) => document.getElementById(id).width),
			Boxes: d.views,
			Views: d.views.map((v) => ({Mirror: count(px, img.width, v, mirror, 24, true), Ink: count(px, img.width, v, bg, 6, false)})),
			Texts: d.texts.map((t) => ({Kind: t.kind, Text: t.text, Ink: count(px, img.width, t, bg, 40, false)})),
			Href: location.href,
		};
	})()`, &png)
	if png.W != png.DrawnW || png.H != png.DrawnH {
		t.Errorf("PNG %d×%d, the capture says it drew %d×%d", png.W, png.H, png.DrawnW, png.DrawnH)
	}
	if len(png.Boxes) != 2 {
		t.Fatalf("the PNG has %d views, want the current and the pinned", len(png.Boxes))
	}
	for i, box := range png.Boxes {
		if int(box.W) != png.ViewW[i] {
			t.Errorf("view %d is %g px wide in the PNG, the canvas %d", i, box.W, png.ViewW[i])
		}
		if v := png.Views[i]; v.Mirror < 30 || v.Ink < 1000 {
			t.Errorf("view %d of the PNG (%+v) has %d mirror-coloured pixels and %d not background: blank", i, box, v.Mirror, v.Ink)
		}
	}
	if a, p := png.Boxes[0], png.Boxes[1]; p.X < a.X+a.W || p.Y != a.Y {
		t.Errorf("the views are not side by side: %+v, %+v", a, p)
	}
	if png.W < int(png.Boxes[1].X+png.Boxes[1].W) {
		t.Errorf("the PNG is %d px wide, the pinned view ends at %g", png.W, png.Boxes[1].X+png.Boxes[1].W)
	}

	said := map[string][]string{}
	for _, x := range png.Texts {
		said[x.Kind] = append(said[x.Kind], x.Text)
		if strings.TrimSpace(x.Text) != "" && x.Ink == 0 {
			t.Errorf("the capture says it wrote %s %q, and its box holds no ink", x.Kind, x.Text)
		}
	}
	if legend := strings.Join(said["legend"], ","); legend != "ground truth,mirror,ground truth,mirror" {
		t.Errorf("legends %q, want ground truth and mirror over each view", legend)
	}
	if titles := said["view-title"]; len(titles) != 2 || !strings.HasPrefix(titles[1], "pinned: ") {
		t.Errorf("view titles %q, want the current and the pinned one's", titles)
	}
	if link := strings.Join(said["link"], ""); link != png.Href {
		t.Errorf("the PNG's link %q, want the page's %q", link, png.Href)
	}
	if s := strings.Join(said["setting"], "\n"); !strings.Contains(s, "latency = 120 ms (preset: 50 ms)") || !strings.Contains(s, "entities = 4") ||
		strings.Join(said["settings-title"], "") != "Settings that differ from the preset:" {
		t.Errorf("settings in the PNG %q under %q, want latency and entities against the preset", s, said["settings-title"])
	}
	if title := strings.Join(said["title"], " "); !strings.Contains(title, "mirror-30hz") {
		t.Errorf("PNG title %q, want the preset named", title)
	}
	if tm := strings.Join(said["time"], " "); !regexp.MustCompile(`^captured \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC[+−]\d\d:\d\d · t = \d+\.\d\d s · frame \d+$`).MatchString(tm) {
		t.Errorf("PNG time line %q, want the wall time and the run's clock", tm)
	}
	if m := strings.Join(said["metric"], ","); !strings.Contains(m, "errRMS") || !strings.Contains(strings.Join(said["table-title"], ","), "A/B") {
		t.Errorf("PNG metrics %q, tables %q: want the metrics and the A/B deltas", m, said["table-title"])
	}

	// The WebM: both views side by side in every frame.
	b.eval(`lab.resume()`, nil)
	b.do(chromedp.Click(chromedp.ID("record")))
	if !b.poll(`lab.capture.recording && lab.capture.elapsed() >= 1.5 && lab.capture.bytes > 0`, 20*time.Second) {
		t.Fatal("the recording did not start, or recorded nothing")
	}
	b.do(chromedp.Click(chromedp.ID("record")))
	if !b.poll(`!lab.capture.recording && lab.capture.last !== null`, 10*time.Second) {
		t.Fatal("the recording did not stop")
	}
	var webm struct {
		W, H, RecW, RecH int
		Slots            []struct{ X, Y, W, H float64 }
		Mirror           []int
		Legend           []string
	}
	b.eval(`(async () => {`+pixelsJS+`
		const rec = lab.capture.recorded;
		const v = document.createElement('video');
		v.muted = true;
		v.style.cssText = 'position: fixed; left: 0; top: 0; width: 320px; z-index: 99';
		document.body.append(v);
		await new Promise((resolve, reject) => {
			v.onloadeddata = resolve;
			v.onerror = () => reject(new Error('the WebM does not load: ' + (v.error && v.error.message)));
			v.src = URL.createObjectURL(lab.capture.last);
		});
		// A frame well into the clip, as the browser presents it.
		await v.play();
		for (let i = 0; i < 10 && !v.ended; i++) await new Promise((r) => v.requestVideoFrameCallback(r));
		v.pause();
		v.remove();
		const c = document.createElement('canvas');
		c.width = v.videoWidth;
		c.height = v.videoHeight;
		const ctx = c.getContext('2d');
		ctx.drawImage(v, 0, 0);
		const px = ctx.getImageData(0, 0, c.width, c.height).data;
		return {W: v.videoWidth, H: v.videoHeight, RecW: rec.width, RecH: rec.height, Slots: rec.views,
			Mirror: rec.views.map((s) => count(px, c.width, s, mirror, 48, true)),
			Legend: rec.texts.filter((t) => t.kind === 'legend').map((t) => t.text)};
	})()`, &webm)
	if webm.W != webm.RecW || webm.H != webm.RecH {
		t.Errorf("WebM %d×%d, want the composed %d×%d", webm.W, webm.H, webm.RecW, webm.RecH)
	}
	if len(webm.Slots) != 2 || webm.Slots[1].X < webm.Slots[0].X+webm.Slots[0].W || float64(webm.W) < webm.Slots[1].X+webm.Slots[1].W-1 {
		t.Fatalf("WebM %d px wide with views at %+v, want both side by side", webm.W, webm.Slots)
	}
	for i, n := range webm.Mirror {
		if n < 10 {
			t.Errorf("WebM view %d has %d mirror-coloured pixels: blank", i, n)
		}
	}
	if legend := strings.Join(webm.Legend, ","); legend != "ground truth,mirror,ground truth,mirror" {
		t.Errorf("WebM legends %q, want ground truth and mirror over each view", legend)
	}
}
