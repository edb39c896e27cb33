package seeddriver

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"interplab/engine"
)

// The seed program's golden outputs live with the engine, which pins its
// interpolator with them; the driver must print them byte for byte too.
const epicGoldenDir = "../../../../engine/technique/epic/testdata"

func TestRunGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join(epicGoldenDir, "case-*.in"))
	if err != nil || len(ins) != 40 {
		t.Fatalf("found %d golden cases in %s (%v), want 40", len(ins), epicGoldenDir, err)
	}
	for _, in := range ins {
		base := strings.TrimSuffix(in, ".in")
		t.Run(filepath.Base(base), func(t *testing.T) {
			read := func(ext string) []byte {
				b, err := os.ReadFile(base + ext)
				if err != nil {
					t.Fatal(err)
				}
				return b
			}
			a := strings.Fields(string(read(".args")))
			if len(a) != 3 {
				t.Fatalf("%s.args = %q, want three settings", base, a)
			}
			s := epicSettings(t, "calcAhead", a[0], "displayBehind", a[1], "slopTime", a[2])
			var stdout, stderr bytes.Buffer
			if err := Run(s, bytes.NewReader(read(".in")), &stdout, &stderr); err != nil {
				t.Fatalf("Run(%q) = %v; stderr:\n%s", a, err, stderr.String())
			}
			if want := read(".out"); !bytes.Equal(stdout.Bytes(), want) {
				t.Errorf("stdout differs from %s.out:\n%s", base, epicDiff(stdout.String(), string(want)))
			}
			if want := read(".err"); !bytes.Equal(stderr.Bytes(), want) {
				t.Errorf("stderr differs from %s.err:\n%s", base, epicDiff(stderr.String(), string(want)))
			}
		})
	}
}

// epicDiff describes the first line where got and want differ.
func epicDiff(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got  " + strconv.Quote(gl) + "\n want " + strconv.Quote(wl)
		}
	}
	return "no difference"
}

// TestRunEdges holds inputs the golden cases do not reach. Every want
// is what the seed program, built with g++ -O2 against glibc 2.36, printed.
func TestRunEdges(t *testing.T) {
	const (
		banner = "Input successively reveived data packets. Type 'q' to quit.\n"
		prompt = "pos/vel/time> "
		bad    = "error: input format x,y,z / x,y,z / t\n"
		// The packet 1,2,3/4,5,6/0.1 with the default settings.
		out123 = "pos: -0.45,-0.75,-1.05  vel: 9.000,15.000,21.000  time: 0.050\n" +
			"pos: 0.00,0.00,0.00  vel: 9.000,15.000,21.000  time: 0.100\n" +
			"pos: 0.45,0.75,1.05  vel: 9.000,15.000,21.000  time: 0.150\n" +
			"pos: 0.90,1.50,2.10  vel: 9.000,15.000,21.000  time: 0.200\n" +
			"pos: 1.35,2.25,3.15  vel: 9.000,15.000,21.000  time: 0.250\n"
	)
	var def []string
	tests := []struct {
		name    string
		set     []string // name, value, ... over the defaults
		in      string
		wantOut string
		wantErr string
	}{
		{"empty input", def, "", "", banner + prompt},
		{"no newline at the end", def, "1,2,3/4,5,6/0.1", out123, banner + prompt + prompt},
		{"fgets splits a line of 1030 spaces and a packet", def,
			strings.Repeat(" ", 1030) + "1,2,3/4,5,6/0.1\n", out123, banner + prompt + bad + prompt + prompt},
		{"a NUL byte first ends the input", def, "\x001,2,3/4,5,6/0\n1,2,3/4,5,6/0.1\n", "", banner + prompt},
		{"a NUL byte ends the line for sscanf", def, "1,2,3/4,5,6/0.1\x009\n", out123, banner + prompt + prompt},
		{"only a 'q' at the start quits", def, " q\nquit\n1,2,3/4,5,6/0\n", "", banner + prompt + bad + prompt},
		{"empty line and wrong separators", def, "1,2,3/4,5,6/0.1\n\n1;2;3/4;5;6/0.2\n", out123,
			banner + prompt + prompt + bad + prompt + bad + prompt},
		{"an older packet is discarded", def, "1,2,3/4,5,6/0.1\n1,2,3/4,5,6/0.05\n", out123,
			banner + prompt + prompt + prompt},
		{"%f takes 1e+ and 2e whole, reads 1 and 2", def, "1e+,2e,3e-/4.,.5,-0/1E-1xyz\n",
			"pos: -0.45,-0.53,-0.75  vel: 9.000,10.500,15.000  time: 0.050\n" +
				"pos: 0.00,0.00,0.00  vel: 9.000,10.500,15.000  time: 0.100\n" +
				"pos: 0.45,0.53,0.75  vel: 9.000,10.500,15.000  time: 0.150\n" +
				"pos: 0.90,1.05,1.50  vel: 9.000,10.500,15.000  time: 0.200\n" +
				"pos: 1.35,1.58,2.25  vel: 9.000,10.500,15.000  time: 0.250\n",
			banner + prompt + prompt},
		{"nan, inf and hexadecimal", def, "nan,-nan,inf/ -inf,0x1p-2,1e/ 0.05\n",
			"pos: nan,-nan,-nan  vel: nan,-nan,inf  time: 0.050\n" +
				"pos: nan,-nan,inf  vel: nan,-nan,inf  time: 0.100\n" +
				"pos: nan,-nan,inf  vel: nan,-nan,inf  time: 0.150\n" +
				"pos: nan,-nan,inf  vel: nan,-nan,inf  time: 0.200\n",
			banner + prompt + prompt},
		{"infinity, and infinit is an error", def,
			"0x1.8p1 , +.5e1 , INFINITY / 1 , 2 , 3 / -0.5\n1,1,1/0,0,0/infinit\n1,1,1/0,0,0/0.2\n",
			"pos: -0.75,-0.75,-0.75  vel: 5.000,5.000,5.000  time: 0.050\n" +
				"pos: -0.50,-0.50,-0.50  vel: 5.000,5.000,5.000  time: 0.100\n" +
				"pos: -0.25,-0.25,-0.25  vel: 5.000,5.000,5.000  time: 0.150\n" +
				"pos: 0.00,0.00,0.00  vel: 5.000,5.000,5.000  time: 0.200\n" +
				"pos: 0.25,0.25,0.25  vel: 5.000,5.000,5.000  time: 0.250\n" +
				"pos: 0.50,0.50,0.50  vel: 5.000,5.000,5.000  time: 0.300\n" +
				"pos: 0.75,0.75,0.75  vel: 5.000,5.000,5.000  time: 0.350\n",
			banner + prompt + prompt + bad + prompt + prompt},
		{"negative zero and values that round to it", []string{"calcAhead", "0", "displayBehind", "0"},
			"-0.001,-0,0/-0.0001,0,0/0\n",
			"pos: -0.00,0.00,0.00  vel: -0.000,0.000,0.000  time: 0.050\n" +
				"pos: -0.00,0.00,0.00  vel: -0.000,0.000,0.000  time: 0.100\n" +
				"pos: -0.00,0.00,0.00  vel: -0.000,0.000,0.000  time: 0.150\n",
			banner + prompt + prompt},
		{"displayBehind under 0.1 ms snaps", []string{"calcAhead", "0.1", "displayBehind", "0.00005", "slopTime", "0.3"},
			"1,2,3/4,5,6/0\n2,2,2/1,1,1/0.1\n",
			"pos: 1.20,2.25,3.30  vel: 4.000,5.000,6.000  time: 0.050\n" +
				"pos: 1.40,2.50,3.60  vel: 4.000,5.000,6.000  time: 0.100\n" +
				"pos: 1.60,2.75,3.90  vel: 4.000,5.000,6.000  time: 0.150\n" +
				"pos: 2.10,2.10,2.10  vel: 1.000,1.000,1.000  time: 0.200\n" +
				"pos: 2.15,2.15,2.15  vel: 1.000,1.000,1.000  time: 0.250\n",
			banner + prompt + prompt + prompt},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		if err := Run(epicSettings(t, tt.set...), strings.NewReader(tt.in), &stdout, &stderr); err != nil {
			t.Errorf("%s: Run = %v", tt.name, err)
		}
		if stdout.String() != tt.wantOut {
			t.Errorf("%s: stdout differs:\n%s", tt.name, epicDiff(stdout.String(), tt.wantOut))
		}
		if stderr.String() != tt.wantErr {
			t.Errorf("%s: stderr differs:\n%s", tt.name, epicDiff(stderr.String(), tt.wantErr))
		}
	}
}

// BenchmarkRun runs the driver on 10,000 packets 10 ms apart; one op is
// one packet line in and its share of the output.
func BenchmarkRun(b *testing.B) {
	var in bytes.Buffer
	const n = 10000
	for i := range n {
		t := float64(i) * 0.01
		in.WriteString(strconv.FormatFloat(t*3, 'f', 3, 64) + " , 1.000 , 0.500 / 3.000 , -0.250 , 0.000 / " + strconv.FormatFloat(t, 'f', 2, 64) + "\n")
	}
	b.SetBytes(int64(in.Len() / n))
	b.ResetTimer()
	for i := 0; i < b.N; i += n {
		Run(engine.Defaults(), bytes.NewReader(in.Bytes()), io.Discard, io.Discard)
	}
}

// epicSettings are the defaults with the named settings set: name, value,
// ...; values are the seed's own, in seconds (the golden cases' .args).
func epicSettings(t testing.TB, set ...string) engine.Settings {
	t.Helper()
	s := engine.Defaults()
	for i := 0; i+1 < len(set); i += 2 {
		p, _ := engine.Lookup(set[i])
		v, err := strconv.ParseFloat(set[i+1], 64)
		if err == nil {
			err = p.Set(&s, v)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return s
}
