package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

type testInner struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

type testEmbedded struct {
	Kind string `json:"kind"`
}

// testRequest is a request body with every shape the API decodes.
type testRequest struct {
	testEmbedded
	Title  *string              `json:"title"`
	Inner  testInner            `json:"inner"`
	List   []testInner          `json:"list"`
	ByName map[string]testInner `json:"byName"`
	Raw    json.RawMessage      `json:"raw"`
	Any    any                  `json:"any"`
	Plain  int
	Hidden int `json:"-"`
}

func TestUnmarshal(t *testing.T) {
	tests := []struct {
		body    string
		field   string // "" with ok for success
		ok      bool
		message string // a part of the message
	}{
		{body: `{"title":"a","inner":{"name":"x"},"list":[{"value":1}],"byName":{"Any Key":{"name":"y"}},"kind":"k","Plain":1}`, ok: true},
		{body: `{"raw":{"Whatever":1},"any":{"Free":[{"Form":2}]}}`, ok: true},
		{body: `{"Title":"a"}`, field: "Title", message: `want "title"`},
		{body: `{"inner":{"NAME":"x"}}`, field: "NAME", message: "case-sensitive"},
		{body: `{"list":[{"value":1},{"Value":2}]}`, field: "Value"},
		{body: `{"byName":{"k":{"Name":"y"}}}`, field: "Name"},
		{body: `{"Kind":"k"}`, field: "Kind"},
		{body: `{"plain":1}`, field: "plain"},
		{body: `{"titel":"a"}`, field: "titel", message: `unknown key "titel"`},
		{body: `{"Hidden":1}`, field: "Hidden", message: "unknown key"},
		{body: `{"inner":{"value":"fast"}}`, field: "inner.value", message: "a finite number"},
		{body: `{"title":5}`, field: "title", message: "a string"},
		{body: `{"title":"a"} {}`, message: "trailing data"},
		{body: ``, message: "empty body"},
		{body: `{"title":`, field: "title", message: "unexpected end at byte 9"},
		{body: `{"title" "a"}`, field: "title", message: "invalid JSON at byte 9"},
		{body: `[1]`, message: "cannot use a JSON array"},
		{body: `{"inner":{"value":1e999}}`, field: "inner.value", message: "1e999 as a finite number"},
		{body: `{"inner":{"value":NaN}}`, field: "inner.value", message: "invalid JSON at byte 18"},
		{body: `{"title":"a","title":"b"}`, field: "title", message: `duplicate key "title" at byte 13`},
		{body: `{"inner":{"name":"x","value":1,"name":"y"}}`, field: "name", message: `duplicate key "name"`},
		{body: `{"byName":{"k":{},"k":{}}}`, field: "k", message: `duplicate key "k"`},
		{body: `{"raw":{"a":1,"a":2}}`, field: "a", message: `duplicate key "a"`},
		{body: `{"any":[{"a":1,"a":2}]}`, field: "a", message: `duplicate key "a"`},
		{body: "{\"title\":\"caf\xe9\"}", field: "title", message: "invalid UTF-8 at byte 13"},
		{body: "{\"inner\":{\"name\":\"\xff\"}}", field: "inner.name", message: "invalid UTF-8 at byte 18"},
		{body: "{\"ti\xfftle\":1}", message: "invalid UTF-8 at byte 4"},
	}
	for _, tt := range tests {
		var v testRequest
		err := Unmarshal([]byte(tt.body), &v, "")
		if tt.ok {
			if err != nil {
				t.Errorf("Unmarshal(%s) = %v, want nil", tt.body, err)
			}
			continue
		}
		e, isAPI := err.(*Error)
		if !isAPI || e.Status != 400 || e.Field != tt.field || !strings.Contains(e.Msg, tt.message) {
			t.Errorf("Unmarshal(%s) = %#v, want a 400 on field %q saying %q", tt.body, err, tt.field, tt.message)
		}
	}
}

func TestUnmarshalRoot(t *testing.T) {
	var v testInner
	err := Unmarshal([]byte(`"fast"`), &v, "settings")
	if e, ok := err.(*Error); !ok || e.Field != "settings" {
		t.Errorf("Unmarshal of a string into an object with root settings = %#v, want field settings", err)
	}
}
