package presets

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"interplab/engine"
)

// The file form of a preset is shared by the embedded presets, the custom
// presets designers save from the lab page (kept by the server's store),
// GET /api/presets/{name}.json and the import (POST /api/presets): a file
// exported from one lab is a valid file of this directory, and the other
// way round.

// namePattern is what a preset name may be: it is a URL segment and a file
// name.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,39}$`)

// CheckName reports whether name can name a preset: 1 to 40 lower-case
// letters, digits and hyphens, starting with a letter or a digit.
func CheckName(name string) error {
	if !namePattern.MatchString(name) {
		return &engine.FieldError{Field: "name", Value: name, Allowed: "1 to 40 lower-case letters, digits and hyphens (my-preset-2)"}
	}
	return nil
}

// Builtin reports whether name is one of the embedded presets.
func Builtin(name string) bool {
	list, _ := all()
	return slices.ContainsFunc(list, func(p Preset) bool { return p.Name == name })
}

// Parse reads one preset file, as Load reads each file of this directory:
// every key known, settings over engine.Defaults and valid, a valid name.
func Parse(data []byte) (Preset, error) {
	p, _, err := parse(data)
	if err != nil {
		return Preset{}, err
	}
	if err := CheckName(p.Name); err != nil {
		return Preset{}, err
	}
	return p, nil
}

// outFile is the file form Encode writes: the settings hold only what
// differs from engine.Defaults, as the files of this directory do.
type outFile struct {
	Name     string                     `json:"name"`
	Title    string                     `json:"title"`
	Doc      string                     `json:"doc"`
	Order    int                        `json:"order,omitempty"`
	Settings map[string]json.RawMessage `json:"settings"`
}

// Encode writes p as a preset file (order 0 is left out), indented as the
// files of this directory are; Parse reads it back to the same preset.
func Encode(p Preset, order int) ([]byte, error) {
	diff, err := settingsDiff(p.Settings)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(outFile{Name: p.Name, Title: p.Title, Doc: p.Doc, Order: order, Settings: diff}); err != nil {
		return nil, fmt.Errorf("encode preset %s: %w", p.Name, err)
	}
	return buf.Bytes(), nil
}

// settingsDiff returns the JSON keys of s whose values differ from
// engine.Defaults'.
func settingsDiff(s engine.Settings) (map[string]json.RawMessage, error) {
	var have, def map[string]json.RawMessage
	a, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(engine.Defaults())
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(a, &have); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &def); err != nil {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for k, v := range have {
		if !bytes.Equal(v, def[k]) {
			out[k] = v
		}
	}
	return out, nil
}
