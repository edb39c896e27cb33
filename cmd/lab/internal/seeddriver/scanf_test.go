package seeddriver

import (
	"bytes"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
)

// TestCScanPacket checks the sscanf emulation on inputs chosen to hit each
// rule of glibc's %f. Every want is what glibc 2.36's sscanf returned and
// stored (as float bits; 0xdeadbeef marks a number not stored).
func TestCScanPacket(t *testing.T) {
	const none = 0xdeadbeef
	tests := []struct {
		in   string
		n    int
		want [7]uint32
	}{
		{"1,2,3/4,5,6/7", 7, [7]uint32{0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000, 0x40e00000}},
		{"  1 , 2 , 3 / 4 , 5 , 6 / 7  trailing", 7, [7]uint32{0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000, 0x40e00000}},
		{"1,2,3/4,5,6/7.5e-1x", 7, [7]uint32{0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000, 0x3f400000}},
		{"-1.5,+2.25,.5/5.,-.25,0/-0", 7, [7]uint32{0xbfc00000, 0x40100000, 0x3f000000, 0x40a00000, 0xbe800000, 0x00000000, 0x80000000}},
		{"1,2,3 / 4,5,6", 6, [7]uint32{0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000, none}},
		{"1,2,3/4,5,6/", 6, [7]uint32{0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000, none}},
		{"", -1, [7]uint32{none, none, none, none, none, none, none}},
		{" \t\n", -1, [7]uint32{none, none, none, none, none, none, none}},
		{"hello", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"1;2;3/4;5;6/7", 1, [7]uint32{0x3f800000, none, none, none, none, none, none}},
		{"1 2,3,4/5,6,7/8", 1, [7]uint32{0x3f800000, none, none, none, none, none, none}},
		{"1.2.3,1,1/1,1,1/1", 1, [7]uint32{0x3f99999a, none, none, none, none, none, none}},
		// An exponent with no digits is consumed but not converted.
		{"1e,2e+,3e-/4E5,5e+1,6e-1/7e", 7, [7]uint32{0x3f800000, 0x40000000, 0x40400000, 0x48c35000, 0x42480000, 0x3f19999a, 0x40e00000}},
		{"0x1.8p1,0X.8P-1,0x10/0xp1,1,1/1", 3, [7]uint32{0x40400000, 0x3e800000, 0x41800000, none, none, none, none}},
		{"0x,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"0x.,1,1/1,1,1/1", 7, [7]uint32{0x00000000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000, 0x3f800000}},
		{"0x1p,0x1p+,0x1.fffffep127/0x1p128,1e39,-1e39/1e-46", 7, [7]uint32{0x3f800000, 0x3f800000, 0x7f7fffff, 0x7f800000, 0x7f800000, 0xff800000, 0x00000000}},
		{"0.1,0.2,0.3/16777217,3.4028235e38,3.4028236e38/1.401298464e-45", 7, [7]uint32{0x3dcccccd, 0x3e4ccccd, 0x3e99999a, 0x4b800000, 0x7f7fffff, 0x7f800000, 0x00000001}},
		{"nan,NAN,-nan/+nan,inf,-Infinity/INFINITY", 7, [7]uint32{0x7fc00000, 0x7fc00000, 0xffc00000, 0x7fc00000, 0x7f800000, 0xff800000, 0x7f800000}},
		{"nan(1),2,3/4,5,6/7", 1, [7]uint32{0x7fc00000, none, none, none, none, none, none}},
		{"in,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"infinit,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"infix,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"infinityx,1,1/1,1,1/1", 1, [7]uint32{0x7f800000, none, none, none, none, none, none}},
		{"-,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"+-1,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{".,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"-.e1,1,1/1,1,1/1", 0, [7]uint32{none, none, none, none, none, none, none}},
		{"1,2,3/4,5,6/7 / 8", 7, [7]uint32{0x3f800000, 0x40000000, 0x40400000, 0x40800000, 0x40a00000, 0x40c00000, 0x40e00000}},
	}
	for _, tt := range tests {
		var got [7]float32
		for i := range got {
			got[i] = math.Float32frombits(none)
		}
		n := cScanPacket([]byte(tt.in), &got)
		var bits [7]uint32
		for i, f := range got {
			bits[i] = math.Float32bits(f)
		}
		if n != tt.n || bits != tt.want {
			t.Errorf("cScanPacket(%q) = %d, %08x, want %d, %08x", tt.in, n, bits, tt.n, tt.want)
		}
	}
}

func TestCLineReader(t *testing.T) {
	long := strings.Repeat("a", 2500)
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"lines", "a\nb\n\nc", []string{"a\n", "b\n", "\n", "c"}},
		{"1023 bytes and a newline", long[:1023] + "\nx\n", []string{long[:1023], "\n", "x\n"}},
		{"1022 bytes and a newline", long[:1022] + "\n", []string{long[:1022] + "\n"}},
		{"2500 bytes", long + "\n", []string{long[:1023], long[:1023], long[:454] + "\n"}},
		{"NUL bytes are data", "a\x00b\n", []string{"a\x00b\n"}},
	}
	readers := map[string]func(string) io.Reader{
		"whole":    func(s string) io.Reader { return strings.NewReader(s) },
		"one byte": func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		"data+EOF": func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	}
	for _, tt := range tests {
		for rname, mk := range readers {
			var got []string
			r := newCLineReader(mk(tt.in))
			for line := r.Line(); line != nil; line = r.Line() {
				got = append(got, string(line))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
				t.Errorf("%s (%s reader): lines %q, want %q", tt.name, rname, got, tt.want)
			}
		}
	}
	// A read error ends the input after what was read.
	r := newCLineReader(io.MultiReader(strings.NewReader("a\nb"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	l1 := string(r.Line())
	l2 := string(r.Line())
	if l3 := r.Line(); l1 != "a\n" || l2 != "b" || l3 != nil {
		t.Errorf("lines before a read error = %q, %q, %v; want \"a\\n\", \"b\", nil", l1, l2, l3)
	}
}

func TestCString(t *testing.T) {
	for in, want := range map[string]string{"abc": "abc", "a\x00bc": "a", "\x00": "", "": ""} {
		if got := string(cString([]byte(in))); got != want {
			t.Errorf("cString(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestCAppendFixed checks cases where printf's rules matter; every want is
// what glibc 2.36 printed.
func TestCAppendFixed(t *testing.T) {
	tests := []struct {
		x    float32
		prec int
		want string
	}{
		{0.125, 2, "0.12"}, // exact ties round to even
		{0.375, 2, "0.38"},
		{2.5, 0, "2"},
		{0.0625, 3, "0.062"},
		{0.005, 2, "0.00"}, // 0.005 as a float32 is below 0.005
		{-0.001, 2, "-0.00"},
		{float32(math.Copysign(0, -1)), 3, "-0.000"},
		{1e-45, 3, "0.000"},
		{123456.789, 3, "123456.789"},
		{16777216, 2, "16777216.00"},
		{1e10, 3, "10000000000.000"},
		{3.4028235e38, 2, "340282346638528859811704183484516925440.00"},
		{float32(math.Inf(1)), 2, "inf"},
		{float32(math.Inf(-1)), 3, "-inf"},
		{math.Float32frombits(0x7fc00000), 2, "nan"},
		{math.Float32frombits(0xffc00000), 3, "-nan"},
	}
	for _, tt := range tests {
		if got := string(cAppendFixed(nil, tt.x, tt.prec)); got != tt.want {
			t.Errorf("cAppendFixed(%v, %d) = %q, want %q", tt.x, tt.prec, got, tt.want)
		}
	}
}

// TestCAppendFixedMatchesStrconv sweeps the finite float32s: the integer
// fast path must agree with strconv, which formats the exact binary value
// and rounds half to even, like glibc.
func TestCAppendFixedMatchesStrconv(t *testing.T) {
	step := uint32(9973)
	if testing.Short() {
		step = 999983
	}
	for bits := uint32(0); bits < 0xff800000-step; bits += step {
		x := math.Float32frombits(bits)
		if math.IsInf(float64(x), 0) || x != x {
			continue
		}
		for _, prec := range []int{2, 3} {
			got := cAppendFixed(nil, x, prec)
			want := strconv.AppendFloat(nil, float64(x), 'f', prec, 64)
			if !bytes.Equal(got, want) {
				t.Fatalf("cAppendFixed(%v [%08x], %d) = %s, want %s", x, bits, prec, got, want)
			}
		}
	}
}

func FuzzCScanPacket(f *testing.F) {
	for _, s := range []string{"1,2,3/4,5,6/7", "-1.5 , 2e3 , .5 / 0x1p-2 , nan , -inf / 1e", "hello", "", "1,2"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var got [7]float32
		n := cScanPacket(cString(line), &got)
		if n < -1 || n > 7 {
			t.Fatalf("cScanPacket(%q) = %d, want -1 to 7", line, n)
		}
		if n != 7 {
			return
		}
		// What was read prints back to a line that reads the same.
		var b []byte
		for i, x := range got {
			if i > 0 {
				b = append(b, ",,/,,/"[i-1])
			}
			b = epicAppendG(b, x)
		}
		var again [7]float32
		if m := cScanPacket(b, &again); m != 7 || epicBits(again) != epicBits(got) {
			t.Fatalf("cScanPacket(%q) = %v; its print %q reads %d, %v", line, got, b, m, again)
		}
	})
}

// epicAppendG prints x so that strtof reads it back exactly.
func epicAppendG(b []byte, x float32) []byte {
	switch {
	case x != x:
		if math.Signbit(float64(x)) {
			b = append(b, '-')
		}
		return append(b, "nan"...)
	case math.IsInf(float64(x), 0):
		if x < 0 {
			b = append(b, '-')
		}
		return append(b, "inf"...)
	}
	return strconv.AppendFloat(b, float64(x), 'g', -1, 32)
}

func epicBits(v [7]float32) (bits [7]uint32) {
	for i, x := range v {
		bits[i] = math.Float32bits(x)
	}
	return bits
}

func FuzzCLineReader(f *testing.F) {
	f.Add([]byte("1,2,3/4,5,6/7\nq\n"), uint8(0))
	f.Add([]byte(strings.Repeat("x", 1100)+"\n\n"), uint8(3))
	f.Fuzz(func(t *testing.T, in []byte, chunk uint8) {
		var r io.Reader = bytes.NewReader(in)
		if chunk%2 == 1 {
			r = iotest.HalfReader(r)
		}
		lr := newCLineReader(r)
		var all []byte
		for line := lr.Line(); line != nil; line = lr.Line() {
			if len(line) == 0 || len(line) > cLineMax {
				t.Fatalf("line of %d bytes, want 1 to %d", len(line), cLineMax)
			}
			if i := bytes.IndexByte(line, '\n'); i >= 0 && i != len(line)-1 {
				t.Fatalf("line %q has a newline before its end", line)
			}
			if line[len(line)-1] != '\n' && len(line) < cLineMax && len(all)+len(line) != len(in) {
				t.Fatalf("short line %q without a newline before the end of input", line)
			}
			all = append(all, line...)
		}
		if !bytes.Equal(all, in) {
			t.Fatalf("lines join to %q, want the input %q", all, in)
		}
	})
}
