// Package presets holds the lab's named starting points: a network profile,
// a technique tuning or a scenario from the sources, each a JSON file in this
// directory, embedded in the binary and validated when loaded.
//
// A preset file looks like this:
//
//	{
//	  "name": "wifi",
//	  "title": "Home Wi-Fi",
//	  "doc": "One line: what it models and where the numbers come from.",
//	  "order": 50,
//	  "settings": {"latency": 0.015, "jitterDist": "pareto"}
//	}
//
// name must be the file's name without ".json"; order sorts the presets for
// display (smaller first). settings holds vocabulary keys (see engine.Params)
// and only needs those that differ from engine.Defaults: the rest keep their
// defaults. Unknown keys anywhere in the file are errors, and the settings must
// pass engine.Settings.Validate.
package presets

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"interplab/engine"
)

// Preset is one named set of lab settings.
type Preset struct {
	Name     string          // short name, used in URLs: ?preset=wifi
	Title    string          // human title for the picker
	Doc      string          // one line: what it models and its source
	Settings engine.Settings // complete, valid settings
}

//go:embed *.json
var files embed.FS

var all = sync.OnceValues(func() ([]Preset, error) { return Load(files) })

// All returns the embedded presets in display order. The error names the
// first bad file and field; the lab refuses to start with one.
func All() ([]Preset, error) {
	list, err := all()
	return slices.Clone(list), err
}

// Get returns the embedded preset with the given name; the error for an
// unknown name lists the valid ones.
func Get(name string) (Preset, error) {
	list, err := all()
	if err != nil {
		return Preset{}, err
	}
	names := make([]string, len(list))
	for i, p := range list {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("unknown preset %q: want one of %s", name, strings.Join(names, ", "))
}

// file is the JSON form of a preset file.
type file struct {
	Name     string          `json:"name"`
	Title    string          `json:"title"`
	Doc      string          `json:"doc"`
	Order    int             `json:"order"`
	Settings json.RawMessage `json:"settings"`
}

// Load reads, checks and sorts every *.json file at the root of fsys.
func Load(fsys fs.FS) ([]Preset, error) {
	names, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return nil, fmt.Errorf("list presets: %w", err)
	}
	if len(names) == 0 {
		return nil, errors.New("no preset files")
	}
	type ordered struct {
		Preset
		order int
	}
	var list []ordered
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read preset: %w", err)
		}
		p, order, err := parse(data)
		if err != nil {
			return nil, fmt.Errorf("preset %s: %w", name, err)
		}
		if want := strings.TrimSuffix(path.Base(name), ".json"); p.Name != want {
			return nil, fmt.Errorf("preset %s: name %q does not match the file name %q", name, p.Name, want)
		}
		list = append(list, ordered{p, order})
	}
	slices.SortStableFunc(list, func(a, b ordered) int {
		if a.order != b.order {
			return a.order - b.order
		}
		return strings.Compare(a.Name, b.Name)
	})
	out := make([]Preset, len(list))
	for i, p := range list {
		out[i] = p.Preset
	}
	return out, nil
}

// parse decodes one preset file: its settings start from engine.Defaults.
func parse(data []byte) (Preset, int, error) {
	var f file
	if err := decodeStrict(data, &f); err != nil {
		return Preset{}, 0, err
	}
	switch {
	case f.Name == "":
		return Preset{}, 0, errors.New("missing name")
	case f.Title == "":
		return Preset{}, 0, errors.New("missing title")
	case f.Doc == "":
		return Preset{}, 0, errors.New("missing doc")
	case f.Settings == nil:
		return Preset{}, 0, errors.New("missing settings")
	}
	s := engine.Defaults()
	if err := decodeStrict(f.Settings, &s); err != nil {
		return Preset{}, 0, fmt.Errorf("settings: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Preset{}, 0, fmt.Errorf("settings: %w", err)
	}
	return Preset{Name: f.Name, Title: f.Title, Doc: f.Doc, Settings: s}, f.Order, nil
}

// decodeStrict decodes one JSON value into v, rejecting unknown keys and
// trailing data, with errors that name the offending key.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field != "":
			return fmt.Errorf("%s: cannot use a JSON %s as %s", typeErr.Field, typeErr.Value, typeErr.Type)
		case errors.As(err, &syntaxErr):
			return fmt.Errorf("invalid JSON at byte %d: %w", syntaxErr.Offset, err)
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return fmt.Errorf("invalid JSON: %w", err)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			// encoding/json has no error type for this case.
			return fmt.Errorf("unknown key %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("trailing data after the JSON object")
	}
	return nil
}
