package export

import (
	"bufio"
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// parseMirror reads a mirror export back into the mirror technique's
// settings, as Mirror would read the C#: `field = literal` lines, float
// literals rounded to float32, sendIntervalMultiplier from syncInterval by
// Mirror's rule. Every mirror parameter but sendRate and
// sendIntervalMultiplier (written as syncInterval) is a Mirror field of its
// name; floats names those written as C# float literals.
func parseMirror(t *testing.T, body []byte) (m engine.MirrorSettings, floats map[string]bool) {
	t.Helper()
	fields := map[string]string{} // Mirror's field: the parameter
	for _, p := range engine.Params() {
		if f, ok := strings.CutPrefix(p.Name, "mirror."); ok && f != "sendRate" && f != "sendIntervalMultiplier" {
			fields[f] = p.Name
		}
	}
	floats = map[string]bool{}
	var s engine.Settings
	seen := map[string]bool{}
	syncInterval := math.NaN()
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "//") {
			continue
		}
		code, _, _ := strings.Cut(line, "//")
		code = strings.TrimSpace(strings.TrimPrefix(code, "public const int "))
		name, lit, ok := strings.Cut(code, " = ")
		if !ok || strings.Contains(name, "(") {
			continue
		}
		name = strings.TrimPrefix(name, "nt.")
		lit = strings.TrimRight(lit, ",;")
		v := parseCSharp(t, lit)
		seen[name] = true
		switch name {
		case "sendRate":
			s.MirrorSettings.SendRate = int(v)
			continue
		case "syncInterval":
			syncInterval = v
			continue
		}
		param, ok := fields[name]
		if !ok {
			t.Fatalf("export sets %q, which no mirror parameter writes", name)
		}
		floats[param] = strings.HasSuffix(lit, "f")
		if err := setStored(&s, param, strconv.FormatFloat(v, 'g', -1, 64)); err != nil {
			t.Fatalf("%s = %s: %v", name, lit, err)
		}
	}
	for name := range fields {
		if !seen[name] {
			t.Errorf("export does not set %s", name)
		}
	}
	if !seen["sendRate"] || math.IsNaN(syncInterval) {
		t.Fatalf("export lacks sendRate or syncInterval")
	}
	// NetworkTransformBase.sendIntervalMultiplier.
	s.MirrorSettings.SendIntervalMultiplier = 1
	if syncInterval > 0 {
		if mult := float32(syncInterval) / (1 / float32(s.MirrorSettings.SendRate)); mult > 1 {
			s.MirrorSettings.SendIntervalMultiplier = int(math.RoundToEven(float64(mult)))
		}
	}
	return s.MirrorSettings, floats
}

// parseCSharp reads a C# int, bool, float (…f) or double literal.
func parseCSharp(t *testing.T, lit string) float64 {
	switch lit {
	case "true":
		return 1
	case "false":
		return 0
	}
	if f, ok := strings.CutSuffix(lit, "f"); ok {
		v, err := strconv.ParseFloat(f, 32)
		if err != nil {
			t.Fatalf("float literal %q: %v", lit, err)
		}
		return float64(float32(v))
	}
	v, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		t.Fatalf("literal %q: %v", lit, err)
	}
	return v
}

// TestMirrorExportRoundTrip: the export's values, read back, are the
// technique's knobs, and the technique run with them draws what the
// designer saw: the same metrics on the same simulation.
func TestMirrorExportRoundTrip(t *testing.T) {
	p, err := presets.Get("mirror-30hz")
	if err != nil {
		t.Fatal(err)
	}
	tuned := p.Settings
	for _, set := range []string{"mirror.bufferTimeMultiplier=2.7", "mirror.bufferLimit=12", "mirror.catchupNegativeThreshold=-0.7",
		"mirror.catchupPositiveThreshold=1.3", "mirror.catchupSpeed=3.5%", "mirror.slowdownSpeed=6.1%", "mirror.driftEmaDuration=2",
		"mirror.dynamicAdjustment=false", "mirror.dynamicAdjustmentTolerance=0.3", "mirror.deliveryTimeEmaDuration=3",
		"mirror.sendIntervalMultiplier=2", "mirror.timelineOffset=false", "mirror.onlySyncOnChange=true",
		"mirror.bufferResetMultiplier=2.5", "mirror.positionSensitivity=50mm"} {
		name, v, _ := strings.Cut(set, "=")
		if err := tuned.SetText(name, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		s    engine.Settings
	}{{"mirror-30hz", p.Settings}, {"tuned", tuned}} {
		file, err := Render("mirror", Origin{Preset: tt.name}, tt.s)
		if err != nil {
			t.Fatal(err)
		}
		back := tt.s
		var floats map[string]bool
		back.MirrorSettings, floats = parseMirror(t, file.Body)
		for _, param := range engine.Params() {
			if strings.HasPrefix(param.Name, "mirror.") && !sameAsMirrorReads(param, &back, &tt.s, floats) {
				t.Errorf("%s: %s reads back as %v, want %v", tt.name, param.Name, param.Get(&back), param.Get(&tt.s))
			}
		}
		run := func(s engine.Settings) engine.Metrics {
			s.Techniques, s.Duration, s.Jitter, s.Loss, s.ClockDrift = []string{engine.TechMirror}, 20, 0.015, 0.02, 0.001
			r, err := engine.Run(s)
			if err != nil {
				t.Fatal(err)
			}
			return r.Techniques[0].Metrics
		}
		if a, b := run(tt.s), run(back); a != b {
			t.Errorf("%s: metrics with the export read back = %+v, want %+v", tt.name, b, a)
		}
	}
}

// sameAsMirrorReads tells whether the parameter holds the same value in a
// and b as Mirror computes with it: C# float fields (floats) as float32.
func sameAsMirrorReads(p engine.Param, a, b *engine.Settings, floats map[string]bool) bool {
	va, vb := p.Get(a), p.Get(b)
	if floats[p.Name] {
		return float32(va) == float32(vb)
	}
	return va == vb
}
