package export

import (
	"bufio"
	"bytes"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/presets"
)

// parseNGO reads an ngo export back into settings: every
// "public const <type> <Name> = <literal>;" line sets the lab parameter of
// that NGO field, over base.
func parseNGO(t *testing.T, body []byte, base engine.Settings) engine.Settings {
	t.Helper()
	s := base
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "public const ")
		if !ok {
			continue
		}
		decl, lit, ok := strings.Cut(strings.TrimSuffix(rest, ";"), " = ")
		if !ok {
			t.Fatalf("cannot read %q", line)
		}
		fields := strings.Fields(decl)
		cs, name := fields[0], fields[1]
		param := "ngo." + strings.ToLower(name[:1]) + name[1:]
		if _, ok := engine.Lookup(param); !ok || !strings.Contains("uint int float double bool", cs) {
			t.Fatalf("%q: not an NGO field of the export", line)
		}
		text := lit
		if cs == "float" {
			v, err := strconv.ParseFloat(strings.TrimSuffix(lit, "f"), 32)
			if err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			text = strconv.FormatFloat(float64(float32(v)), 'g', -1, 64) // the float32 the game holds
		}
		if err := setStored(&s, param, text); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		seen[param] = true
	}
	for _, p := range engine.Params() {
		if strings.HasPrefix(p.Name, "ngo.") && !seen[p.Name] {
			t.Errorf("the export has no %s", p.Name)
		}
	}
	return s
}

// TestNGOExportRoundTrip reads each export back into the ngo technique's
// settings and runs both: the game's values give the frames the designer saw.
func TestNGOExportRoundTrip(t *testing.T) {
	p, err := presets.Get("ngo-defaults")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		set  map[string]string
	}{
		{"defaults", nil},
		{"tuned", map[string]string{"ngo.maximumInterpolationTime": "137ms", "ngo.positionThreshold": "10mm",
			"ngo.maximumDeltaTime": "50ms"}},
		{"unreliable 60 ticks", map[string]string{"ngo.useUnreliableDeltas": "true", "ngo.tickRate": "60",
			"ngo.localBufferSec": "16.6666ms", "loss": "5%", "tickRate": "60", "sendRate": "60"}},
		{"forked", map[string]string{"ngo.ticksAgo": "3", "ngo.serverBufferSec": "31ms", "ngo.hardResetThresholdSec": "350ms",
			"ngo.adjustmentRatio": "2.3%", "ngo.approvalRttSec": "80ms", "ngo.maxInterpolationBound": "1.5", "clockDrift": "3000ppm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := p.Settings
			for k, v := range tt.set {
				if err := s.SetText(k, v); err != nil {
					t.Fatal(err)
				}
			}
			s.Duration, s.Entities, s.Jitter = 20, 8, 0.015
			file, err := Render("ngo", Origin{Preset: p.Name}, s)
			if err != nil {
				t.Fatal(err)
			}
			back := parseNGO(t, file.Body, s)
			a, err := engine.Run(s)
			if err != nil {
				t.Fatal(err)
			}
			b, err := engine.Run(back)
			if err != nil {
				t.Fatal(err)
			}
			for k := range a.Techniques {
				if a.Techniques[k].Name == engine.TechNGO && !reflect.DeepEqual(a.Techniques[k], b.Techniques[k]) {
					t.Errorf("ngo with the export read back = %+v, want %+v", b.Techniques[k].Metrics, a.Techniques[k].Metrics)
				}
			}
		})
	}
}

// TestNGOExportWarnsOffNGO: a value the shipped package cannot have is
// flagged where it is written.
func TestNGOExportWarnsOffNGO(t *testing.T) {
	p, _ := presets.Get("ngo-defaults")
	tests := []struct {
		set, want string
	}{
		{"ngo.ticksAgo=3", "WARNING: NGO 2.1.1 uses 2; the lab ran 3"},
		{"ngo.maximumInterpolationTime=200ms", "WARNING: NGO 2.1.1 uses 0.1f; the lab ran 0.2f: needs a package fork"},
		{"sendRate=20", "WARNING: the lab's server sent at 20 Hz and ticked at 30 Hz, where ngo.tickRate = 30 Hz gives a game that sends at 30 Hz and ticks at 30 Hz"},
		{"tickRate=60", "WARNING: the lab's server sent at 30 Hz and ticked at 60 Hz"},
	}
	for _, tt := range tests {
		s := p.Settings
		name, v, _ := strings.Cut(tt.set, "=")
		if err := s.SetText(name, v); err != nil {
			t.Fatal(err)
		}
		before, _ := Render("ngo", Origin{}, p.Settings)
		file, err := Render("ngo", Origin{}, s)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(before.Body, []byte("WARNING")) {
			t.Errorf("ngo-defaults export warns:\n%s", before.Body)
		}
		if !bytes.Contains(file.Body, []byte(tt.want)) {
			t.Errorf("with %s the export lacks %q:\n%s", tt.set, tt.want, file.Body)
		}
	}
}

// TestNGOExportWritesEveryKnob: the export writes exactly the ngo group's
// parameters, each once, under NGO's names.
func TestNGOExportWritesEveryKnob(t *testing.T) {
	want := map[string]bool{}
	for _, p := range engine.Params() {
		if p.Group == engine.TechniqueGroup(engine.TechNGO) {
			want[p.Name] = true
		}
	}
	s := engine.Defaults()
	s.Techniques = []string{engine.TechNGO}
	file, err := Render("ngo", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(file.Body), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "public const ")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		param := "ngo." + strings.ToLower(f[1][:1]) + f[1][1:]
		if !want[param] {
			t.Errorf("export field %s writes %q, not a parameter of the ngo group (or written twice)", f[1], param)
		}
		delete(want, param)
	}
	for name := range want {
		t.Errorf("parameter %s is not exported", name)
	}
}

// TestNGOExportSetsTimeSystem: NetworkTimeSystem's buffers, hard-reset
// threshold and adjustment ratio are public properties, reached through
// NetworkManager.NetworkTimeSystem: the export sets them in code when the
// client starts, never sends the designer to a package fork for them, and
// names as needing a fork only what NGO keeps private or hard-coded.
func TestNGOExportSetsTimeSystem(t *testing.T) {
	p, _ := presets.Get("ngo-defaults")
	s := p.Settings
	for _, set := range []string{"ngo.serverBufferSec=30ms", "ngo.localBufferSec=20ms", "ngo.hardResetThresholdSec=350ms", "ngo.adjustmentRatio=2%"} {
		name, v, _ := strings.Cut(set, "=")
		if err := s.SetText(name, v); err != nil {
			t.Fatal(err)
		}
	}
	file, err := Render("ngo", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	body := string(file.Body)
	for _, want := range []string{"manager.OnClientStarted +=", "var timeSystem = manager.NetworkTimeSystem;",
		"timeSystem.ServerBufferSec = ServerBufferSec;", "timeSystem.LocalBufferSec = LocalBufferSec;",
		"timeSystem.HardResetThresholdSec = HardResetThresholdSec;", "timeSystem.AdjustmentRatio = AdjustmentRatio;"} {
		if !strings.Contains(body, want) {
			t.Errorf("the export lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "WARNING") {
		t.Errorf("the export warns about values a game sets in code:\n%s", body)
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, "fork") {
			for _, name := range []string{"ServerBufferSec", "LocalBufferSec", "HardResetThresholdSec", "AdjustmentRatio"} {
				if strings.Contains(line, name) {
					t.Errorf("the export sends %s to a fork: %q", name, line)
				}
			}
		}
	}
}

// TestNGOExportSplitsStartAndSpawn: what NGO reads when the network starts
// is set by BeforeStart, called before StartServer/StartHost/StartClient;
// what belongs to a NetworkTransform is set by ApplyTo once it has spawned,
// from OnNetworkSpawn after NetworkTransform's own, where its interpolators
// exist; MaxInterpolationBound goes through the public
// SetMaxInterpolationBound, never to a fork; the comments say so.
func TestNGOExportSplitsStartAndSpawn(t *testing.T) {
	p, _ := presets.Get("ngo-defaults")
	s := p.Settings
	if err := s.SetText("ngo.maxInterpolationBound", "1.5"); err != nil {
		t.Fatal(err)
	}
	file, err := Render("ngo", Origin{}, s)
	if err != nil {
		t.Fatal(err)
	}
	body := string(file.Body)
	method := func(sig string) string {
		i := strings.Index(body, sig)
		if i < 0 {
			t.Fatalf("the export has no %q:\n%s", sig, body)
		}
		end := strings.Index(body[i:], "\n    }\n")
		return body[i : i+end]
	}
	before := method("public static void BeforeStart(NetworkManager manager)")
	apply := method("public static void ApplyTo(NetworkTransform transform)")
	spawn := method("public override void OnNetworkSpawn()")
	for _, tt := range []struct {
		in, what, want string
		has            bool
	}{
		{before, "BeforeStart", "manager.NetworkConfig.TickRate = TickRate;", true},
		{before, "BeforeStart", "manager.OnClientStarted +=", true},
		{before, "BeforeStart", "PositionThreshold", false},
		{before, "BeforeStart", "transform", false},
		{apply, "ApplyTo", "transform.PositionThreshold = PositionThreshold;", true},
		{apply, "ApplyTo", "transform.UseUnreliableDeltas = UseUnreliableDeltas;", true},
		{apply, "ApplyTo", "transform.SetMaxInterpolationBound(MaxInterpolationBound);", true},
		{apply, "ApplyTo", "TickRate", false},
		{spawn, "OnNetworkSpawn", "base.OnNetworkSpawn();\n        InterpLabNGOSettings.ApplyTo(this);", true},
		{body, "the file", "BEFORE StartServer, StartHost or StartClient", true},
		{body, "the file", "AFTER it has spawned, from OnNetworkSpawn", true},
		{body, "the file", "public class InterpLabNetworkTransform : NetworkTransform", true},
		{body, "the file", "any value of 1 or more", true},
	} {
		if strings.Contains(tt.in, tt.want) != tt.has {
			t.Errorf("%s contains %q: %v, want %v:\n%s", tt.what, tt.want, !tt.has, tt.has, tt.in)
		}
	}
	for _, line := range strings.Split(body, "\n") {
		if strings.Contains(line, "MaxInterpolationBound") && (strings.Contains(line, "fork") || strings.Contains(line, "WARNING")) {
			t.Errorf("the export sends MaxInterpolationBound to a fork: %q", line)
		}
	}
}
