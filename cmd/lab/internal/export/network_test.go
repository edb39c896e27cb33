package export

import (
	"bytes"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/netsim"
)

// networkFormats are the exports of the network alone.
var networkFormats = []string{"netem", "unity-network", "mirror-network", "unreal-network", "source-network"}

// TestExportNetworkGolden pins the network exports of two scenarios: one
// with a ramp, a dropped outage and a lasting step (mobile-handover), one
// with an outage whose backlog arrives as a burst (outage-2s).
func TestExportNetworkGolden(t *testing.T) {
	for _, scenario := range []string{"mobile-handover", "outage-2s"} {
		s := engine.Defaults()
		s.Scenario = scenario
		for _, f := range networkFormats {
			file, err := Render(f, Origin{}, s)
			if err != nil {
				t.Fatalf("Render(%s, %s): %v", f, scenario, err)
			}
			golden := filepath.Join("testdata", "network", f+"-"+scenario+filepath.Ext(file.Name))
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, file.Body, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(file.Body, want) {
				t.Errorf("Render(%s, %s) differs from %s; got:\n%s", f, scenario, golden, file.Body)
			}
		}
	}
}

// netemState is what one tc qdisc replace line sets, in the lab's units.
type netemState struct {
	at          float64 // s from the script's start
	delay, jit  float64 // s
	loss        float64 // long-run share lost
	rate        float64 // bit/s; 0 for none
	limit       int
	reorder     float64
	gap         int
	duplicate   float64
	hasJitDist  bool
	unknownArgs []string
}

// parseNetemScript reads a script written by writeNetem back into the
// netem settings it applies and when, as a shell would run it: sleep moves
// the clock, each tc qdisc replace sets the whole qdisc.
func parseNetemScript(t *testing.T, script string) []netemState {
	t.Helper()
	const prefix = `tc qdisc replace dev "$DEV" root netem `
	var out []netemState
	now := 0.0
	for n, line := range strings.Split(script, "\n") {
		switch {
		case strings.HasPrefix(line, "sleep "):
			d, err := strconv.ParseFloat(strings.TrimPrefix(line, "sleep "), 64)
			if err != nil || d <= 0 {
				t.Fatalf("line %d: bad sleep: %q", n+1, line)
			}
			now += d
		case strings.HasPrefix(line, "tc "):
			if !strings.HasPrefix(line, prefix) {
				t.Fatalf("line %d: not a tc qdisc replace of the root netem: %q", n+1, line)
			}
			out = append(out, parseNetemArgs(t, now, strings.Fields(strings.TrimPrefix(line, prefix))))
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "set -e") || strings.HasPrefix(line, "DEV="):
		default:
			t.Fatalf("line %d: unexpected: %q", n+1, line)
		}
	}
	return out
}

func parseNetemArgs(t *testing.T, at float64, args []string) netemState {
	t.Helper()
	st := netemState{at: at, limit: 1000, gap: 1}
	msArg := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "ms"), 64)
		if err != nil || !strings.HasSuffix(s, "ms") {
			t.Fatalf("bad time %q in %v", s, args)
		}
		return v / 1000
	}
	pctArg := func(s string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil || !strings.HasSuffix(s, "%") {
			t.Fatalf("bad percentage %q in %v", s, args)
		}
		return v / 100
	}
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "delay":
			st.delay = msArg(args[i+1])
			i++
			if i+1 < len(args) && strings.HasSuffix(args[i+1], "ms") {
				st.jit = msArg(args[i+1])
				i++
			}
		case "distribution":
			st.hasJitDist = true
			i++
		case "loss":
			switch args[i+1] {
			case "random":
				st.loss = pctArg(args[i+2])
				i += 2
			case "gemodel":
				p, r := pctArg(args[i+2]), pctArg(args[i+3])
				st.loss = p / (p + r)
				i += 5
			}
		case "rate":
			kbit, ok := strings.CutSuffix(args[i+1], "kbit") // tc's kbit: 1000 bit/s
			v, err := strconv.ParseFloat(kbit, 64)
			if err != nil || !ok {
				t.Fatalf("bad rate in %v", args)
			}
			st.rate = v * 1000
			i++
		case "limit":
			st.limit, _ = strconv.Atoi(args[i+1])
			i++
		case "reorder":
			st.reorder = pctArg(args[i+1])
			i++
		case "gap":
			st.gap, _ = strconv.Atoi(args[i+1])
			i++
		case "duplicate":
			st.duplicate = pctArg(args[i+1])
			i++
		default:
			st.unknownArgs = append(st.unknownArgs, args[i])
		}
	}
	return st
}

// TestNetemScriptParsesBack runs every built-in scenario and one that uses
// every knob through the netem export, reads the script back as tc and a
// shell would, and checks it against the engine's own conditions every
// 10 ms of the run: delay, jitter, loss, rate, and outages (nothing through
// while dropped; held to the outage's end, within netemBurstStep, while a
// burst builds).
func TestNetemScriptParsesBack(t *testing.T) {
	cases := map[string]engine.Settings{}
	for _, name := range netsim.Scenarios[1 : len(netsim.Scenarios)-1] {
		s := engine.Defaults()
		s.Scenario = name
		cases[name] = s
	}
	s := engine.Defaults()
	s.Loss, s.LossModel, s.BurstLength = 0.02, "burst", 4
	s.Duplicate, s.Reorder, s.ReorderGap, s.QueueLimit = 0.01, 0.05, 3, 64
	s.Scenario, s.ScenarioText = netsim.ScenarioCustom, `set bandwidth=1mbit
ramp at=5 for=3.3 bandwidth=200kbit loss=10%
outage at=10 for=1.05 backlog=burst
hiccup at=12 until=20 every=2 for=0.3 delay=80ms loss=50%`
	cases["custom"] = s
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			file, err := Render("netem", Origin{}, s)
			if err != nil {
				t.Fatal(err)
			}
			states := parseNetemScript(t, string(file.Body))
			sc, err := netsim.ScenarioOf(&s.NetworkSettings, s.Duration)
			if err != nil {
				t.Fatal(err)
			}
			k := 0
			for i := 0; i < int(s.Duration*100); i++ {
				tm := float64(i)/100 + 0.005 // between the changes, which fall on whole 10 ms here
				for k+1 < len(states) && states[k+1].at <= tm {
					k++
				}
				st := states[k]
				if len(st.unknownArgs) > 0 {
					t.Fatalf("at %g s: unknown netem options %v", tm, st.unknownArgs)
				}
				c := sc.Conditions(&s.NetworkSettings, tm)
				if o, ok := sc.Outage(tm); ok {
					if o.Drop && st.loss != 1 {
						t.Fatalf("at %g s, inside a dropping outage: loss %g, want 100%%", tm, st.loss)
					}
					if end := o.At + o.For; !o.Drop && (tm+st.delay < end || tm+st.delay > end+netemBurstStep+1e-9) {
						t.Fatalf("at %g s, inside a burst outage: a packet arrives at %g s, want in [%g, %g]", tm, tm+st.delay, end, end+netemBurstStep)
					}
					continue
				}
				// A ramp's step holds the value at its middle: allow what the
				// conditions move in half a step either way.
				tol, tolJit := 1e-6, 1e-6
				for _, dt := range []float64{-netsim.RampStep / 2, netsim.RampStep / 2} {
					o := sc.Conditions(&s.NetworkSettings, tm+dt)
					tol = max(tol, math.Abs(o.Latency+o.Jitter+o.Extra-c.Latency-c.Jitter-c.Extra), math.Abs(o.Loss-c.Loss), math.Abs(o.Bandwidth-c.Bandwidth)/1e6)
					tolJit = max(tolJit, math.Abs(o.Jitter-c.Jitter))
				}
				want := c.Latency + c.Jitter + c.Extra
				if math.Abs(st.delay-want) > tol || math.Abs(st.jit-c.Jitter) > tolJit {
					t.Fatalf("at %g s: delay %g ± %g s, want %g ± %g", tm, st.delay, st.jit, want, c.Jitter)
				}
				if wantLoss := max(c.Loss, c.Drop); math.Abs(st.loss-wantLoss) > tol {
					t.Fatalf("at %g s: loss %g, want %g", tm, st.loss, wantLoss)
				}
				if math.Abs(st.rate-c.Bandwidth)/1e6 > tol || (st.rate > 0 && st.limit != s.QueueLimit) {
					t.Fatalf("at %g s: rate %g bit/s limit %d, want %g limit %d", tm, st.rate, st.limit, c.Bandwidth, s.QueueLimit)
				}
				if st.reorder != s.Reorder || (s.Reorder > 0 && st.gap != s.ReorderGap) || st.duplicate != s.Duplicate {
					t.Fatalf("at %g s: reorder %g gap %d duplicate %g, want %g %d %g", tm, st.reorder, st.gap, st.duplicate, s.Reorder, s.ReorderGap, s.Duplicate)
				}
			}
		})
	}
}

// TestNetemScriptRuns applies a short scenario's script to the loopback
// interface of a fresh network namespace, where the machine allows it
// (root or user namespaces, the netem module), and checks that tc takes
// every command and leaves the last conditions in place.
func TestNetemScriptRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("applies a 3 s script; skipped with -short")
	}
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Skip("no unshare(1): cannot make a network namespace here; TestNetemScriptParsesBack still checks the script")
	}
	if _, err := exec.LookPath("tc"); err != nil {
		t.Skip("no tc(8) here; TestNetemScriptParsesBack still checks the script")
	}
	probe := exec.Command(unshare, "-rn", "sh", "-c", "ip link set lo up && tc qdisc replace dev lo root netem delay 1ms")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("cannot apply netem in a network namespace here (%v: %s); TestNetemScriptParsesBack still checks the script",
			err, strings.TrimSpace(string(out)))
	}
	s := engine.Defaults()
	s.Duration, s.Scenario, s.ScenarioText = 3, netsim.ScenarioCustom, "spike at=1 for=0.5 delay=100ms\noutage at=2 for=0.3 backlog=drop"
	file, err := Render("netem", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "netem.sh")
	if err := os.WriteFile(path, file.Body, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(unshare, "-rn", "sh", "-c", `ip link set lo up && sh "$0" lo && tc qdisc show dev lo`, path).CombinedOutput()
	if err != nil {
		t.Fatalf("the script failed in a network namespace: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "netem") || !strings.Contains(string(out), "delay 60ms") {
		t.Errorf("after the script, tc qdisc show dev lo = %s, want the last conditions (netem delay 60ms)", out)
	}
}

// TestNetemJitterDist: netem keeps the normal and pareto tables' names,
// uniform is its default, and only lognormal (which netem lacks) is listed
// as not expressed.
func TestNetemJitterDist(t *testing.T) {
	for _, tt := range []struct{ dist, args, listed string }{
		{"uniform", "netem delay 60ms 10ms loss", "# Not expressed: nothing"},
		{"normal", "netem delay 60ms 10ms distribution normal", "# Not expressed: nothing"},
		{"pareto", "netem delay 60ms 10ms distribution pareto", "# Not expressed: nothing"},
		{"lognormal", "netem delay 60ms 10ms distribution paretonormal", "#   - jitterDist: lab lognormal -> netem's paretonormal table"},
	} {
		s := engine.Defaults()
		s.JitterDist, s.Loss = tt.dist, 0.01
		f, err := Render("netem", Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		if body := string(f.Body); !strings.Contains(body, tt.args) || !strings.Contains(body, tt.listed) {
			t.Errorf("jitterDist %s: the script lacks %q or %q:\n%s", tt.dist, tt.args, tt.listed, body)
		}
	}
}
