package presets

import (
	"math"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"interplab/engine"
	"interplab/engine/study"
)

func TestAllValid(t *testing.T) {
	list, err := All()
	if err != nil {
		t.Fatalf("All() error: %v", err)
	}
	seen := map[string]bool{}
	for _, p := range list {
		if seen[p.Name] {
			t.Errorf("preset %q listed twice", p.Name)
		}
		seen[p.Name] = true
		if err := p.Settings.Validate(); err != nil {
			t.Errorf("preset %q: Validate() = %v", p.Name, err)
		}
		if strings.Contains(p.Doc, "\n") || len(p.Doc) > 200 {
			t.Errorf("preset %q: doc is not one short line: %q", p.Name, p.Doc)
		}
	}
	for _, name := range []string{"epic-seed", "harbor-before", "harbor-after", "lan", "wifi", "4g",
		"ping80", "ping120", "ping200", "source-66tick", "ngo-defaults", "mirror-30hz", "geckos-20fps", "unreal-defaults",
		"lightyear-defaults", "ioquake3-defaults"} {
		if !seen[name] {
			t.Errorf("preset %q missing", name)
		}
	}
	if list[0].Name != "epic-seed" {
		t.Errorf("first preset = %q, want epic-seed (display order)", list[0].Name)
	}
}

// TestSourceNumbers pins each preset's key numbers to its source (the seed
// driver, the guide, Source's defaults), so a retune is a deliberate edit here.
func TestSourceNumbers(t *testing.T) {
	const tol = 1e-12
	tests := []struct {
		preset string
		param  string
		want   float64
	}{
		{"epic-seed", "calcAhead", 0.2},
		{"epic-seed", "displayBehind", 0.2},
		{"epic-seed", "slopTime", 0.5},
		{"epic-seed", "sendRate", 20}, // the driver reads every 0.05 s
		{"epic-seed", "renderRate", 20},

		{"harbor-before", "tickRate", 20},
		{"harbor-before", "sendRate", 20},
		{"harbor-before", "delay", 0.05},
		{"harbor-before", "adaptive", 0},
		{"harbor-before", "speedClamp", 0},
		{"harbor-after", "delay", 0.1},
		{"harbor-after", "adaptive", 1},
		{"harbor-after", "margin", 0.025},
		{"harbor-after", "delayCap", 0.2},
		{"harbor-after", "extrapolateCap", 0.15},
		{"harbor-after", "speedClamp", 1},

		{"ping80", "latency", 0.04},
		{"ping120", "latency", 0.06},
		{"ping200", "latency", 0.1},

		// Source SDK 2013's defaults; the lab's tick is the engine's 15 ms one.
		{"source-66tick", "tickRate", 1 / 0.015},
		{"source-66tick", "sendRate", 20},
		{"source-66tick", "source.tickrate", 0}, // "66"
		{"source-66tick", "source.cl_updaterate", 20},
		{"source-66tick", "source.cl_interp", 0.1},
		{"source-66tick", "source.cl_interp_ratio", 2},
		{"source-66tick", "source.cl_extrapolate", 1},
		{"source-66tick", "source.cl_extrapolate_amount", 0.25},

		// Unreal Engine 5: NetServerMaxTickRate 30 caps the characters'
		// NetUpdateFrequency 100; UCharacterMovementComponent's defaults.
		{"unreal-defaults", "tickRate", 30},
		{"unreal-defaults", "sendRate", 30},
		{"unreal-defaults", "unreal.networkSmoothingMode", 2}, // exponential
		{"unreal-defaults", "unreal.networkSimulatedSmoothLocationTime", 0.1},
		{"unreal-defaults", "unreal.networkSimulatedSmoothRotationTime", 0.05},
		{"unreal-defaults", "unreal.networkMaxSmoothUpdateDistance", 256},
		{"unreal-defaults", "unreal.networkNoSmoothUpdateDistance", 384},

		{"ngo-defaults", "tickRate", 30}, // NetworkManager's default Tick Rate
		{"ngo-defaults", "sendRate", 30}, // a NetworkTransform state every tick
		{"ngo-defaults", "ngo.tickRate", 30},
		{"ngo-defaults", "ngo.ticksAgo", 2},
		{"ngo-defaults", "ngo.serverBufferSec", 0.05},
		{"ngo-defaults", "ngo.maximumInterpolationTime", 0.1},
		{"ngo-defaults", "ngo.hardResetThresholdSec", 0.2},
		{"ngo-defaults", "ngo.adjustmentRatio", 0.01},
		{"ngo-defaults", "ngo.approvalRttSec", 0.15},

		{"4g", "lossModel", 1}, // burst
		{"lan", "loss", 0},
	}
	for _, tt := range tests {
		p, err := Get(tt.preset)
		if err != nil {
			t.Fatalf("Get(%q) error: %v", tt.preset, err)
		}
		param, ok := engine.Lookup(tt.param)
		if !ok {
			t.Fatalf("no parameter %q", tt.param)
		}
		if got := param.Get(&p.Settings); math.Abs(got-tt.want) > tol {
			t.Errorf("%s: %s = %v, want %v", tt.preset, tt.param, got, tt.want)
		}
	}
}

// TestHarborSameLink checks that before, after and the playtests differ from
// each other only where the guide says they do.
func TestHarborSameLink(t *testing.T) {
	before, _ := Get("harbor-before")
	after, _ := Get("harbor-after")
	for _, name := range []string{"latency", "jitter", "jitterDist", "loss", "lossModel", "tickRate", "sendRate"} {
		if b, a := before.Settings.Text(name), after.Settings.Text(name); b != a {
			t.Errorf("harbor-before %s = %s, harbor-after %s = %s: want the same link", name, b, name, a)
		}
	}
	for _, ping := range []string{"ping80", "ping120", "ping200"} {
		p, err := Get(ping)
		if err != nil {
			t.Fatalf("Get(%q) error: %v", ping, err)
		}
		for _, param := range engine.Params() {
			if param.Name == "latency" {
				continue
			}
			if got, want := p.Settings.Text(param.Name), after.Settings.Text(param.Name); got != want {
				t.Errorf("%s: %s = %s, want harbor-after's %s", ping, param.Name, got, want)
			}
		}
	}
}

func TestNetworkPresetsOnlyChangeTheLink(t *testing.T) {
	def := engine.Defaults()
	for _, name := range []string{"lan", "wifi", "4g"} {
		p, err := Get(name)
		if err != nil {
			t.Fatalf("Get(%q) error: %v", name, err)
		}
		for _, param := range engine.Params() {
			if param.Group == "network" {
				continue
			}
			if got, want := p.Settings.Text(param.Name), def.Text(param.Name); got != want {
				t.Errorf("%s: %s = %s, want the default %s", name, param.Name, got, want)
			}
		}
	}
}

func TestGetUnknown(t *testing.T) {
	if _, err := Get("nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("Get(nope) error = %v, want one naming the preset", err)
	}
}

func TestLoadDefaultsAndOrder(t *testing.T) {
	fsys := fstest.MapFS{
		"b.json": {Data: []byte(`{"name":"b","title":"B","doc":"d","order":2,"settings":{"loss":0.1}}`)},
		"a.json": {Data: []byte(`{"name":"a","title":"A","doc":"d","order":2,"settings":{}}`)},
		"c.json": {Data: []byte(`{"name":"c","title":"C","doc":"d","order":1,"settings":{"techniques":["snap"]}}`)},
	}
	list, err := Load(fsys)
	if err != nil {
		t.Fatalf("Load error: %v", err)
	}
	var names []string
	for _, p := range list {
		names = append(names, p.Name)
	}
	if got, want := strings.Join(names, ","), "c,a,b"; got != want {
		t.Errorf("Load order = %s, want %s", got, want)
	}
	def := engine.Defaults()
	if got := list[1].Settings; got.Text("techniques") != def.Text("techniques") || got.Loss != def.Loss {
		t.Errorf("empty settings = %+v, want the defaults", got)
	}
	if got := list[2].Settings.Loss; got != 0.1 {
		t.Errorf("b loss = %v, want 0.1", got)
	}
	if got := list[0].Settings.Text("techniques"); got != "snap" {
		t.Errorf("c techniques = %q, want snap", got)
	}
	if got := list[0].Settings.Latency; got != def.Latency {
		t.Errorf("c latency = %v, want default %v", got, def.Latency)
	}
}

func TestLoadBad(t *testing.T) {
	tests := []struct {
		name string
		file string
		want []string // substrings of the error
	}{
		{"unknown setting", `{"name":"x","title":"X","doc":"d","settings":{"jiter":0.1}}`, []string{"x.json", `"jiter"`}},
		{"unknown top-level key", `{"name":"x","title":"X","doc":"d","colour":"red","settings":{}}`, []string{"x.json", `"colour"`}},
		{"out of range", `{"name":"x","title":"X","doc":"d","settings":{"loss":2}}`, []string{"x.json", `loss = "200%" is not allowed: want [0, 90] %`}},
		{"bad enum", `{"name":"x","title":"X","doc":"d","settings":{"jitterDist":"cauchy"}}`, []string{"x.json", "jitterDist", "cauchy"}},
		{"wrong type", `{"name":"x","title":"X","doc":"d","settings":{"latency":"fast"}}`, []string{"x.json", "latency"}},
		{"float int", `{"name":"x","title":"X","doc":"d","settings":{"entities":1.5}}`, []string{"x.json", "entities"}},
		{"cross-field", `{"name":"x","title":"X","doc":"d","settings":{"tickRate":10,"sendRate":20}}`, []string{"x.json", "sendRate", "tickRate"}},
		{"no techniques", `{"name":"x","title":"X","doc":"d","settings":{"techniques":[]}}`, []string{"x.json", "techniques"}},
		{"name mismatch", `{"name":"y","title":"X","doc":"d","settings":{}}`, []string{"x.json", `"y"`}},
		{"missing title", `{"name":"x","doc":"d","settings":{}}`, []string{"x.json", "title"}},
		{"missing settings", `{"name":"x","title":"X","doc":"d"}`, []string{"x.json", "settings"}},
		{"syntax", `{"name":"x",`, []string{"x.json", "JSON"}},
		{"trailing", `{"name":"x","title":"X","doc":"d","settings":{}} {}`, []string{"x.json", "trailing"}},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{
			"good.json": {Data: []byte(`{"name":"good","title":"G","doc":"d","settings":{}}`)},
			"x.json":    {Data: []byte(tt.file)},
		}
		_, err := Load(fsys)
		if err == nil {
			t.Errorf("%s: Load error = nil, want one", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Load error = %q, want it to contain %q", tt.name, err, w)
			}
		}
	}
}

func TestLoadEmpty(t *testing.T) {
	if _, err := Load(fstest.MapFS{}); err == nil {
		t.Error("Load(empty) error = nil, want one")
	}
}

// A library's preset runs the library's technique alone: the designer on
// Mirror, NGO, Source, Unreal or geckos starts on their game, and meets
// the lab's buffer and EPIC only when they ask to compare (the page's
// "Compare with the lab's techniques").
func TestLibraryPresetsRunTheLibraryAlone(t *testing.T) {
	for name, want := range map[string]string{
		"mirror-30hz": "mirror", "ngo-defaults": "ngo", "source-66tick": "source",
		"unreal-defaults": "unreal-cmc", "geckos-20fps": "geckos",
	} {
		p, err := Get(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Settings.Text("techniques"); got != want {
			t.Errorf("%s techniques = %s, want %s", name, got, want)
		}
		if got := p.Settings.PrimaryTechnique(); got != want {
			t.Errorf("%s primary technique = %s, want %s", name, got, want)
		}
	}
}

func TestPopulationsValid(t *testing.T) {
	list, err := Populations()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range list {
		names = append(names, p.Name)
	}
	if want := []string{"harbor-beta", "lan-tournament", "mobile-4g", "worldwide"}; !slices.Equal(names, want) {
		t.Errorf("Populations() = %v, want %v", names, want)
	}
	if _, err := GetPopulation(DefaultPopulation); err != nil {
		t.Errorf("GetPopulation(%q): %v", DefaultPopulation, err)
	}
	if _, err := GetPopulation("mars"); err == nil || !strings.Contains(err.Error(), "harbor-beta") {
		t.Errorf("GetPopulation(mars) = %v, want an error listing the populations", err)
	}
	// Every population runs with every setting preset: the base never
	// conflicts with a drawn link.
	all, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, pp := range list {
		for _, sp := range all {
			spec := study.PopulationSpec{Base: sp.Settings, Population: pp.Population}
			if err := spec.Validate(); err != nil {
				t.Errorf("population %s with preset %s: %v", pp.Name, sp.Name, err)
			}
		}
	}
}

func TestLoadPopulationsBad(t *testing.T) {
	good := `{"latency":{"min":0.01,"max":0.02},"clockDrift":{"min":0,"max":0},
	"stable":{"jitter":{"min":0,"max":0},"jitterDist":"normal","loss":{"min":0,"max":0},"lossModel":"random","burstLength":{"min":1,"max":1}},
	"highVariance":{"jitter":{"min":0,"max":0},"jitterDist":"normal","loss":{"min":0,"max":0},"lossModel":"random","burstLength":{"min":1,"max":1}},
	"highVarianceShare":0,"motion":"mix","entities":ENT,"rounds":1,"round":10,"seed":1}`
	file := func(pop string) string {
		return `{"name":"p","title":"P","doc":"d","order":1,"population":` + pop + `}`
	}
	tests := []struct{ name, data, want string }{
		{"unknown key", `{"name":"p","title":"P","doc":"d","colour":1,"population":{}}`, "unknown key"},
		{"zero entities", file(strings.Replace(good, "ENT", "0", 1)), "population.entities"},
		{"a million", file(strings.Replace(good, "ENT", "1000000", 1)), "[1, 100000]"},
		{"negative latency", file(strings.Replace(strings.Replace(good, "ENT", "5", 1), `"min":0.01`, `"min":-0.01`, 1)), "population.latency.min"},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{"p.json": {Data: []byte(tt.data)}}
		if _, err := LoadPopulations(fsys); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: LoadPopulations = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	fsys := fstest.MapFS{"p.json": {Data: []byte(file(strings.Replace(good, "ENT", "5", 1)))}}
	if _, err := LoadPopulations(fsys); err != nil {
		t.Errorf("LoadPopulations(good) = %v", err)
	}
}

// Every preset runs its library techniques as the game it stands for would:
// no library knob disagrees with the lab's network (engine.Advice).
func TestPresetsNeedNoAdvice(t *testing.T) {
	list, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		if adv := engine.Advice(&p.Settings); len(adv) > 0 {
			t.Errorf("preset %s: %q", p.Name, adv)
		}
	}
}
