package netsim

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestParseScenarioErrors(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		run   float64 // the run's length; 0 checks the text alone
		line  int
		field string
		msg   string // a part of the message
	}{
		{name: "unknown kind", text: "# c\nwobble at=1", line: 2, field: "wobble", msg: "unknown line kind"},
		{name: "not key=value", text: "spike at=1 for=1 300ms", line: 1, field: "300ms", msg: "want key=value"},
		{name: "field of another kind", text: "outage at=1 for=1 delay=100", line: 1, field: "delay", msg: "not a field of outage"},
		{name: "bad time", text: "\n\nspike at=1 for=soon delay=100", line: 3, field: "for", msg: `"soon" is not allowed: want a time`},
		{name: "bad backlog", text: "outage at=1 for=1 backlog=later", line: 1, field: "backlog", msg: "burst or drop"},
		{name: "out of range", text: "step at=1 latency=3s", line: 1, field: "latency", msg: "want [0, 1] s, that is [0, 1000] ms"},
		{name: "twice", text: "step at=1 at=2 latency=1ms", line: 1, field: "at", msg: "given twice"},
		{name: "empty step", text: "step at=1", line: 1, msg: "changes nothing"},
		{name: "ramp without length", text: "ramp at=1 latency=100", line: 1, field: "for", msg: "for > 0"},
		{name: "hiccup longer than period", text: "hiccup at=1 until=9 every=1 for=2 delay=100", line: 1, field: "for", msg: "(0, every = 1)"},
		{name: "overlapping ramps", text: "ramp at=10 for=10 latency=100\nramp at=15 for=10 latency=200", line: 2, field: "latency",
			msg: "overlaps the ramp on line 1 over [10, 20] s: start it after 20 s"},
		{name: "step inside a ramp", text: "ramp at=10 for=10 jitter=100\nstep at=12 jitter=200", line: 2, field: "jitter", msg: "overlaps the ramp on line 1"},
		{name: "steps at the same time", text: "step at=10 loss=1%\nstep at=10 loss=2%", line: 2, field: "loss", msg: "overlaps"},
		{name: "overlapping impairments", text: "outage at=10 for=2\nspike at=11 for=1 delay=300", line: 2, field: "at", msg: "overlaps the outage on line 1"},
		{name: "longer than the run", text: "outage at=59 for=2", run: 60, line: 1, field: "for",
			msg: "ends at 61 s, after the run's end (duration = 60 s): raise duration to 61 or more"},
		{name: "hiccups past the run", text: "hiccup at=1 until=90 every=8 for=1 loss=100", run: 60, line: 1, field: "until", msg: "raise duration to 90"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := ParseScenario(tt.text)
			if err == nil && tt.run > 0 {
				err = sc.Validate(tt.run)
			}
			var se *ScenarioError
			if !errors.As(err, &se) {
				t.Fatalf("ParseScenario(%q) = %v, want a *ScenarioError", tt.text, err)
			}
			if se.Line != tt.line || se.Field != tt.field || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("ParseScenario(%q) = line %d field %q %q, want line %d field %q containing %q",
					tt.text, se.Line, se.Field, se.Msg, tt.line, tt.field, tt.msg)
			}
		})
	}
}

// Scenario text follows the one rule: the link's quantities are plain
// numbers in the unit their boxes show (latency, jitter and a spike's delay
// in ms, loss in %, bandwidth in kbit/s), times on the run's timeline in
// seconds; any of them may carry a unit.
func TestScenarioUnits(t *testing.T) {
	tests := []struct {
		line  string
		field int // condition field, or -1 for the event's own fields
		want  float64
	}{
		{"set latency=40", condLatency, 0.04},
		{"set latency=40ms", condLatency, 0.04},
		{"set latency=0.04s", condLatency, 0.04},
		{"set jitter=0.2", condJitter, 0.0002},
		{"set loss=2", condLoss, 0.02},
		{"set loss=2%", condLoss, 0.02},
		{"set loss=0.02", condLoss, 0.0002},
		{"set bandwidth=256", condBandwidth, 256000},
		{"set bandwidth=256kbit/s", condBandwidth, 256000},
		{"set bandwidth=256kbit", condBandwidth, 256000},
		{"set bandwidth=2Mbit/s", condBandwidth, 2e6},
		{"set bandwidth=2mbit", condBandwidth, 2e6},
		{"set bandwidth=64000bit/s", condBandwidth, 64000},
	}
	for _, tt := range tests {
		sc, err := ParseScenario(tt.line)
		if err != nil {
			t.Errorf("ParseScenario(%q) = %v", tt.line, err)
			continue
		}
		if got := sc.Events[0].Value[tt.field]; got != tt.want {
			t.Errorf("ParseScenario(%q): %s = %v, want %v", tt.line, condNames[tt.field], got, tt.want)
		}
	}
	sc, err := ParseScenario("spike at=20 for=0.5 delay=300\nhiccup at=30 until=50 every=8 for=250ms delay=0.15s loss=30")
	if err != nil {
		t.Fatal(err)
	}
	spike, hiccup := sc.Events[0], sc.Events[1]
	if spike.At != 20 || spike.For != 0.5 || spike.Delay != 0.3 {
		t.Errorf("spike at=20 for=0.5 delay=300 = at %v for %v delay %v, want 20 s, 0.5 s, 300 ms", spike.At, spike.For, spike.Delay)
	}
	if hiccup.For != 0.25 || hiccup.Delay != 0.15 || hiccup.Loss != 0.3 {
		t.Errorf("hiccup for=250ms delay=0.15s loss=30 = for %v delay %v loss %v, want 0.25 s, 0.15 s, 30 %%", hiccup.For, hiccup.Delay, hiccup.Loss)
	}
	// The text form writes every quantity with its unit.
	want := "spike at=20 for=0.5 delay=300ms\nhiccup at=30 until=50 every=8 for=0.25 delay=150ms loss=30%\n"
	if got := sc.Text(); got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	sc, _ = ParseScenario("step at=10 latency=120 jitter=0.2 loss=0.0186 bandwidth=256")
	if got, want := sc.Text(), "step at=10 latency=120ms jitter=0.2ms loss=0.0186% bandwidth=256kbit/s\n"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	for line, msg := range map[string]string{
		"set latency=2000":   `"2000" is not allowed: want [0, 1000] ms`,
		"set loss=95":        `"95" is not allowed: want [0, 90] %`,
		"set bandwidth=2e6":  `"2e6" is not allowed: want [0, 100000] kbit/s`,
		"set bandwidth=fast": `"fast" is not allowed: want [0, 100000] kbit/s (a plain number in kbit/s, or with a unit: kbit/s, Mbit/s, bit/s, kbit, Mbit, bit)`,
		"hiccup at=1 until=9 every=2 for=1 loss=101": `"101" is not allowed: want [0, 100] %`,
		"spike at=1 for=1 delay=-5":                  `"-5" is not allowed: want a time ≥ 0 ms`,
		"spike at=1 for=soon delay=5":                `"soon" is not allowed: want a time ≥ 0 s (a plain number in s, or with a unit: ms, s)`,
	} {
		_, err := ParseScenario(line)
		if err == nil || !strings.HasSuffix(err.Error(), msg) {
			t.Errorf("ParseScenario(%q) = %v, want it to end %q", line, err, msg)
		}
	}
}

func TestParseScenarioAdjacent(t *testing.T) {
	// Events that touch but do not overlap are fine.
	text := `ramp at=10 for=10 latency=100ms
step at=20 latency=50ms
step at=30 for=5 latency=80ms
step at=35 latency=60ms
spike at=40 for=1 delay=200
outage at=41 for=1 backlog=drop
hiccup at=42 until=50 every=2 for=0.5 loss=10%`
	if _, err := ParseScenario(text); err != nil {
		t.Fatal(err)
	}
}

func TestScenarioConditions(t *testing.T) {
	sc, err := ParseScenario(`set latency=40ms
ramp at=10 for=10 latency=140ms
step at=30 for=5 latency=300ms bandwidth=64kbit
spike at=40 for=500ms delay=200ms
hiccup at=50 until=58 every=2 for=250ms delay=100ms loss=50%`)
	if err != nil {
		t.Fatal(err)
	}
	s := labNet()
	tests := []struct {
		t                        float64
		latency, bw, extra, drop float64
	}{
		{0, 0.04, 0, 0, 0},
		{10, 0.04, 0, 0, 0},
		{15, 0.09, 0, 0, 0},
		{20, 0.14, 0, 0, 0},
		{30, 0.3, 64000, 0, 0},
		{34.99, 0.3, 64000, 0, 0},
		{35, 0.14, 0, 0, 0},
		{40.2, 0.14, 0, 0.2, 0},
		{40.5, 0.14, 0, 0, 0},
		{52.1, 0.14, 0, 0.1, 0.5},
		{52.3, 0.14, 0, 0, 0},
		{58.1, 0.14, 0, 0, 0},
	}
	for _, tt := range tests {
		c := sc.Conditions(&s.Settings, tt.t)
		if math.Abs(c.Latency-tt.latency) > 1e-12 || c.Bandwidth != tt.bw || c.Extra != tt.extra || c.Drop != tt.drop {
			t.Errorf("Conditions(%g) = latency %g bandwidth %g extra %g drop %g, want %g %g %g %g",
				tt.t, c.Latency, c.Bandwidth, c.Extra, c.Drop, tt.latency, tt.bw, tt.extra, tt.drop)
		}
		if c.Jitter != s.Jitter || c.Loss != s.Loss {
			t.Errorf("Conditions(%g) changed jitter or loss: %+v", tt.t, c)
		}
	}
	if start, end, ok := sc.Span(); !ok || start != 10 || end != 58 {
		t.Errorf("Span() = %g, %g, %v, want 10, 58, true", start, end, ok)
	}
}

func TestBuiltinScenarios(t *testing.T) {
	for _, name := range Scenarios[1 : len(Scenarios)-1] {
		sc, ok := BuiltinScenario(name)
		if !ok {
			t.Fatalf("BuiltinScenario(%q) not found", name)
		}
		if err := sc.Validate(labNet().Duration); err != nil {
			t.Errorf("%s does not fit the default run: %v", name, err)
		}
		if start, _, ok := sc.Span(); !ok || start < 10 {
			t.Errorf("%s starts at %g, want at least 10 s of steady state first", name, start)
		}
		again, err := ParseScenario(sc.Text())
		if err != nil {
			t.Fatalf("%s: ParseScenario(Text()) = %v", name, err)
		}
		if again.Text() != sc.Text() {
			t.Errorf("%s: Text does not round-trip:\n%s\nthen\n%s", name, sc.Text(), again.Text())
		}
	}
	s := labNet()
	s.Scenario, s.Duration = "outage-2s", 21
	var se *ScenarioError
	if err := s.validate(); !errors.As(err, &se) || !strings.Contains(se.Msg, "raise duration to 22") {
		t.Errorf("outage-2s in a 21 s run: Validate() = %v, want the run too short", err)
	}
	s.Scenario, s.Duration = ScenarioCustom, 60
	if err := s.validate(); err == nil {
		t.Error("custom scenario without text: Validate() = nil")
	}
	s.ScenarioText = "spike at=5 for=1 delay=100ms"
	if err := s.validate(); err != nil {
		t.Errorf("custom scenario: Validate() = %v", err)
	}
}

// TestScenarioGolden pins the packets of every built-in scenario, sent at
// 20 Hz for 60 s over the default link, to the bit: the same seed and
// scenario give the same packets natively and under WebAssembly (make
// test-wasm). Files are gzipped text, one packet a line: sequence, send time
// and arrival times in %x.
func TestScenarioGolden(t *testing.T) {
	for _, name := range Scenarios[1 : len(Scenarios)-1] {
		t.Run(name, func(t *testing.T) {
			s := labNet()
			s.Scenario = name
			got := scenarioPackets(&s, 1)
			golden := filepath.Join("testdata", "scenarios", name+".golden.gz")
			if *update {
				var b bytes.Buffer
				zw := gzip.NewWriter(&b)
				zw.Write([]byte(got))
				zw.Close()
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, err := os.Open(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update natively to create it)", err)
			}
			defer f.Close()
			zr, err := gzip.NewReader(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := io.ReadAll(zr)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
				for i := range min(len(gl), len(wl)) {
					if gl[i] != wl[i] {
						t.Fatalf("packet %d differs from %s:\ngot  %s\nwant %s", i, golden, gl[i], wl[i])
					}
				}
				t.Fatalf("%d packets, want %d", len(gl), len(wl))
			}
		})
	}
}

// scenarioPackets sends s.Duration seconds of packets at s.SendRate over
// the link of s and returns them as text.
func scenarioPackets(s *netRun, seed uint64) string {
	l := s.link(seed)
	var b strings.Builder
	var arr []float64
	n := int(math.Round(s.Duration * s.SendRate))
	for k := range n {
		sent := float64(k) / s.SendRate
		arr = l.Send(sent, arr[:0])
		b.WriteString(strconv.Itoa(k) + " " + strconv.FormatFloat(sent, 'x', -1, 64))
		for _, a := range arr {
			b.WriteString(" " + strconv.FormatFloat(a, 'x', -1, 64))
		}
		b.WriteString("\n")
	}
	return b.String()
}
