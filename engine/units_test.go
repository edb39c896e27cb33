package engine

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/param"
)

func TestParseUnits(t *testing.T) {
	tests := []struct {
		name, text string
		want       float64
	}{
		// A plain number is in the display unit, the unit beside the box.
		{"latency", "120", 0.12},
		{"latency", "0.12", 0.00012},
		{"latency", "20ms", 0.02},
		{"latency", "20 ms", 0.02},
		{"latency", "0.02s", 0.02},
		{"latency", "20MS", 0.02},
		{"jitter", "0.2", 0.0002},
		{"loss", "2", 0.02},
		{"loss", "0.02", 0.0002},
		{"loss", "2%", 0.02},
		{"loss", "0.0186", 0.000186},
		{"bandwidth", "256", 256000},
		{"bandwidth", "256kbit/s", 256000},
		{"bandwidth", "256kbit", 256000},
		{"bandwidth", "256 KBIT/S", 256000},
		{"bandwidth", "2Mbit/s", 2e6},
		{"bandwidth", "2mbit", 2e6},
		{"bandwidth", "64000bit/s", 64000},
		{"bandwidth", "64000bit", 64000},
		{"clockDrift", "-150", -0.00015},
		{"clockDrift", "-150ppm", -0.00015},
		{"clockDrift", "0.1%", 0.001},
		{"sendRate", "30", 30},
		{"sendRate", "30Hz", 30},
		{"maxSpeed", "7m/s", 7},
		{"adaptWindow", "40 packets", 40},
		{"duration", "90", 90},
		{"duration", "90s", 90},
		{"delay", "100ms", 0.1},
		{"delay", "100", 0.1},
		{"seed", "2761734960", 2761734960},
		{"uplinkRatio", "1.5", 1.5},
		{"uplinkRatio", "1.5×", 1.5},
		{"mirror.catchupNegativeThreshold", "-1", -1},
		// A library's knob takes its library's unit: Mirror's catchupSpeed
		// is a plain fraction, its positionSensitivity metres; NGO's *Sec
		// knobs and Source's cl_interp seconds.
		{"mirror.catchupSpeed", "0.02", 0.02},
		{"mirror.catchupSpeed", "2%", 0.02},
		{"mirror.positionSensitivity", "0.01", 0.01},
		{"mirror.positionSensitivity", "10mm", 0.01},
		{"source.cl_interp", "0.1", 0.1},
		{"ngo.hardResetThresholdSec", "0.35", 0.35},
		{"unreal.networkSimulatedSmoothLocationTime", "100ms", 0.1},
		{"geckos.interpolationBuffer", "100", 100},
		{"geckos.interpolationBuffer", "0.1s", 100},
		{"unreal.networkMaxSmoothUpdateDistance", "2.56m", 256},
		{"ngo.maximumDeltaTime", "0.33333334", 0.33333334},
		{"ngo.maximumDeltaTime", "333.33334ms", 0.33333334},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.name)
		got, err := p.Parse(tt.text)
		if err != nil || got != tt.want {
			t.Errorf("%s.Parse(%q) = %v, %v; want %v", tt.name, tt.text, got, err, tt.want)
		}
	}
}

func TestParseUnitErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       string // the whole message
	}{
		{"latency", "2000", `latency = "2000" is not allowed: want [0, 1000] ms`},
		{"latency", "2000ms", `latency = "2000ms" is not allowed: want [0, 1000] ms`},
		{"latency", "2s", `latency = "2s" is not allowed: want [0, 1] s, that is [0, 1000] ms`},
		{"mirror.catchupSpeed", "150%", `mirror.catchupSpeed = "150%" is not allowed: want [0, 100] %, that is [0, 1]`},
		{"mirror.bufferTimeMultiplier", "3x", ``},
		{"loss", "95", `loss = "95" is not allowed: want [0, 90] %`},
		{"bandwidth", "1e9", `bandwidth = "1e9" is not allowed: want [0, 100000] kbit/s`},
		{"seed", "5e9", `seed = "5e9" is not allowed: want a whole number in [0, 4294967295]`},
		{"uplinkRatio", "20", `uplinkRatio = "20" is not allowed: want [0.1×, 10×]`},
		{"mirror.catchupNegativeThreshold", "1", `mirror.catchupNegativeThreshold = "1" is not allowed: want [-10×, 0×]`},
		{"clockDrift", "20000", `clockDrift = "20000" is not allowed: want [-10000, 10000] ppm`},
		{"jitter", "20 lightyears", `jitter = "20 lightyears" is not allowed: want [0, 500] ms (a plain number in ms, or with a unit: ms, s)`},
		{"entities", "2.5", `entities = "2.5" is not allowed: want a whole number in [1, 10000] entities`},
		{"loss", "0x10", `loss = "0x10" is not allowed: want [0, 90] % (a plain number in %, or with a unit: %, ppm)`},
		{"latency", "ms", `latency = "ms" is not allowed: want [0, 1000] ms (a plain number in ms, or with a unit: ms, s)`},
		{"latency", "NaN", `latency = "NaN" is not allowed: want [0, 1000] ms (a plain number in ms, or with a unit: ms, s)`},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.name)
		_, err := p.Parse(tt.text)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%s.Parse(%q) = %v, want no error", tt.name, tt.text, err)
			}
			continue
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.name {
			t.Errorf("%s.Parse(%q) = %v, want a FieldError on %s", tt.name, tt.text, err, tt.name)
			continue
		}
		if err.Error() != tt.want {
			t.Errorf("%s.Parse(%q) = %q,\nwant %q", tt.name, tt.text, err, tt.want)
		}
	}
}

// A stored value out of range (a session's JSON, Set) is quoted in the
// display unit, like the range.
func TestSetErrorInDisplayUnit(t *testing.T) {
	for _, tt := range []struct {
		name string
		v    float64
		want string
	}{
		{"latency", 2, `latency = "2000ms" is not allowed: want [0, 1000] ms`},
		{"bandwidth", 1e9, `bandwidth = "1000000kbit/s" is not allowed: want [0, 100000] kbit/s`},
		{"seed", 5e9, `seed = "5000000000" is not allowed: want a whole number in [0, 4294967295]`},
	} {
		p, _ := Lookup(tt.name)
		var s Settings
		if err := p.Set(&s, tt.v); err == nil || err.Error() != tt.want {
			t.Errorf("%s.Set(%v) = %v,\nwant %s", tt.name, tt.v, err, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		name string
		v    float64
		want string
	}{
		{"latency", 0.12, "120ms"},
		{"latency", 0.3, "300ms"},
		{"jitter", 0.0002, "0.2ms"},
		{"loss", 0.02, "2%"},
		{"loss", 0.000186, "0.0186%"},
		{"bandwidth", 256000, "256kbit/s"},
		{"bandwidth", 1e8, "100000kbit/s"},
		{"clockDrift", -0.00015, "-150ppm"},
		{"sendRate", 30, "30Hz"},
		{"duration", 60, "60s"},
		{"maxSpeed", 7, "7m/s"},
		{"seed", 2761734960, "2761734960"},
		{"entities", 6, "6"},
		{"burstLength", 2.5, "2.5"},
		{"uplinkRatio", 1.5, "1.5"},
		{"mirror.catchupNegativeThreshold", -1, "-1"},
		{"mirror.catchupSpeed", 0.02, "0.02"},
		{"ngo.maximumDeltaTime", 0.33333334, "0.33333334s"},
		{"geckos.interpolationBuffer", 100, "100ms"},
		{"adaptive", 1, "true"},
		{"jitterDist", 2, "pareto"},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.name)
		if got := p.Format(tt.v); got != tt.want {
			t.Errorf("%s.Format(%v) = %q, want %q", tt.name, tt.v, got, tt.want)
		}
	}
}

// Parse(Format(v)) is v exactly, for every parameter, at its bounds, its
// default, its steps and at values no step gives.
func TestFormatRoundTrip(t *testing.T) {
	r := geom.NewRNG(7, 0)
	for i := range params {
		p := &params[i]
		vs := []float64{p.Min, p.Max, p.Default}
		for range 200 {
			v := p.Min + r.Float64()*(p.Max-p.Min)
			switch p.Kind {
			case Float:
				vs = append(vs, v, p.Min+math.Round((v-p.Min)/p.Step)*p.Step)
			default:
				vs = append(vs, math.Round(v))
			}
		}
		for _, v := range vs {
			if p.Check(v) != nil {
				continue
			}
			text := p.Format(v)
			got, err := p.Parse(text)
			if err != nil || got != v {
				t.Errorf("%s: Parse(Format(%v) = %q) = %v, %v", p.Name, v, text, got, err)
				break
			}
		}
	}
}

// The text the lab writes carries the unit wherever a plain number would
// read differently under the stored-unit rule, so old and new readers agree.
func TestFormatCarriesUnit(t *testing.T) {
	for i := range params {
		p := &params[i]
		if p.Kind != Float && p.Kind != Int {
			continue
		}
		unit, scale := p.DisplayUnit()
		if scale == 1 {
			continue // a plain number means the same under either rule
		}
		text := p.Format(p.Max)
		if !strings.HasSuffix(text, unit) {
			t.Errorf("%s.Format(%v) = %q: a plain number in %s that is stored in %s needs its unit", p.Name, p.Max, text, unit, p.Unit)
		}
	}
}

func TestParamUnits(t *testing.T) {
	p, _ := Lookup("latency")
	if got := p.Units(); !slices.Equal(got, []string{"ms", "s"}) {
		t.Errorf("latency units = %v", got)
	}
	p, _ = Lookup("jitterDist")
	if got := p.Units(); got != nil {
		t.Errorf("jitterDist units = %v, want none", got)
	}
}

func TestSuggestParams(t *testing.T) {
	for name, want := range map[string]string{"lss": "loss", "Latency": "latency", "jiter": "jitter", "sendrate": "sendRate", "delaycap": "delayCap"} {
		if got := SuggestParams(name, 3); len(got) == 0 || got[0] != want {
			t.Errorf("SuggestParams(%q) = %v, want %q first", name, got, want)
		}
	}
	if got := SuggestParams("zzzzzzzzzz", 3); len(got) != 0 {
		t.Errorf("SuggestParams(zzzzzzzzzz) = %v, want none", got)
	}
	var s Settings
	err := s.SetText("lss", "0.1")
	if err == nil || !strings.Contains(err.Error(), "did you mean loss") {
		t.Errorf("SetText(lss) = %v, want a suggestion of loss", err)
	}
}

func TestShow(t *testing.T) {
	tests := []struct {
		name string
		v    float64
		want string
	}{
		{"jitter", 0.0002, "0.2 ms"},
		{"loss", 0.000186, "0.0186 %"},
		{"latency", 0.04961234567890123, "49.6123 ms"},
		{"latency", 0.3, "300 ms"},
		{"bandwidth", 256000, "256 kbit/s"},
		{"seed", 2761734960, "2761734960"},
		{"uplinkRatio", 1.5, "1.5×"},
		{"mirror.catchupNegativeThreshold", -1, "-1×"},
		{"clockDrift", -0.00015, "-150 ppm"},
		{"jitterDist", 2, "pareto"},
	}
	for _, tt := range tests {
		p, _ := Lookup(tt.name)
		if got := p.Show(tt.v); got != tt.want {
			t.Errorf("%s.Show(%v) = %q, want %q", tt.name, tt.v, got, tt.want)
		}
	}
	if got := param.ReadableIn(0.30000000000000004, 1000, 6); got != "300" {
		t.Errorf("ReadableIn(0.30000000000000004, 1000, 6) = %q, want 300", got)
	}
}

// FuzzParamText: no text makes Parse panic or return a value out of range,
// and whatever Parse takes, Format writes back to the same value.
func FuzzParamText(f *testing.F) {
	for _, s := range []string{"120", "0.12s", "2%", "256kbit/s", "2Mbit", "-150ppm", "5.", ".5", "+5e-3", "1e400", "1e-400",
		"0x10", "12 ms ", "ms", "-0", "1.5×", "NaN", "inf", "4294967295"} {
		f.Add(uint8(0), s)
		f.Add(uint8(14), s)
	}
	f.Fuzz(func(t *testing.T, i uint8, text string) {
		p := &params[int(i)%len(params)]
		v, err := p.Parse(text)
		if err != nil {
			return
		}
		if p.Check(v) != nil {
			t.Fatalf("%s.Parse(%q) = %v, out of range", p.Name, text, v)
		}
		back := p.Format(v)
		if again, err := p.Parse(back); err != nil || again != v {
			t.Fatalf("%s.Parse(%q) = %v; Format %q reads back as %v, %v", p.Name, text, v, back, again, err)
		}
	})
}

// BenchmarkParamText formats every parameter's default and a value inside
// its range and parses the text back: a share link's worth of values, both
// ways.
func BenchmarkParamText(b *testing.B) {
	for b.Loop() {
		for i := range params {
			p := &params[i]
			for _, v := range []float64{p.Default, p.Min + (p.Max-p.Min)*0.37} {
				if p.Kind != Float {
					v = p.Default
				}
				p.Parse(p.Format(v))
			}
		}
	}
}
