package export

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
)

// netValues is what one step of a network export sets, read back from the
// file, in the lab's units: delay and jitter in s (the target's own meaning
// turned back into the lab's mean one-way delay and mean jitter), loss and
// duplicate as shares. NaN where the target has no such setting.
type netValues struct {
	at                       float64
	delay, jitter, loss, dup float64
}

// netGapRead is one "Not expressed" line read back: at < 0 for the whole run.
type netGapRead struct {
	at   float64
	what string
}

var (
	gapLine   = regexp.MustCompile(`^(?://|;|#)   - (?:at ([0-9.]+) s: )?([^:]+): lab (.+) -> (.+)$`)
	tupleLine = regexp.MustCompile(`^\s+\(([^)]*)\), // (.*)$`)
)

// readGaps returns the export's "Not expressed" entries and whether it
// starts with a LOSSY warning.
func readGaps(t *testing.T, body string) (gaps []netGapRead, lossy bool) {
	t.Helper()
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, "LOSSY:") {
			lossy = true
		}
		m := gapLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		g := netGapRead{at: -1, what: m[2]}
		if m[1] != "" {
			g.at = mustFloat(t, m[1])
		}
		gaps = append(gaps, g)
	}
	return gaps, lossy
}

func mustFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "f"), 64)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return v
}

// readTuples reads the C# Steps array of a unity-network or mirror-network
// export: one tuple a line.
func readTuples(t *testing.T, body string) [][]float64 {
	t.Helper()
	var out [][]float64
	for _, line := range strings.Split(body, "\n") {
		m := tupleLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		var row []float64
		for _, f := range strings.Split(m[1], ",") {
			row = append(row, mustFloat(t, f))
		}
		out = append(out, row)
	}
	return out
}

// readNetExport reads a network export back into its steps' values.
func readNetExport(t *testing.T, format, body string) []netValues {
	t.Helper()
	nan := math.NaN()
	var out []netValues
	switch format {
	case "unity-network":
		// at, SendDelayMS, SendJitterMS, SendPacketLossPercent, SendDuplicatePercent
		for _, r := range readTuples(t, body) {
			out = append(out, netValues{at: r[0], delay: r[1] / 1000, jitter: r[2] / 1000, loss: r[3] / 100, dup: r[4] / 100})
		}
	case "mirror-network":
		// at, latency (ms), jitter (s: twice the lab's mean), unreliableLoss, unreliableScramble
		for _, r := range readTuples(t, body) {
			out = append(out, netValues{at: r[0], delay: r[1]/1000 + r[2]/2, jitter: r[2] / 2, loss: r[3] / 100, dup: nan})
		}
	case "unreal-network":
		cur := map[string]float64{}
		at := 0.0
		flush := func() {
			// Unreal duplicates only the packets it does not delay.
			dup := cur["PktDup"] / 100
			if cur["PktLag"] > 0 {
				dup = 0
			}
			out = append(out, netValues{at: at, delay: cur["PktLag"] / 1000, jitter: cur["PktLagVariance"] / 1000,
				loss: cur["PktLoss"] / 100, dup: dup})
		}
		started := false
		for _, line := range strings.Split(body, "\n") {
			if k, v, ok := strings.Cut(strings.TrimPrefix(line, "Net "), "="); ok && !strings.HasPrefix(line, ";") {
				cur[k] = mustFloat(t, v)
				if k == "PktOrder" {
					t.Fatalf("the export sets PktOrder: %q", line)
				}
				continue
			}
			if rest, ok := strings.CutPrefix(line, "; at "); ok {
				flush() // the block before: the ini's, or the last change's
				started = true
				at = mustFloat(t, rest[:strings.Index(rest, " s:")])
			}
		}
		flush()
		if !started {
			out = out[:1]
		}
	case "source-network":
		alias := regexp.MustCompile(`^alias interplab_net\d+ "net_fakelag (-?\d+); net_fakejitter (-?\d+); net_fakeloss (-?\d+)" // at ([0-9.]+) s:`)
		for _, line := range strings.Split(body, "\n") {
			m := alias.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			v := int(mustFloat(t, m[3]))
			out = append(out, netValues{at: mustFloat(t, m[4]), delay: mustFloat(t, m[1]) / 1000, jitter: mustFloat(t, m[2]) / 1000,
				loss: sourceFakeLoss(v), dup: nan})
		}
	default:
		t.Fatalf("no reader for %s", format)
	}
	return out
}

// sourceFakeLoss is the share of packets the Source engine drops for
// net_fakeloss v, written out here apart from the export's own reckoning:
// a positive v drops a packet when RandomInt(0, 100) <= v, (v+1)/101 of
// them; a negative v drops 1 in -v; 0 is off.
func sourceFakeLoss(v int) float64 {
	switch {
	case v > 0:
		return math.Min(1, float64(v+1)/101)
	case v < 0:
		return 1 / float64(-v)
	}
	return 0
}

// netTargetFeatures are, per network export, the features of the lab's
// network it cannot express (see netReport.features), which must be listed
// whenever the settings use them.
var netTargetFeatures = map[string][]string{
	"unity-network":  {"jitterDist", "burst loss", "reorder", "bandwidth", "burst outage", "hiccup loss", "uplinkRatio"},
	"mirror-network": {"burst loss", "duplicate", "reorder", "bandwidth", "burst outage", "hiccup loss"},
	"unreal-network": {"jitterDist", "burst loss", "reorder", "bandwidth", "burst outage", "hiccup loss", "uplinkRatio"},
	"source-network": {"jitterDist", "burst loss", "duplicate", "reorder", "bandwidth", "burst outage", "hiccup loss", "uplinkRatio"},
}

// netEngineFormats are the network exports for game engines' simulators.
var netEngineFormats = []string{"unity-network", "mirror-network", "unreal-network", "source-network"}

// TestNetworkExportsParseBack reads every engine's network export of every
// built-in scenario (and of no scenario, and of a custom one that uses every
// knob) back, compares each step's values with the lab's plan, and checks
// that every value the export does not write as the lab ran it is listed
// under "Not expressed" with its step, that nothing listed is in fact
// expressed, that every feature the target lacks is listed, and that an
// export losing more than 25% of a step's loss says LOSSY at the top. It
// logs each export's list (go test -v).
func TestNetworkExportsParseBack(t *testing.T) {
	cases := map[string]engine.Settings{}
	for _, name := range netsim.Scenarios[:len(netsim.Scenarios)-1] {
		s := engine.Defaults()
		s.Scenario = name
		cases[name] = s
	}
	s := engine.Defaults()
	s.Loss, s.LossModel, s.BurstLength, s.JitterDist = 0.005, "burst", 4, "pareto"
	s.Duplicate, s.Reorder, s.QueueLimit, s.UplinkRatio, s.Latency = 0.013, 0.05, 64, 1.5, 0.0333
	s.Scenario, s.ScenarioText = netsim.ScenarioCustom, `set bandwidth=1mbit
ramp at=5 for=3.3 bandwidth=200kbit loss=10%
outage at=10 for=1.05 backlog=burst
hiccup at=12 until=20 every=2 for=0.3 delay=80ms loss=50%`
	cases["custom, every knob"] = s
	// Losses where net_fakeloss n's (n+1)/101 matters: 1% (exact as -100),
	// 3% (n = 2 gives 2.97%, listed), 40% (n = 39 gives 39.6%, listed).
	for _, loss := range []float64{0.01, 0.03, 0.4} {
		s := engine.Defaults()
		s.Loss = loss
		cases["loss "+pct(loss)+"%"] = s
	}
	// A duplicate share Unreal writes exactly (PktDup=2) but, with a lag,
	// never sends; and the same with no lag at all, where it does.
	s = engine.Defaults()
	s.Duplicate = 0.02
	cases["duplicate 2%"] = s
	s.Latency, s.Jitter = 0, 0
	cases["duplicate 2%, no lag"] = s
	for name, s := range cases {
		steps, _ := netsim.Plan(&s.NetworkSettings, s.Duration)
		for _, format := range netEngineFormats {
			t.Run(name+"/"+format, func(t *testing.T) {
				file, err := Render(format, Origin{}, s)
				if err != nil {
					t.Fatal(err)
				}
				body := string(file.Body)
				got := readNetExport(t, format, body)
				gaps, lossy := readGaps(t, body)
				listed := map[netGapRead]bool{}
				for _, g := range gaps {
					listed[g] = true
					t.Logf("not expressed: %+v", g)
				}
				if len(got) != len(steps) {
					t.Fatalf("the export has %d steps, the lab's plan %d", len(got), len(steps))
				}
				wantLossy := false
				used := map[netGapRead]bool{}
				for i, st := range steps {
					g := got[i]
					if math.Abs(g.at-st.At) > 1e-6 {
						t.Fatalf("step %d at %g s, the plan's at %g s", i, g.at, st.At)
					}
					fields := []struct {
						name      string
						got, want float64
					}{
						{"delay", g.delay, st.Delay()},
						{"jitter", g.jitter, st.C.Jitter},
						{"loss", g.loss, st.Loss()},
						{"duplicate", g.dup, s.Duplicate},
					}
					for _, f := range fields {
						if math.IsNaN(f.got) || math.Abs(f.got-f.want) <= 1e-6*max(1, f.want) {
							continue
						}
						if f.name == "loss" && (f.want == 0 || math.Abs(f.got-f.want)/f.want > lossyShare) {
							wantLossy = true
						}
						g := findGap(listed, st.At, f.name, format)
						if g == nil {
							t.Errorf("step at %g s: %s read back as %g, the lab's %g, and not listed as not expressed", st.At, f.name, f.got, f.want)
							continue
						}
						used[*g] = true
					}
				}
				for _, g := range gaps {
					if g.at >= 0 && !used[g] {
						t.Errorf("listed as not expressed at %g s: %s, but the export writes the lab's value", g.at, g.what)
					}
				}
				for _, feature := range netTargetFeatures[format] {
					if usesFeature(&s, steps, feature) && findGap(listed, -1, feature, format) == nil {
						t.Errorf("the settings use %s, which %s cannot express, and the export does not list it", feature, format)
					}
				}
				if wantLossy && !lossy {
					t.Errorf("a loss is written more than 25%% off the lab's, and the export does not say LOSSY at the top")
				}
			})
		}
	}
}

// findGap returns the listed gap of the step at `at` (< 0: the whole run)
// for a lab field or feature, under the target's name for it.
func findGap(listed map[netGapRead]bool, at float64, field, format string) *netGapRead {
	names := map[string][]string{
		"delay":     {"SendDelayMS", "PktLag", "net_fakelag", "delivery"},
		"jitter":    {"SendJitterMS", "PktLagVariance", "net_fakejitter", "jitter"},
		"loss":      {"SendPacketLossPercent", "PktLoss", "net_fakeloss"},
		"duplicate": {"SendDuplicatePercent", "PktDup", "duplicate"},
	}[field]
	if names == nil {
		names = []string{field}
	}
	var whole *netGapRead
	for g := range listed {
		for _, n := range names {
			switch {
			case g.what == n && math.Abs(g.at-at) < 1e-9:
				return &g
			case g.what == n && g.at < 0:
				whole = &g
			}
		}
	}
	return whole
}

// usesFeature tells whether the settings' network uses a feature, worked out
// from the settings and plan independently of the exports.
func usesFeature(s *engine.Settings, steps []netsim.Step, feature string) bool {
	for _, st := range steps {
		switch {
		case feature == "bandwidth" && st.C.Bandwidth > 0,
			feature == "burst outage" && st.Outage && st.Burst,
			feature == "hiccup loss" && st.C.Drop > 0 && st.C.Loss > 0:
			return true
		}
	}
	switch feature {
	case "jitterDist":
		return s.Jitter > 0 && s.JitterDist != "uniform"
	case "burst loss":
		return s.Loss > 0 && s.LossModel == "burst"
	case "duplicate":
		return s.Duplicate > 0
	case "reorder":
		return s.Reorder > 0
	case "uplinkRatio":
		return s.UplinkRatio != 1
	}
	return false
}

// TestUnityNetworkOutageFollowsPipeline: Transport's simulator drops what
// is sent in an outage, but NetworkTransform's default reliable pipeline
// sends it again: the unity-network export says a dropped outage's updates
// arrive late and a burst outage's backlog still arrives (not LOSSY); with
// Use Unreliable Deltas the backlog is dropped (LOSSY).
func TestUnityNetworkOutageFollowsPipeline(t *testing.T) {
	for _, tt := range []struct {
		backlog    string
		unreliable bool
		want       string
		lossy      bool
	}{
		{"drop", false, "drop outage: lab an outage (nothing delivered) -> SendPacketLossPercent 100, but NetworkTransform's reliable pipeline sends the dropped updates again", false},
		{"burst", false, "burst outage: lab an outage's backlog delivered as a burst at its end -> SendPacketLossPercent 100 drops it, and NetworkTransform's reliable pipeline sends it again", false},
		{"burst", true, "burst outage: lab an outage's backlog delivered as a burst at its end -> SendPacketLossPercent 100: with Use Unreliable Deltas the backlog is dropped", true},
	} {
		s := engine.Defaults()
		s.Scenario, s.ScenarioText = netsim.ScenarioCustom, "outage at=10 for=2 backlog="+tt.backlog
		s.NGOSettings.UseUnreliableDeltas = tt.unreliable
		f, err := Render("unity-network", Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		body := string(f.Body)
		if !strings.Contains(body, tt.want) {
			t.Errorf("backlog=%s, unreliable %v: the export lacks %q:\n%s", tt.backlog, tt.unreliable, tt.want, body)
		}
		if _, lossy := readGaps(t, body); lossy != tt.lossy {
			t.Errorf("backlog=%s, unreliable %v: LOSSY %v, want %v", tt.backlog, tt.unreliable, lossy, tt.lossy)
		}
	}
}
