package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"interplab/engine"
)

// The canonical JSON export (format "json", schema 1) is
//
//	{
//	  "schema": 1,
//	  "preset": "wifi",
//	  "settings": {
//	    "calcAhead": 0.2,
//	    ...
//	    "techniques": ["epic", "epicfix", "snap", "buffer", "hermite"]
//	  }
//	}
//
// schema is 1 for this layout and changes only when a reader of the old one
// would misread the new; preset is the starting preset ("" for the table's
// defaults), kept so a reader can show what was tuned from what; settings has
// every vocabulary key of engine.Params, in table order: numbers for Float and
// Int parameters in the stored unit (seconds, Hz, fractions), true or false
// for Bool, the choice's name for Enum, an array of names for Set. It decodes
// into engine.Settings as is.

// writeJSON writes the canonical JSON (see the schema above).
func writeJSON(b *bytes.Buffer, o Origin, s engine.Settings) {
	fmt.Fprintf(b, "{\n  \"schema\": 1,\n  \"preset\": %s,\n  \"settings\": {\n", jsonLit(o.Preset))
	params := engine.Params()
	for i := range params {
		p := &params[i]
		v := p.Get(&s)
		var val string
		switch p.Kind {
		case engine.Bool:
			val = strconv.FormatBool(v != 0)
		case engine.Enum:
			val = jsonLit(p.Format(v))
		case engine.Set:
			names := strings.Split(p.Format(v), ",")
			for i, n := range names {
				names[i] = jsonLit(n)
			}
			val = "[" + strings.Join(names, ", ") + "]"
		default: // Float, Int
			val = jsonLit(v)
		}
		sep := ","
		if i == len(params)-1 {
			sep = ""
		}
		fmt.Fprintf(b, "    %s: %s%s\n", jsonLit(p.Name), val, sep)
	}
	b.WriteString("  }\n}\n")
}

// jsonLit is a string or a finite number as a JSON literal.
func jsonLit(v any) string {
	data, _ := json.Marshal(v) // a string or a finite number: it cannot fail
	return string(data)
}
