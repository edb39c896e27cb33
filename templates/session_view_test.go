package templates

import (
	"strings"
	"testing"

	"golang.org/x/net/html"

	"interplab/engine"
)

func TestShown(t *testing.T) {
	tests := []struct {
		name string
		v    float64
		want string
	}{
		{"latency", 0.12, "120 ms"},
		{"latency", 0.1234, "123.4 ms"},
		{"jitter", 0.0002, "0.2 ms"},
		{"loss", 0.000186, "0.0186 %"},
		{"bandwidth", 256000, "256 kbit/s"},
		{"seed", 2761734960, "2761734960"},
		{"loss", 0.035, "3.5 %"},
		{"tickRate", 60, "60 Hz"},
		{"jitterDist", 2, "pareto"},
		{"adaptive", 1, "true"},
		{"techniques", 0b11000, "buffer,hermite"},
		{"seed", 4242, "4242"},
	}
	for _, tt := range tests {
		p, ok := engine.Lookup(tt.name)
		if !ok {
			t.Fatalf("no parameter %s", tt.name)
		}
		if got := Shown(p, tt.v); got != tt.want {
			t.Errorf("Shown(%s, %v) = %q, want %q", tt.name, tt.v, got, tt.want)
		}
	}
}

func TestCompareURL(t *testing.T) {
	got := CompareURL("q:preset=wifi&loss=3", "session:abcdefgh2345@2")
	want := "/compare?v=q%3Apreset%3Dwifi%26loss%3D3&v=session%3Aabcdefgh2345%402"
	if got != want {
		t.Errorf("CompareURL = %q, want %q", got, want)
	}
}

func TestCompareChoicesDefault(t *testing.T) {
	presets := []PresetView{{Name: "lan", Title: "LAN"}, {Name: "wifi", Title: "Wi-Fi"}}
	session := &SessionView{ID: "abcdefgh2345", Rev: 2, Latest: 3, Live: false,
		Revisions: []RevisionView{{Rev: 3, Name: "c"}, {Rev: 2, Name: "b"}, {Rev: 1, Name: "a"}}}
	tests := []struct {
		name string
		v    PageView
		want string // the one ref checked
	}{
		{"plain page", PageView{Presets: presets}, "preset:lan"},
		{"page on a preset", PageView{Presets: presets, Preset: "wifi"}, "preset:wifi"},
		{"session page", PageView{Presets: presets, Preset: "wifi", Session: session}, "session:abcdefgh2345@2"},
	}
	for _, tt := range tests {
		var checked []string
		for _, c := range compareChoices(tt.v) {
			if c.Checked {
				checked = append(checked, c.Ref)
			}
		}
		if len(checked) != 1 || checked[0] != tt.want {
			t.Errorf("%s: checked %q, want only %q", tt.name, checked, tt.want)
		}
		if href := compareHref(tt.v); !strings.HasSuffix(href, "&v="+strings.NewReplacer(":", "%3A", "@", "%40").Replace(tt.want)) {
			t.Errorf("%s: compare link %s does not end with %s", tt.name, href, tt.want)
		}
	}
}

// A session page carries the session for its scripts and shows its name
// as text.
func TestPageSession(t *testing.T) {
	v := PageView{Params: engine.Params(), Settings: engine.Defaults(),
		Session: &SessionView{ID: "abcdefgh2345", Rev: 2, Latest: 2, Live: true, Name: "<b>x</b>", Notes: "n"}}
	doc := render(t, v)
	bar := find(doc, func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "session" })
	if len(bar) != 1 {
		t.Fatalf("%d session bars, want 1", len(bar))
	}
	for key, want := range map[string]string{"data-id": "abcdefgh2345", "data-rev": "2", "data-live": "true", "data-name": "<b>x</b>"} {
		if got, _ := attr(bar[0], key); got != want {
			t.Errorf("session bar %s = %q, want %q", key, got, want)
		}
	}
	name := find(doc, func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "session-name" })
	if len(name) != 1 || name[0].FirstChild == nil || name[0].FirstChild.Type != html.TextNode ||
		name[0].FirstChild.Data != "<b>x</b>" || name[0].FirstChild.NextSibling != nil {
		t.Error("the session's name is not shown as text")
	}
	if len(find(doc, func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "sync-state" })) != 1 {
		t.Error("a live session page has no sync indicator")
	}
	plain := render(t, PageView{Params: engine.Params(), Settings: engine.Defaults()})
	if len(find(plain, func(n *html.Node) bool { id, _ := attr(n, "id"); return id == "session" || id == "sync-state" })) != 0 {
		t.Error("a plain page has a session bar")
	}
}
