package server

import (
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
	// A MediaRecorder WebM has no duration in its header: seeking far past
	// the end makes the browser find it.
	var duration float64
	b.eval(`new Promise((resolve, reject) => {
		const v = document.createElement('video');
		v.muted = true;
		v.onerror = () => reject(new Error('the WebM does not load: ' + (v.error && v.error.message)));
		v.onloadedmetadata = () => {
			if (Number.isFinite(v.duration)) { resolve(v.duration); return; }
			v.ondurationchange = () => { if (Number.isFinite(v.duration)) resolve(v.duration); };
			v.currentTime = 1e9;
		};
		v.src = URL.createObjectURL(lab.capture.last);
	})`, &duration)
	// The canvas stream makes a frame per drawn frame, so a loaded machine
	// records fewer: any positive length shows a WebM that plays.
	if !(duration > 0) {
		t.Errorf("the WebM plays for %g s, want the time recorded", duration)
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
