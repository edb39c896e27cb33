package traceio

import (
	"math"
	"strings"
	"testing"
)

// TestTemplateParses: the downloadable template is a valid trace with two
// entities and one lost packet.
func TestTemplateParses(t *testing.T) {
	tr, format, err := Parse(strings.NewReader(Template), "", "template")
	if err != nil {
		t.Fatalf("Parse(Template) = %v", err)
	}
	lost := 0
	for _, p := range tr.Packets {
		if math.IsNaN(p.Arrive) {
			lost++
		}
	}
	if format != "csv" || tr.Entities != 2 || lost != 1 {
		t.Errorf("template: format %s, %d entities, %d lost; want csv, 2, 1", format, tr.Entities, lost)
	}
}
