package web_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
	"interplab/engine/param"
)

// TestFormatMirrorsEngine runs format.js's readable under Node on values
// near every parameter's range, small values, ties and whole numbers, and
// wants engine.ReadableIn's text for each, digit for digit: the number box
// shows what the server rendered, lab params and the errors print.
func TestFormatMirrorsEngine(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	type c struct {
		V, Scale float64
		Sig      int
	}
	var cases []c
	r := rand.New(rand.NewPCG(1, 2))
	for _, p := range engine.Params() {
		if p.Kind != engine.Float && p.Kind != engine.Int {
			continue
		}
		_, scale := p.DisplayUnit()
		for _, v := range []float64{p.Min, p.Max, p.Default, p.Step} {
			cases = append(cases, c{v, scale, param.ShowDigits})
		}
		for range 50 {
			v := p.Min + r.Float64()*(p.Max-p.Min)
			cases = append(cases, c{v, scale, param.ShowDigits}, c{v, scale, 3},
				c{p.Min + math.Round((v-p.Min)/p.Step)*p.Step, scale, param.ShowDigits})
		}
	}
	for _, v := range []float64{0.0002, 0.000186, 0.125, -0.125, 1234.5, 999.96, 0.099996, 2761734960, 4294967295,
		1e8, -1, 0, 0.30000000000000004, 1e-12, 2.5e21, 1.0000005, 0.00012355} {
		for _, sig := range []int{2, 3, 4, 6} {
			cases = append(cases, c{v, 1, sig}, c{v, 1000, sig}, c{v, 100, sig}, c{v, 0.001, sig}, c{v, 1e6, sig})
		}
	}
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	mod, err := filepath.Abs("format.js")
	if err != nil {
		t.Fatal(err)
	}
	script := "import { readable } from " + strconv.Quote("file://"+filepath.ToSlash(mod)) + ";\n" +
		"import { readFileSync } from 'node:fs';\n" +
		"const cases = JSON.parse(readFileSync(0, 'utf8'));\n" +
		"console.log(JSON.stringify(cases.map((c) => readable(c.V, c.Scale, c.Sig))));\n"
	cmd := exec.Command(node, "--input-type=module", "-e", script)
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("node: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("node: %v", err)
	}
	var got []string
	if err := json.Unmarshal(out, &got); err != nil || len(got) != len(cases) {
		t.Fatalf("node printed %d results (%v): %s", len(got), err, strings.TrimSpace(string(out)))
	}
	bad := 0
	for i, cs := range cases {
		if want := param.ReadableIn(cs.V, cs.Scale, cs.Sig); got[i] != want {
			t.Errorf("readable(%v, %v, %d) = %q, want engine's %q", cs.V, cs.Scale, cs.Sig, got[i], want)
			if bad++; bad > 10 {
				break
			}
		}
	}
}
