package server

// Real-browser tests of precise input and editing safety on the lab page:
// typed values in the number boxes (checked by the engine's Param.Parse
// through the WASM parse), arrow-key steps, undo/redo of slider changes,
// the unsaved-changes marker and leave prompt of a session page, and an
// address query applied as unsaved edits (harness in
// browser_harness_test.go).

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// typeInto replaces the text of the number box of parameter name and
// presses Enter.
func (b *labTab) typeInto(name, text string) {
	b.t.Helper()
	sel := chromedp.ID("n-" + name)
	b.do(chromedp.Evaluate[chromedp.Void](`document.getElementById('n-`+name+`').value = ''`), chromedp.SendKeys(sel, text+kb.Enter))
}

// setting returns a setting's text form as the page's engine runs it
// (Param.Format: 73ms, 2%).
func (b *labTab) setting(name string) string {
	b.t.Helper()
	var v string
	b.eval(`lab.settings()[`+jsString(name)+`]`, &v)
	return v
}

// must returns v, for a value the test built itself.
func must(v float64, err error) float64 {
	if err != nil {
		panic(err)
	}
	return v
}

func jsString(s string) string { return "'" + strings.ReplaceAll(s, "'", `\'`) + "'" }

func TestBrowserTypedValues(t *testing.T) {
	b := openLab(t, "/")
	// A plain number is in the unit shown (ms); units are converted.
	b.typeInto("latency", "73")
	if !b.poll(`lab.settings().latency === '73ms'`, 5*time.Second) {
		t.Errorf("typed 73 (ms): latency = %s, want 73ms", b.setting("latency"))
	}
	// A value the slider's step cannot hold is kept as typed.
	b.typeInto("latency", "20.5ms")
	if !b.poll(`lab.settings().latency === '20.5ms'`, 5*time.Second) {
		t.Errorf("typed 20.5ms: latency = %s, want 20.5ms", b.setting("latency"))
	}
	b.typeInto("loss", "2%")
	if !b.poll(`lab.settings().loss === '2%'`, 5*time.Second) {
		t.Errorf("typed 2%%: loss = %s, want 2%%", b.setting("loss"))
	}
	b.typeInto("jitter", "0.015s")
	if !b.poll(`lab.settings().jitter === '15ms'`, 5*time.Second) {
		t.Errorf("typed 0.015s: jitter = %s", b.setting("jitter"))
	}
	if u := b.location(); !strings.Contains(u, "latency=20.5ms") || !strings.Contains(u, "loss=2%25") {
		t.Errorf("the address does not mirror the typed values: %s", u)
	}

	// A wrong value is refused with the engine's own message, quoting what
	// was typed and the range in the unit shown, and the running value stays.
	p, _ := engine.Lookup("latency")
	_, want := p.Parse("2000")
	b.typeInto("latency", "2000")
	if !b.poll(`document.getElementById('p-latency').closest('.field').querySelector('.field-error')?.textContent !== '' && !document.getElementById('p-latency').closest('.field').querySelector('.field-error').hidden`, 5*time.Second) {
		t.Fatal("typed 2000 ms: no message under latency")
	}
	var msg string
	b.eval(`document.getElementById('p-latency').closest('.field').querySelector('.field-error').textContent`, &msg)
	if want == nil || msg != want.Error() {
		t.Errorf("refused latency: page says %q, the engine %v", msg, want)
	}
	if want == nil || !strings.Contains(msg, `"2000" is not allowed: want [0, 1000] ms`) {
		t.Errorf("refused latency: page says %q, want the typed text and the range in ms", msg)
	}
	if got := b.setting("latency"); got != "20.5ms" {
		t.Errorf("after a refused value latency = %s, want it unchanged at 20.5ms", got)
	}
	b.typeInto("jitter", "12 parsecs")
	if !b.poll(`document.getElementById('p-jitter').closest('.field').querySelector('.field-error')?.textContent.includes('with a unit: ms, s')`, 5*time.Second) {
		t.Error("typed 12 parsecs: no message naming the units")
	}
	// Escape takes the typing back.
	b.do(chromedp.SendKeys(chromedp.ID("n-jitter"), kb.Escape))
	if !b.poll(`document.getElementById('p-jitter').closest('.field').querySelector('.field-error').hidden && document.getElementById('n-jitter').value === '15'`, 5*time.Second) {
		t.Error("Escape does not restore the jitter box")
	}

	// ↑ steps by the slider's step (1 ms), Shift+↑ by a tenth of it.
	b.typeInto("delay", "100")
	b.poll(`lab.settings().delay === '100ms'`, 5*time.Second)
	b.do(chromedp.KeyEvent(kb.ArrowUp))
	if !b.poll(`lab.settings().delay === '101ms'`, 5*time.Second) {
		t.Errorf("↑: delay = %s, want 101ms", b.setting("delay"))
	}
	b.do(chromedp.KeyEvent(kb.ArrowUp, chromedp.KeyModifiers(chromedp.ModifierShift)))
	if !b.poll(`lab.settings().delay === '101.1ms'`, 5*time.Second) {
		t.Errorf("Shift+↑: delay = %s, want 101.1ms", b.setting("delay"))
	}
	b.do(chromedp.KeyEvent(kb.ArrowDown))
	if !b.poll(`lab.settings().delay === '100.1ms'`, 5*time.Second) {
		t.Errorf("↓: delay = %s, want 100.1ms", b.setting("delay"))
	}
	b.finish()
}

func TestBrowserUndoRedo(t *testing.T) {
	b := openLab(t, "/")
	start := b.setting("latency")
	// Two slider changes, far enough apart to be two steps of the history.
	b.do(chromedp.Focus(chromedp.ID("p-latency")), chromedp.KeyEvent(kb.PageUp))
	if !b.poll(`lab.settings().latency !== `+jsString(start), 5*time.Second) {
		t.Fatal("PageUp on the latency slider changed nothing")
	}
	moved := b.setting("latency")
	b.do(chromedp.Focus(chromedp.ID("p-loss")), chromedp.KeyEvent(kb.PageUp))
	if !b.poll(`lab.settings().loss !== '0%'`, 5*time.Second) {
		t.Fatal("PageUp on the loss slider changed nothing")
	}
	loss := b.setting("loss")
	if !b.poll(`lab.history().undo === 2`, 5*time.Second) {
		var h map[string]int
		b.eval(`lab.history()`, &h)
		t.Fatalf("history = %v, want 2 undo steps", h)
	}
	undo := chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl))
	redo := chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl, chromedp.ModifierShift))
	b.do(undo)
	if !b.poll(`lab.settings().loss === '0%' && lab.settings().latency === `+jsString(moved), 5*time.Second) {
		t.Errorf("Ctrl+Z: loss %s latency %s, want 0%% and %s", b.setting("loss"), b.setting("latency"), moved)
	}
	b.do(undo)
	if !b.poll(`lab.settings().latency === `+jsString(start), 5*time.Second) {
		t.Errorf("second Ctrl+Z: latency %s, want %s", b.setting("latency"), start)
	}
	var slider float64
	b.eval(`Number(document.getElementById('p-latency').value)`, &slider)
	if lp, _ := engine.Lookup("latency"); slider != must(lp.Parse(start)) {
		t.Errorf("undo left the slider at %v (s), want %s", slider, start)
	}
	b.do(redo)
	if !b.poll(`lab.settings().latency === `+jsString(moved), 5*time.Second) {
		t.Errorf("Ctrl+Shift+Z: latency %s, want %s", b.setting("latency"), moved)
	}
	b.do(redo)
	if !b.poll(`lab.settings().loss === `+jsString(loss), 5*time.Second) {
		t.Errorf("second Ctrl+Shift+Z: loss %s, want %s", b.setting("loss"), loss)
	}
	// A typed value is one step too.
	b.typeInto("jitter", "33")
	b.poll(`lab.settings().jitter === '33ms'`, 5*time.Second)
	b.do(chromedp.Focus(chromedp.ID("p-loss")), undo)
	if !b.poll(`lab.settings().jitter === '10ms'`, 5*time.Second) {
		t.Errorf("Ctrl+Z after typing: jitter %s, want the default 10ms", b.setting("jitter"))
	}
	b.finish()
}

func TestBrowserUnsavedAndQueryEdits(t *testing.T) {
	h, st := newSessionServer(t)
	first, err := st.Create(store.Draft{Name: "playtest", Settings: engine.Defaults()}, storeT0)
	if err != nil {
		t.Fatal(err)
	}
	// The address asks for loss=20% and a bad key: the loss is applied as an
	// unsaved edit with a notice; the bad key is reported.
	b := openLabOn(t, h, "/s/"+first.ID+"?loss=20%25&lsss=1")
	b.waitLive()
	if !b.poll(`lab.settings().loss === '20%'`, 5*time.Second) {
		t.Errorf("?loss=20%%: loss = %s, want 20%%", b.setting("loss"))
	}
	var notice string
	b.eval(`document.getElementById('edits-notice').hidden ? '' : document.getElementById('edits-notice').textContent`, &notice)
	if !strings.Contains(notice, "loss = 20 %") || !strings.Contains(notice, "unsaved") {
		t.Errorf("edits notice = %q", notice)
	}
	if !strings.Contains(notice, "Not applied: lsss") || !strings.Contains(notice, "did you mean") {
		t.Errorf("the notice does not report the bad key: %q", notice)
	}
	if !b.holds(`!document.getElementById('unsaved').hidden && document.title.startsWith('• ')`) {
		t.Error("no unsaved marker after the query's edit")
	}
	// Leaving asks first.
	if !b.holds(`(() => { const e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; })()`) {
		t.Error("no leave prompt with unsaved changes")
	}
	// Saving clears the marker and the prompt.
	b.do(chromedp.Click(chromedp.ID("save")), chromedp.WaitVisible(chromedp.ID("save-dialog")),
		chromedp.Click(chromedp.ID("save-submit")))
	if !b.poll(`document.getElementById('session-rev').textContent === '2' && document.getElementById('unsaved').hidden`, 5*time.Second) {
		t.Fatal("after Save the unsaved marker stays")
	}
	if b.holds(`(() => { const e = new Event('beforeunload', {cancelable: true}); window.dispatchEvent(e); return e.defaultPrevented; })()`) {
		t.Error("a leave prompt with nothing unsaved")
	}
	// A slider change marks it again; undoing it clears it.
	b.do(chromedp.Focus(chromedp.ID("p-latency")), chromedp.KeyEvent(kb.PageUp))
	if !b.poll(`!document.getElementById('unsaved').hidden`, 5*time.Second) {
		t.Error("a slider change does not show the unsaved marker")
	}
	b.do(chromedp.KeyEvent("z", chromedp.KeyModifiers(chromedp.ModifierCtrl)))
	if !b.poll(`document.getElementById('unsaved').hidden`, 5*time.Second) {
		t.Error("undoing the only change leaves the unsaved marker")
	}
	b.finish()
}
