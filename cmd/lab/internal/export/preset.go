package export

import (
	"bytes"
	"fmt"
	"strconv"

	"interplab/engine"
)

// PresetFile writes the named settings of s as a preset file called name
// (see package presets), in table order: the network measured in a
// recorded trace, kept as a preset.
func PresetFile(name string, s engine.Settings, names []string) []byte {
	var b bytes.Buffer
	q := func(v string) string { return jsonLit(v) }
	fmt.Fprintf(&b, "{\n  \"name\": %s,\n  \"title\": %s,\n  \"doc\": %s,\n  \"order\": 100,\n  \"settings\": {",
		q(name), q("Trace "+name), q("The network measured in the recorded trace "+name+" (lab trace show)."))
	for i, n := range names {
		p, _ := engine.Lookup(n)
		v := p.Get(&s)
		val := strconv.FormatFloat(v, 'g', -1, 64)
		switch p.Kind {
		case engine.Enum:
			val = q(p.Format(v))
		case engine.Bool:
			val = strconv.FormatBool(v != 0)
		}
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "\n    %s: %s%s", q(n), val, sep)
	}
	b.WriteString("\n  }\n}\n")
	return b.Bytes()
}
