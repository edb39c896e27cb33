package engine

// Settings compared and put in canonical form: what a saved revision
// changed, what a tuner recommends, and the one form in which equal
// settings are stored and sent.

// A Change is one parameter whose value differs between two settings: its
// vocabulary name and its text in the later settings, as SetText reads it.
type Change struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Diff lists the parameters whose text differs between a and b, in table
// order, each with its text in b. It is empty, not nil, when none does.
func Diff(a, b Settings) []Change {
	changes := []Change{}
	for i := range params {
		p := &params[i]
		if v := p.Text(&b); v != p.Text(&a) {
			changes = append(changes, Change{Name: p.Name, Value: v})
		}
	}
	return changes
}

// Canonical returns s with every parameter written back through the
// table, which orders the techniques and drops duplicates: valid settings
// that mean the same are then equal. A value the table refuses is left as
// it is, for Validate to report.
func Canonical(s Settings) Settings {
	for i := range params {
		p := &params[i]
		if err := p.Set(&s, p.Get(&s)); err != nil {
			continue // out of range: left for Validate
		}
	}
	return s
}
