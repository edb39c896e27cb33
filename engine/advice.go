package engine

import (
	"slices"
)

// Advice returns, for the library techniques among s's techniques, each
// setting that makes the technique run differently from the game it stands
// for: a library knob that in the game is the same setting as one of the
// lab's network (Mirror's sendRate is the server's send rate). The lab keeps
// them apart so that recorded library cases replay with their own values;
// the page shows the advice so that a designer who moves one moves both.
// Each technique's Def words its own (technique.Def.Advice); they come in
// the technique list's order.
func Advice(s *Settings) []string {
	var out []string
	env := envOf(s)
	for i := range techDefs {
		d := &techDefs[i]
		if d.advice == nil || !slices.Contains(s.Techniques, d.name) {
			continue
		}
		if a := d.advice(s, &env); a != "" {
			out = append(out, a)
		}
	}
	return out
}
