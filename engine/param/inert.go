package param

// Inert is a rule under which a row has no effect: while the row named
// When holds a value in [From, To] (the table's float64: 1 for a Bool that
// is on, an Enum's index), the code of the settings' owner provably does
// not read the row, so no value of it changes what is shown. Why says so
// in words, for the designer ("dynamic adjustment sets it on every
// snapshot"). A rule with When "" holds always: the row is kept for the
// library's vocabulary but the version modelled ignores it.
//
// The rules are declared beside the rows (Param.Inert); the side panel,
// the A/B notes and the sweep form read them, and the studies start on
// rows that act.
type Inert struct {
	When     string  // vocabulary name of the row that decides; "" for always
	From, To float64 // the values of When that make the row inert, inclusive
	Why      string  // the reason, in words: what the code does instead
}

// InertIn returns why p has no effect in s, the Why of its first rule that
// holds there, or "" when p acts. rows is the table p and the rules' When
// rows belong to; a rule naming a row not in it never holds.
func (p *Param[P]) InertIn(rows []Param[P], s P) string {
	for _, r := range p.Inert {
		if r.When == "" {
			return r.Why
		}
		w, ok := Find(rows, r.When)
		if !ok {
			continue
		}
		if v := w.Read(s); v >= r.From && v <= r.To {
			return r.Why
		}
	}
	return ""
}
