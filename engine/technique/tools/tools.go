// Package tools is what the library techniques' tools share: the literals
// their exports write and the decoder of their recorded cases. Only the
// files of a technique built outside lab.wasm (//go:build !js) import it,
// so that fmt and encoding/json never reach the page's module.
package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"interplab/engine/param"
	"interplab/engine/technique"
)

// Case is the Cases function of a library whose case type is T: it decodes
// a case's JSON and replays it (T's Run).
func Case[T any, P interface {
	*T
	Run() ([]technique.PeerFrame, error)
}](caseJSON []byte) ([]technique.PeerFrame, error) {
	var c T
	if err := json.Unmarshal(caseJSON, &c); err != nil {
		return nil, fmt.Errorf("not a case of this library: %w", err)
	}
	return P(&c).Run()
}

// Row returns the row of params named name; it panics if there is none,
// as an export naming a knob its technique does not have is a programmer's
// mistake (each library's export test writes every row).
func Row[P any](params []param.Param[P], name string) *param.Param[P] {
	p, ok := param.Find(params, name)
	if !ok {
		panic("tools: no parameter " + name)
	}
	return p
}

// Doc is p's doc line, headed by its unit ("s: ...") unless it has none or
// is a fraction: a comment beside the value.
func Doc[P any](p *param.Param[P]) string {
	if p.Unit != "" && p.Unit != "fraction" {
		return p.Unit + ": " + p.Doc
	}
	return p.Doc
}

// Values are rounded to 1e-9 of their unit so that 0.015 s prints as 15
// ms, not 15.000000000000002.

// Num formats v in plain decimal notation.
func Num(v float64) string { return strconv.FormatFloat(math.Round(v*1e9)/1e9, 'f', -1, 64) }

// Ms formats a time in seconds as milliseconds.
func Ms(seconds float64) string { return Num(seconds * 1000) }

// MsRound formats a time in seconds as milliseconds to the microsecond
// (a float32 interval makes 1/60 s 16.666667536 ms).
func MsRound(seconds float64) string { return Num(math.Round(seconds*1e6) / 1e3) }

// Float formats v as a C, C++ or C# float literal: 0.2f, 1.0f, 1e-05f.
func Float(v float64) string {
	s := strconv.FormatFloat(float64(float32(v)), 'g', -1, 32)
	if !strings.ContainsAny(s, ".eEn") { // n: NaN and Inf cannot occur in valid settings
		s += ".0"
	}
	return s + "f"
}

// Bool formats v as a C-family boolean.
func Bool(v bool) string { return strconv.FormatBool(v) }
