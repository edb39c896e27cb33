package peers

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"interplab/engine/geom"
	"interplab/engine/technique"
)

// fakeCase is a case of the "fake" library: its frames are its input, so
// a test sets what the technique draws and what the library drew apart.
type fakeCase struct {
	Frames []struct {
		T   float64     `json:"t"`
		Pos *[3]float64 `json:"pos"`
	} `json:"draw"`
	Fail string `json:"fail"`
}

func runFake(data []byte) ([]technique.PeerFrame, error) {
	var c fakeCase
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, err
	}
	if c.Fail != "" {
		return nil, errors.New(c.Fail)
	}
	out := make([]technique.PeerFrame, len(c.Frames))
	for i, f := range c.Frames {
		out[i].T = f.T
		if f.Pos != nil {
			out[i].Pos, out[i].Drawn = geom.Vec3(*f.Pos), true
		}
	}
	return out, nil
}

func writeCase(t *testing.T, dir, name, body string, gz bool) string {
	t.Helper()
	path := filepath.Join(dir, name)
	data := []byte(body)
	if gz {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		data = b.Bytes()
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheck(t *testing.T) {
	tests := []struct {
		name      string
		body      string
		gz        bool
		ok        bool
		firstDiff int
		maxErr    float64
		errHas    string // a substring of Err; "" for none
	}{
		{name: "same", ok: true, firstDiff: -1,
			body: `{"name":"a","library":"fake","out":[{"t":0,"pos":null},{"t":1,"pos":[1,2,3]}],
			        "draw":[{"t":0,"pos":null},{"t":1,"pos":[1,2,3]}]}`},
		{name: "within tolerance", ok: true, firstDiff: -1, maxErr: 5e-7,
			body: `{"name":"b","library":"fake","out":[{"t":0,"pos":[0,0,0]}],"draw":[{"t":0,"pos":[0,5e-7,0]}]}`},
		{name: "gzip", gz: true, ok: true, firstDiff: -1,
			body: `{"name":"c","library":"fake","out":[{"t":0,"pos":[1,1,1]}],"draw":[{"t":0,"pos":[1,1,1]}]}`},
		{name: "beyond tolerance", firstDiff: 1, maxErr: 2e-6,
			body: `{"name":"d","library":"fake","out":[{"t":0,"pos":[0,0,0]},{"t":1,"pos":[0,0,0]},{"t":2,"pos":[0,0,0]}],
			        "draw":[{"t":0,"pos":[0,0,0]},{"t":1,"pos":[2e-6,0,0]},{"t":2,"pos":[0,0,1e-6]}]}`},
		{name: "drawn where the library drew nothing", firstDiff: 0,
			body: `{"name":"e","library":"fake","out":[{"t":0,"pos":null}],"draw":[{"t":0,"pos":[0,0,0]}]}`},
		{name: "nothing where the library drew", firstDiff: 0,
			body: `{"name":"f","library":"fake","out":[{"t":0,"pos":[0,0,0]}],"draw":[{"t":0,"pos":null}]}`},
		{name: "frame count", firstDiff: -1, errHas: "rendered 1 frames, the case has 2",
			body: `{"name":"g","library":"fake","out":[{"t":0,"pos":null},{"t":1,"pos":null}],"draw":[{"t":0,"pos":null}]}`},
		{name: "unknown library", firstDiff: -1, errHas: `library "quake": want one of fake`,
			body: `{"name":"h","library":"quake","out":[]}`},
		{name: "bad pos", firstDiff: -1, errHas: "out[0].pos: want [x, y, z] or null",
			body: `{"name":"i","library":"fake","out":[{"t":0,"pos":[1,2]}],"draw":[]}`},
		{name: "runner error", firstDiff: -1, errHas: "bufferLimit",
			body: `{"name":"j","library":"fake","out":[],"fail":"bufferLimit = \"0\" is not allowed"}`},
		{name: "not JSON", firstDiff: -1, errHas: "not a case", body: `{"name":`},
	}
	c := &Checker{Runners: map[string]Runner{"fake": runFake}}
	dir := t.TempDir()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeCase(t, dir, "case"+string(rune('a'+i))+".json", tt.body, tt.gz)
			r := c.Check(path)
			if r.OK() != tt.ok || r.FirstDiff != tt.firstDiff || r.MaxErr != tt.maxErr {
				t.Errorf("Check = ok %v, firstDiff %d, maxErr %g (%s, %v); want ok %v, firstDiff %d, maxErr %g",
					r.OK(), r.FirstDiff, r.MaxErr, r.Why, r.Err, tt.ok, tt.firstDiff, tt.maxErr)
			}
			if (r.Err != nil) != (tt.errHas != "") || r.Err != nil && !strings.Contains(r.Err.Error(), tt.errHas) {
				t.Errorf("Check error = %v, want one containing %q", r.Err, tt.errHas)
			}
		})
	}
}

func TestFilesAndPrint(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "more")
	os.Mkdir(sub, 0o755)
	writeCase(t, dir, "b.json", `{"name":"b","library":"fake","out":[{"t":0,"pos":[0,0,0]}],"draw":[{"t":0,"pos":[0,0,0]}]}`, false)
	writeCase(t, sub, "a.json.gz", `{"name":"a","library":"fake","out":[{"t":0,"pos":[0,0,0]}],"draw":[{"t":0,"pos":[1,0,0]}]}`, true)
	writeCase(t, dir, "notes.txt", "not a case", false)
	files, err := Files([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "b.json"), filepath.Join(sub, "a.json.gz")}
	if strings.Join(files, ",") != strings.Join(want, ",") {
		t.Fatalf("Files = %q, want %q", files, want)
	}
	if _, err := Files([]string{filepath.Join(dir, "missing")}); err == nil {
		t.Error("Files of a missing path: no error")
	}
	if _, err := Files([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no case files") {
		t.Errorf("Files of an empty directory: %v, want no case files", err)
	}

	c := &Checker{Runners: map[string]Runner{"fake": runFake}}
	var results []Result
	for _, f := range files {
		results = append(results, c.Check(f))
	}
	var out bytes.Buffer
	if Print(&out, results, Tolerance, TimeTolerance) {
		t.Error("Print = true with a failing case")
	}
	text := out.String()
	for _, s := range []string{"ok   b [fake] 1 frames", "FAIL a [fake] 1 frames, max error 1 m, first differs at frame 0", "1 of 2 cases reproduced"} {
		if !strings.Contains(text, s) {
			t.Errorf("Print output lacks %q:\n%s", s, text)
		}
	}
	out.Reset()
	if !Print(&out, results[:1], Tolerance, TimeTolerance) {
		t.Errorf("Print = false with every case passing:\n%s", out.String())
	}
}

// TestCheckNetSim: a network simulator's case is told apart by its shape
// (sends and delivered, no out) and checked by its simulator's runner: the
// committed Mirror LatencySimulation cases pass; a moved delivery, a
// tolerance no case meets, an unknown simulator and a broken case fail,
// each with what differs.
func TestCheckNetSim(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "..", "engine", "netsim", "testdata", "mirror-latencysim")
	files, err := Files([]string{dir})
	if err != nil || len(files) < 10 {
		t.Fatalf("Files(%s) = %d files, %v; want the 10 cases", dir, len(files), err)
	}
	c := &Checker{Runners: Runners(), NetSimRunners: NetSimRunners()}
	var results []Result
	for _, f := range files {
		r := c.Check(f)
		if !r.OK() || !r.NetSim || r.Frames == 0 {
			t.Errorf("%s: ok %v netsim %v messages %d (%s, %v); want a passing simulator case", f, r.OK(), r.NetSim, r.Frames, r.Why, r.Err)
		}
		results = append(results, r)
	}
	var out bytes.Buffer
	if !Print(&out, results, Tolerance, TimeTolerance) || strings.Count(out.String(), "\n") != len(files)+1 ||
		!strings.Contains(out.String(), "[mirror-latencysim]") || !strings.Contains(out.String(), "network simulators: 1e-06 s") {
		t.Errorf("Print of the passing cases:\n%s", out.String())
	}

	data, err := ReadCase(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	delivered := raw["delivered"].([]any)
	d := delivered[2].(map[string]any)
	d["time"] = d["time"].(float64) + 2e-6
	moved, _ := json.Marshal(raw)
	tmp := t.TempDir()
	r := c.Check(writeCase(t, tmp, "moved.json", string(moved), true))
	if r.OK() || !strings.Contains(r.Why, "delivered[2]") || !(r.MaxErr > 1.9e-6) {
		t.Errorf("a delivery moved by 2 µs: ok %v, why %q, max %g; want a failure at delivered[2]", r.OK(), r.Why, r.MaxErr)
	}
	tight := &Checker{NetSimRunners: NetSimRunners(), TimeTol: 1e-7}
	if r := tight.Check(filepath.Join(tmp, "moved.json")); r.OK() {
		t.Error("TimeTol 1e-7 passed a delivery 2 µs off")
	}
	raw["library"] = "quake-netsim"
	other, _ := json.Marshal(raw)
	if r := c.Check(writeCase(t, tmp, "other.json", string(other), false)); r.Err == nil || !strings.Contains(r.Err.Error(), "mirror-latencysim") {
		t.Errorf("an unknown simulator: %v, want an error naming the known ones", r.Err)
	}
	raw["library"] = "mirror-latencysim"
	raw["noise"] = []any{}
	broken, _ := json.Marshal(raw)
	if r := c.Check(writeCase(t, tmp, "broken.json", string(broken), false)); r.Err == nil || !strings.Contains(r.Err.Error(), "noise") {
		t.Errorf("a case without its noise values: %v, want an error about the noise", r.Err)
	}
}
