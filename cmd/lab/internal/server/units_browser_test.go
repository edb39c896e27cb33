package server

// Real-browser test of the one unit rule (issue 22): a value typed in a
// number box, plain or with a unit, reads the same in the box, the address,
// lab params after the same -set, and the exports (harness in
// browser_harness_test.go).

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/report"
	"interplab/engine"
)

func TestBrowserUnitRoundTrip(t *testing.T) {
	b := openLab(t, "/?preset=harbor-after")
	typed := []struct {
		name, text string
		box, unit  string  // the box after Enter, and the unit beside it
		stored     float64 // what the engine runs
		query      string  // the address's value, decoded
		shown      string  // lab params' VALUE after -set name=text
	}{
		{"bandwidth", "256kbit/s", "256", "kbit/s", 256000, "256kbit/s", "256 kbit/s"},
		{"latency", "0.12", "0.12", "ms", 0.00012, "0.12ms", "0.12 ms"},
		{"loss", "2", "2", "%", 0.02, "2%", "2 %"},
	}
	for _, tt := range typed {
		b.typeInto(tt.name, tt.text)
		if !b.poll(`lab.settings()[`+jsString(tt.name)+`] === `+jsString(tt.query), 5*time.Second) {
			t.Fatalf("typed %s into %s: the page runs %s, want %s", tt.text, tt.name, b.setting(tt.name), tt.query)
		}
	}
	var boxes map[string]struct{ Value, Unit, Hint string }
	b.eval(`Object.fromEntries(['bandwidth', 'latency', 'loss'].map((n) => {
		const box = document.getElementById('n-' + n);
		return [n, {value: box.value, unit: box.parentElement.textContent.trim(), hint: box.title}];
	}))`, &boxes)
	loc, err := url.Parse(b.location())
	if err != nil {
		t.Fatal(err)
	}
	q := loc.Query()
	for _, tt := range typed {
		box := boxes[tt.name]
		if box.Value != tt.box || box.Unit != tt.unit {
			t.Errorf("%s box after typing %s shows %q %q, want %q %q", tt.name, tt.text, box.Value, box.Unit, tt.box, tt.unit)
		}
		if !strings.Contains(box.Hint, "a plain number in "+tt.unit) {
			t.Errorf("%s box's hint %q does not say a plain number is in %s", tt.name, box.Hint, tt.unit)
		}
		if got := q.Get(tt.name); got != tt.query {
			t.Errorf("address %s: %s=%q, want %q", loc, tt.name, got, tt.query)
		}
	}
	preset, s, errs := link.Parse(q)
	if len(errs) > 0 || preset != "harbor-after" {
		t.Fatalf("the page's address %s reads back as %q with %v", loc, preset, errs)
	}
	for _, tt := range typed {
		if p, _ := engine.Lookup(tt.name); p.Get(&s) != tt.stored {
			t.Errorf("the address's %s reads back as %v, want %v", tt.name, p.Get(&s), tt.stored)
		}
	}

	// lab params after -set with the text typed in the boxes shows the same
	// values, and the settings are the page's.
	c := cli.New("params", "", io.Discard, io.Discard)
	sf := c.SettingsFlags()
	args := []string{"-preset", "harbor-after"}
	for _, tt := range typed {
		args = append(args, "-set", tt.name+"="+tt.text)
	}
	if err := c.Flags.Parse(args); err != nil {
		t.Fatal(err)
	}
	set, err := sf.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if diffs := settingsMismatch(set, s); len(diffs) > 0 {
		t.Errorf("-set %v gives other settings than the page: %v", args, diffs)
	}
	var table bytes.Buffer
	if err := report.ParamTable(&table, engine.Params(), &set); err != nil {
		t.Fatal(err)
	}
	for _, tt := range typed {
		row := ""
		for line := range strings.SplitSeq(table.String(), "\n") {
			if f := strings.Fields(line); len(f) > 0 && f[0] == tt.name {
				row = strings.Join(f, " ")
			}
		}
		// NAME GROUP UNIT RANGE DEFAULT VALUE...: the value follows the default.
		p, _ := engine.Lookup(tt.name)
		if !strings.Contains(row, p.Show(p.Default)+" "+tt.shown+" ") {
			t.Errorf("lab params row %q lacks the value %s after the default %s", row, tt.shown, p.Show(p.Default))
		}
	}
	var js []report.Param
	if data, err := json.Marshal(report.ParamValues(engine.Params(), &set)); err != nil || json.Unmarshal(data, &js) != nil {
		t.Fatal("lab params -json")
	}
	for _, p := range js {
		for _, tt := range typed {
			if p.Name == tt.name && (p.ValueText != tt.query || *p.Value != tt.stored) {
				t.Errorf("lab params -json %s = %v %q, want %v %q", p.Name, *p.Value, p.ValueText, tt.stored, tt.query)
			}
		}
	}

	// The exports: the JSON keeps SI units, netem writes tc's units.
	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(b.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: new(true),
	}); err != nil {
		t.Fatal(err)
	}
	for format, want := range map[string][]string{
		"json":  {`"latency": 0.00012,`, `"loss": 0.02,`, `"bandwidth": 256000,`},
		"netem": {"delay 20.12ms", "loss random 2%", "rate 256kbit"},
	} {
		body := b.download(dir, "export-"+format)
		file, err := export.Render(format, export.Origin{Preset: "harbor-after"}, s)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, file.Body) {
			t.Errorf("export %s differs from lab export with the page's settings:\n%s", format, body)
		}
		for _, w := range want {
			if !bytes.Contains(body, []byte(w)) {
				t.Errorf("export %s lacks %q:\n%s", format, w, body)
			}
		}
	}

	// A value out of range is refused in the box's unit, integers in full.
	b.typeInto("bandwidth", "1e9")
	msg := ""
	if b.poll(`(() => { const e = document.getElementById('p-bandwidth').closest('.field').querySelector('.field-error'); return !!e && !e.hidden && e.textContent !== ''; })()`, 5*time.Second) {
		b.eval(`document.getElementById('p-bandwidth').closest('.field').querySelector('.field-error').textContent`, &msg)
	}
	if want := `bandwidth = "1e9" is not allowed: want [0, 100000] kbit/s`; msg != want {
		t.Errorf("typed 1e9 into bandwidth: message %q, want %q", msg, want)
	}
	b.finish()
}
