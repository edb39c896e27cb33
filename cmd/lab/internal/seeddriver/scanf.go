package seeddriver

// The C library calls the seed's EPIC driver program makes, emulated so
// that `lab epic` reads and prints exactly what the program does when built
// with glibc: fgets into a 1024-byte buffer, sscanf with the format
// "%f , %f , %f / %f , %f , %f / %f", and printf's %.2f and %.3f.

import (
	"bytes"
	"io"
	"math"
	"strconv"
)

// cLineMax is the longest line fgets(line, 1024, stdin) returns, in bytes:
// a longer line comes back in pieces.
const cLineMax = 1024 - 1

// cLineReader reads lines as fgets(line, 1024, stdin) does.
type cLineReader struct {
	r          io.Reader
	buf        []byte
	start, end int  // buf[start:end] is read but not yet returned
	eof        bool // r has no more to give (end of input or an error)
}

func newCLineReader(r io.Reader) *cLineReader {
	return &cLineReader{r: r, buf: make([]byte, 64<<10)}
}

// Line returns the next line, through its newline but at most cLineMax
// bytes, and nil at the end of input. The slice is valid until the next
// call. A read error ends the input, as it makes fgets return NULL.
func (c *cLineReader) Line() []byte {
	for {
		avail := c.buf[c.start:c.end]
		if len(avail) > cLineMax {
			avail = avail[:cLineMax]
		}
		n := 0
		for n < len(avail) && avail[n] != '\n' {
			n++
		}
		switch {
		case n < len(avail): // a newline
			return c.take(n + 1)
		case len(avail) == cLineMax:
			return c.take(cLineMax)
		case c.eof && len(avail) > 0:
			return c.take(len(avail))
		case c.eof:
			return nil
		}
		c.fill()
	}
}

func (c *cLineReader) take(n int) []byte {
	line := c.buf[c.start : c.start+n]
	c.start += n
	return line
}

// fill reads more input after what is buffered.
func (c *cLineReader) fill() {
	if c.start > 0 {
		c.end = copy(c.buf, c.buf[c.start:c.end])
		c.start = 0
	}
	for !c.eof && c.end < len(c.buf) {
		n, err := c.r.Read(c.buf[c.end:])
		c.end += n
		if err != nil {
			c.eof = true
		}
		if n > 0 {
			return
		}
	}
}

// cString returns line up to its first NUL byte, where C's string ends.
func cString(line []byte) []byte {
	for i, b := range line {
		if b == 0 {
			return line[:i]
		}
	}
	return line
}

// cScanPacket is glibc's sscanf(s, "%f , %f , %f / %f , %f , %f / %f", …)
// on the C string s: it stores the numbers it converts in out, in order,
// and returns how many it converted, or −1 (EOF) if s ends before the
// first. A space in the format matches any run of white space, none
// included; each %f skips white space first.
func cScanPacket(s []byte, out *[7]float32) int {
	const seps = ",,/,,/"
	i := 0
	for k := range out {
		if k > 0 {
			i = cSkipSpace(s, i)
			if i == len(s) || s[i] != seps[k-1] {
				return k
			}
			i++
		}
		i = cSkipSpace(s, i)
		if i == len(s) {
			if k == 0 {
				return -1
			}
			return k
		}
		v, next, ok := cScanFloat(s, i)
		if !ok {
			return k
		}
		out[k], i = v, next
	}
	return len(out)
}

func cSkipSpace(s []byte, i int) int {
	for i < len(s) && cIsSpace(s[i]) {
		i++
	}
	return i
}

// cIsSpace is isspace in the C locale.
func cIsSpace(b byte) bool { return b == ' ' || b-'\t' <= '\r'-'\t' }

func cIsDigit(b byte) bool { return b-'0' <= 9 }

func cIsXDigit(b byte) bool { return cIsDigit(b) || (b|0x20)-'a' <= 'f'-'a' }

func cLower(b byte) byte {
	if b-'A' <= 'Z'-'A' {
		return b | 0x20
	}
	return b
}

// cScanFloat is glibc's %f conversion at s[i], which is not white space.
// Like glibc's scanf it first takes the longest run of characters that may
// start a number (a sign, "nan", "inf" or "infinity", or a decimal or
// hexadecimal mantissa and exponent, with no look-back), then converts it
// with strtof, which may use only a prefix: "1e+" reads as 1 and consumes
// all three characters. It returns the value, the index after the run, and
// whether the conversion succeeded.
func cScanFloat(s []byte, i int) (v float32, next int, ok bool) {
	start := i
	at := func(j int) byte { // the byte at j, or 0 at the end
		if j < len(s) {
			return s[j]
		}
		return 0
	}
	sign := 0
	if c := at(i); c == '-' || c == '+' {
		sign = 1
		i++
		if i == len(s) {
			return 0, i, false
		}
	}
	// "nan", "inf", "infinity", any case; a mismatch fails the conversion.
	if w := cLower(at(i)); w == 'n' || w == 'i' {
		word := "nan"
		if w == 'i' {
			word = "inf"
		}
		for k := range len(word) {
			if cLower(at(i)) != word[k] {
				return 0, i, false
			}
			i++
		}
		if w == 'i' && cLower(at(i)) == 'i' { // then it must be "infinity"
			for k := range len("nity") {
				i++
				if cLower(at(i)) != "nity"[k] {
					return 0, i, false
				}
			}
			i++
		}
		// strtof's values: glibc's NaN is the default quiet one, and a
		// sign, even on "nan", sets the sign bit.
		bits := uint32(0x7f800000)
		if w == 'n' {
			bits = 0x7fc00000
		}
		if s[start] == '-' {
			bits |= 1 << 31
		}
		v = math.Float32frombits(bits)
		return v, i, true
	}

	hex, digit, dot, exp := false, false, false, false
	if at(i) == '0' {
		i++
		if cLower(at(i)) == 'x' {
			hex = true
			i++
		} else {
			digit = true
		}
	}
	expChar := byte('e')
	if hex {
		expChar = 'p'
	}
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case cIsDigit(c), hex && !exp && cIsXDigit(c):
			digit = true
		case exp && cLower(s[i-1]) == expChar && (c == '-' || c == '+'):
		case digit && !exp && cLower(c) == expChar:
			exp, dot = true, true
		case !dot && c == '.':
			dot = true
		default:
			goto scanned
		}
	}
scanned:
	if n := i - start; n == sign || hex && n == 2+sign {
		return 0, i, false
	}
	v, ok = cStrtof(s[start:i])
	return v, i, ok
}

// cStrtof is strtof on a run taken by cScanFloat for a decimal or
// hexadecimal number: it converts the longest prefix that is a number,
// rounding correctly to float32, and reports false if there is none.
func cStrtof(run []byte) (float32, bool) {
	i := 0
	if run[0] == '-' || run[0] == '+' {
		i++
	}
	hex := len(run) > i+1 && run[i] == '0' && cLower(run[i+1]) == 'x'
	isDigit, expChar := cIsDigit, byte('e')
	if hex {
		isDigit, expChar = cIsXDigit, 'p'
		i += 2
	}
	digits := 0
	for ; i < len(run) && isDigit(run[i]); i++ {
		digits++
	}
	if i < len(run) && run[i] == '.' {
		i++
		for ; i < len(run) && isDigit(run[i]); i++ {
			digits++
		}
	}
	if digits == 0 {
		if !hex {
			return 0, false
		}
		// "0x" with no hexadecimal digit after it is the number 0.
		i = bytes.IndexByte(run, '0') + 1
		hex = false
	}
	end := i
	if i < len(run) && cLower(run[i]) == expChar {
		j := i + 1
		if j < len(run) && (run[j] == '-' || run[j] == '+') {
			j++
		}
		k := j
		for k < len(run) && cIsDigit(run[k]) {
			k++
		}
		if k > j {
			end = k
		}
	}
	text := string(run[:end])
	if hex && end == i {
		text += "p0" // Go wants the binary exponent that C lets one omit
	}
	// A number beyond float32's range is ±Inf with ErrRange, as strtof
	// gives ±HUGE_VALF; the text is well-formed, so no other error.
	f, _ := strconv.ParseFloat(text, 32)
	return float32(f), true
}

// cAppendFixed appends x as printf("%.*f", prec, x) does in glibc: rounded
// half to even from its exact binary value, "-" for every negative value
// and negative zero, and "inf", "-inf", "nan" or "-nan" for the others.
func cAppendFixed(b []byte, x float32, prec int) []byte {
	bits := math.Float32bits(x)
	neg := bits>>31 != 0
	if neg {
		b = append(b, '-')
	}
	switch {
	case x != x:
		return append(b, "nan"...)
	case math.IsInf(float64(x), 0):
		return append(b, "inf"...)
	}
	if q, ok := cFixedDigits(bits&^(1<<31), prec); ok {
		pow := cPow10[prec]
		b = strconv.AppendUint(b, q/pow, 10)
		if prec == 0 {
			return b
		}
		b = append(b, '.')
		frac := q % pow
		for p := pow / 10; p > 1 && frac < p; p /= 10 {
			b = append(b, '0')
		}
		return strconv.AppendUint(b, frac, 10)
	}
	return strconv.AppendFloat(b, math.Abs(float64(x)), 'f', prec, 64)
}

var cPow10 = [...]uint64{1, 10, 100, 1000, 10000, 100000, 1000000}

// cFixedDigits returns |x|·10^prec rounded half to even, for the finite
// non-negative float32 with the given bits, computed exactly in integers;
// ok is false when that does not fit (|x| of 2^43 or more), where the caller
// falls back to strconv, which is exact but slower.
func cFixedDigits(bits uint32, prec int) (q uint64, ok bool) {
	if prec >= len(cPow10) {
		return 0, false
	}
	mant, exp := uint64(bits&(1<<23-1)), int(bits>>23)
	if exp == 0 {
		exp = 1 // subnormal
	} else {
		mant |= 1 << 23
	}
	shift := exp - 127 - 23  // x = mant · 2^shift
	n := mant * cPow10[prec] // < 2^44
	switch {
	case shift >= 0:
		if shift > 19 { // n << shift would pass 2^63
			return 0, false
		}
		return n << shift, true
	case shift <= -64:
		return 0, true // below 2^-40: rounds to 0, never a tie
	}
	s := uint(-shift)
	q, rem, half := n>>s, n&(1<<s-1), uint64(1)<<(s-1)
	if rem > half || rem == half && q&1 == 1 {
		q++
	}
	return q, true
}
