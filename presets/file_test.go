package presets

import (
	"reflect"
	"strings"
	"testing"
)

// TestEncodeRoundTrip: every built-in preset written by Encode reads back
// by Parse to the same preset, so an exported file imports as it was.
func TestEncodeRoundTrip(t *testing.T) {
	list, err := All()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range list {
		data, err := Encode(p, 0)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		back, err := Parse(data)
		if err != nil {
			t.Fatalf("%s: parse its file: %v\n%s", p.Name, err, data)
		}
		if !reflect.DeepEqual(back, p) {
			t.Errorf("%s: read back %+v, want %+v", p.Name, back, p)
		}
		if !Builtin(p.Name) {
			t.Errorf("Builtin(%q) = false", p.Name)
		}
	}
	if Builtin("my-own") {
		t.Error(`Builtin("my-own") = true`)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{"name":"Bad Name","title":"t","doc":"d","settings":{}}`, "name"},
		{`{"name":"ok","title":"t","doc":"d","settings":{"latency":5}}`, "latency"},
		{`{"name":"ok","title":"t","doc":"d","settings":{"nope":1}}`, "nope"},
		{`{"name":"ok","title":"t","settings":{}}`, "missing doc"},
	} {
		if _, err := Parse([]byte(c.file)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want an error naming %q", c.file, err, c.want)
		}
	}
}
