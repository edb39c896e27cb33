package jsonapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
)

// ReadBody reads r's whole body. A body over the cap MaxBody put on it is
// a 413 *Error, any other failure a 400.
func ReadBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("request body over %d bytes", mbe.Limit)}
	}
	if err != nil {
		return nil, BadRequest("", "read request body: "+err.Error())
	}
	return data, nil
}

// Decode reads r's body as one JSON value into v, strictly (see
// Unmarshal).
func Decode(r *http.Request, v any) error {
	data, err := ReadBody(r)
	if err != nil {
		return err
	}
	return Unmarshal(data, v, "")
}

// Unmarshal decodes data, exactly one JSON value, into v. Unlike
// encoding/json it refuses unknown keys, keys that match a field only when
// case is ignored ({"Name": ...} for "name"), and trailing data. Its errors
// are 400 *Errors naming the key at fault; root names the value itself
// ("settings" for a nested object decoded on its own).
func Unmarshal(data []byte, v any, root string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err, root)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return BadRequest(root, "trailing data after the JSON value")
	}
	return checkKeys(data, reflect.TypeOf(v))
}

// decodeError turns an encoding/json error into a 400 naming the key.
func decodeError(err error, root string) error {
	if typeErr, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		field := typeErr.Field
		if field == "" {
			field = root
		}
		what := "the JSON value"
		if field != "" {
			what = field
		}
		return BadRequest(field, fmt.Sprintf("%s: cannot use a JSON %s as %s", what, Clip(typeErr.Value, 40), kindName(typeErr.Type)))
	}
	if syntaxErr, ok := errors.AsType[*json.SyntaxError](err); ok {
		return BadRequest(root, fmt.Sprintf("invalid JSON at byte %d: %v", syntaxErr.Offset, err))
	}
	switch {
	case errors.Is(err, io.EOF):
		return BadRequest(root, "empty body: want a JSON object")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return BadRequest(root, "invalid JSON: unexpected end")
	}
	// encoding/json has no error type for an unknown key.
	if quoted, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, uerr := strconv.Unquote(quoted)
		if uerr != nil {
			name = ""
		}
		name = Clip(name, 40)
		return BadRequest(name, "unknown key "+strconv.Quote(name))
	}
	return BadRequest(root, "invalid JSON: "+err.Error())
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

// checkKeys walks data, valid JSON that decoded into a value of type t,
// and refuses the first object key that names a field of its struct only
// when case is ignored: encoding/json takes such keys, the API does not.
func checkKeys(data []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return walkKeys(dec, t)
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// walkKeys reads one value from dec, checking the keys of the objects in
// it against t; a nil t checks nothing (an any, or a type that decodes
// itself).
func walkKeys(dec *json.Decoder, t reflect.Type) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t.Kind() == reflect.Interface || reflect.PointerTo(t).Implements(unmarshalerType)) {
		t = nil
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		var fields map[string]reflect.Type
		var elem reflect.Type
		switch {
		case t != nil && t.Kind() == reflect.Struct:
			fields = structFields(t, map[string]reflect.Type{})
		case t != nil && t.Kind() == reflect.Map:
			elem = t.Elem()
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			key, _ := tok.(string)
			next := elem
			if fields != nil {
				ft, ok := fields[key]
				if !ok {
					for name := range fields {
						if strings.EqualFold(name, key) {
							key = Clip(key, 40)
							return BadRequest(key, fmt.Sprintf("unknown key %q: keys are case-sensitive, want %q", key, name))
						}
					}
				}
				next = ft
			}
			if err := walkKeys(dec, next); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for dec.More() {
			if err := walkKeys(dec, elem); err != nil {
				return err
			}
		}
		_, err = dec.Token()
		return err
	}
	return nil
}

// structFields adds the JSON keys of t's fields to fields, with their
// types, as encoding/json names them: the tag's name or the field's,
// embedded structs' fields promoted.
func structFields(t reflect.Type, fields map[string]reflect.Type) map[string]reflect.Type {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			structFields(ft, fields)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}
