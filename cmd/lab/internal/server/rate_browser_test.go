package server

import (
	"strings"
	"testing"
	"time"
)

// setBox types text into parameter name's number box and applies it, as
// Enter does, whether or not the box is on screen.
func (b *labTab) setBox(name, text string) {
	b.t.Helper()
	b.eval(`(() => { const box = document.getElementById('n-`+name+`'); box.value = `+jsString(text)+`;
		box.dispatchEvent(new Event('input', {bubbles: true})); box.dispatchEvent(new Event('change', {bubbles: true})); })()`, nil)
}

// TestGameRateFollowBrowser: on the Mirror preset at 30 Hz, Mirror's own
// 60 Hz is one setting: mirror.sendRate = 60 moves the lab's sendRate and
// tickRate with it, with nothing refused and no advice; sendRate = 60
// alone is refused with a message naming mirror.sendRate.
func TestGameRateFollowBrowser(t *testing.T) {
	b := openLab(t, "/?preset=mirror-30hz")
	b.setBox("sendRate", "60")
	var errs string
	if !b.poll(`document.getElementById('error-list').textContent.includes('mirror.sendRate')`, 5*time.Second) {
		b.eval(`document.getElementById('error-list').textContent`, &errs)
		t.Errorf("sendRate = 60 alone on mirror-30hz: refusal %q, want it to name mirror.sendRate", errs)
	}
	b.setBox("sendRate", "30") // back, the refusal cleared
	b.setBox("mirror.sendRate", "60")
	if !b.poll(`lab.settings()['mirror.sendRate'] === '60Hz' && lab.settings().sendRate === '60Hz' && lab.settings().tickRate === '60Hz'`, 5*time.Second) {
		t.Fatalf("mirror.sendRate = 60: mirror.sendRate %s, sendRate %s, tickRate %s; want all 60Hz",
			b.setting("mirror.sendRate"), b.setting("sendRate"), b.setting("tickRate"))
	}
	b.eval(`document.getElementById('error-list').textContent`, &errs)
	var advice bool
	b.eval(`document.getElementById('advice').hidden`, &advice)
	if strings.TrimSpace(errs) != "" || !advice {
		t.Errorf("after mirror.sendRate = 60: errors %q, advice hidden %v; want none", errs, advice)
	}
	// Down again: the lab's rates come down with it (sendRate first).
	b.setBox("mirror.sendRate", "20")
	if !b.poll(`lab.settings().sendRate === '20Hz' && lab.settings().tickRate === '20Hz'`, 5*time.Second) {
		t.Errorf("mirror.sendRate = 20: sendRate %s, tickRate %s; want 20Hz", b.setting("sendRate"), b.setting("tickRate"))
	}
}
