package wire

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Unmarshal decodes data, exactly one JSON value, into v, strictly: as
// encoding/json/v2 does by default (github.com/go-json-experiment/json),
// keys match names exactly (case-sensitive), and a key given twice in an
// object or a string that is not valid UTF-8 is refused; so are unknown
// keys (RejectUnknownMembers) and trailing data. Its errors are 400
// *Errors naming the key at fault and, for malformed text, the byte
// offset; root names the value itself ("settings" for a nested object
// decoded on its own).
func Unmarshal(data []byte, v any, root string) error {
	if err := jsonv2.Unmarshal(data, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return decodeError(err, root)
	}
	return nil
}

// Valid checks that data is one JSON value as Unmarshal reads them (no
// key twice, valid UTF-8, nothing after it), with Unmarshal's errors, for
// a body another package decodes.
func Valid(data []byte, root string) error {
	var v jsontext.Value
	return Unmarshal(data, &v, root)
}

// decodeError turns a decoding error into a 400 naming the key.
func decodeError(err error, root string) error {
	if se, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		key := keyOf(se.JSONPointer, root)
		at := fmt.Sprintf("at byte %d", se.ByteOffset)
		if key != "" {
			at += " (" + strconv.Quote(key) + ")"
		}
		switch {
		case errors.Is(se.Err, jsontext.ErrDuplicateName):
			name := Clip(se.JSONPointer.LastToken(), 40)
			return BadRequest(name, fmt.Sprintf("duplicate key %q at byte %d: a key may appear once in an object", name, se.ByteOffset))
		case strings.Contains(se.Err.Error(), "invalid UTF-8"):
			return BadRequest(key, "invalid UTF-8 "+at+": JSON text must be UTF-8")
		case errors.Is(se.Err, io.ErrUnexpectedEOF) && se.ByteOffset == 0:
			return BadRequest(root, "empty body: want a JSON object")
		case errors.Is(se.Err, io.ErrUnexpectedEOF):
			return BadRequest(key, "invalid JSON: unexpected end "+at)
		case strings.Contains(se.Err.Error(), "after top-level value"):
			return BadRequest(root, fmt.Sprintf("trailing data after the JSON value, at byte %d", se.ByteOffset))
		}
		return BadRequest(key, "invalid JSON "+at+": "+se.Err.Error())
	}
	if se, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		if errors.Is(se.Err, jsonv2.ErrUnknownName) {
			name := Clip(se.JSONPointer.LastToken(), 40)
			msg := "unknown key " + strconv.Quote(name)
			if want := foldedField(se.GoType, name); want != "" {
				msg += ": keys are case-sensitive, want " + strconv.Quote(want)
			}
			return BadRequest(name, msg)
		}
		if se.GoType != nil {
			key := keyOf(se.JSONPointer, root)
			what := key
			if what == "" {
				what = "the JSON value"
			}
			got := "a JSON " + kindWord(se.JSONKind)
			if len(se.JSONValue) > 0 && se.JSONKind != '"' {
				got += " " + Clip(string(se.JSONValue), 40)
			}
			return BadRequest(key, fmt.Sprintf("%s: cannot use %s as %s", what, got, kindName(se.GoType)))
		}
	}
	// A type's own decoder (UnmarshalJSON) failed: its message says why.
	return BadRequest(root, "invalid JSON: "+err.Error())
}

// keyOf names the value at p as the API's errors do: its object keys
// joined by dots ("inner.value"; "list.name" for a list's element), or
// root at the top.
func keyOf(p jsontext.Pointer, root string) string {
	var keys []string
	for tok := range p.Tokens() {
		if _, err := strconv.Atoi(tok); err == nil {
			continue // a list's index
		}
		keys = append(keys, tok)
	}
	if len(keys) == 0 {
		return root
	}
	return Clip(strings.Join(keys, "."), 40)
}

// kindWord names a JSON kind in words.
func kindWord(k jsontext.Kind) string {
	switch k {
	case '"':
		return "string"
	case '0':
		return "number"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	case '{':
		return "object"
	case '[':
		return "array"
	}
	return "value"
}

// kindName names a Go type in JSON terms.
func kindName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		return "a finite number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

// foldedField returns the JSON name of a field of struct type t that
// matches key only when case is ignored, or "".
func foldedField(t reflect.Type, key string) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case name == "-":
			continue
		case f.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			if n := foldedField(ft, key); n != "" {
				return n
			}
			continue
		case !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return name
		}
	}
	return ""
}
