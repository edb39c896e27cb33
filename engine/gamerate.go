package engine

import "interplab/engine/param"

// GameRate is one game setting seen from the lab: the knob of a library
// technique that is, in the game, the rate its server sends at (Mirror's
// NetworkManager.sendRate), and the lab's sendRate and tickRate, Hz, a game
// with that setting has (technique.Def's Rate and Rates).
type GameRate struct {
	Knob string  // the library's rate knob: mirror.sendRate, ngo.tickRate, ...
	Send float64 // the server's send rate it gives, Hz
	// Tick is the server's tick rate it gives, Hz; 0 when the game's
	// setting says nothing of it (geckos.io's serverFPS is the snapshot
	// rate only), and then any tick rate at least Send is the game's.
	Tick float64
}

// GameRateOf returns the game rate of technique name in s; ok is false for
// a technique without a rate knob (the lab's own, unreal-cmc), whose
// settings give none (geckos.serverFPS 0), or for a name that is none.
func GameRateOf(name string, s *Settings) (GameRate, bool) {
	i := techniqueIndex(name)
	if i < 0 || techDefs[i].rates == nil {
		return GameRate{}, false
	}
	d := &techDefs[i]
	send, tick := d.rates(s)
	if !(send > 0 && tick >= 0) {
		return GameRate{}, false
	}
	return GameRate{Knob: d.rate, Send: send, Tick: tick}, true
}

// GameRate returns the game rate of the library s is on (Library), the
// rates the lab's sendRate and tickRate follow; ok is false when it has
// none.
func (s *Settings) GameRate() (GameRate, bool) { return GameRateOf(s.Library(), s) }

// Matches tells whether s's sendRate and tickRate are the game's.
func (g GameRate) Matches(s *Settings) bool {
	return s.SendRate == g.Send && s.TickRate == g.tick(s)
}

// tick is the tick rate the game has with s: Tick, or s's own when the
// game's setting does not fix it and it is at least Send.
func (g GameRate) tick(s *Settings) float64 {
	if g.Tick > 0 {
		return g.Tick
	}
	return max(s.TickRate, g.Send)
}

// Mismatch says how s's rates differ from the game's, "" when they do not:
// "the lab's server sent at 30 Hz and ticked at 30 Hz, where mirror.sendRate
// = 60 Hz gives a game that sends at 60 Hz and ticks at 60 Hz".
func (g GameRate) Mismatch(s *Settings) string {
	if g.Matches(s) {
		return ""
	}
	game := "sends at " + hz(g.Send)
	if g.Tick > 0 {
		game += " and ticks at " + hz(g.Tick)
	}
	return "the lab's server sent at " + hz(s.SendRate) + " and ticked at " + hz(s.TickRate) + ", where " +
		g.Knob + " = " + knobText(g.Knob, s) + " gives a game that " + game
}

// FollowGameRate sets s's sendRate and tickRate to those of the library's
// game rate (GameRate; the tick rate rises to the send rate when the game
// does not fix it), one game setting driving the lab's two, and
// returns the names it changed (tickRate before sendRate when the rates
// rise, so each step is valid); none when s is on no library with a rate.
func (s *Settings) FollowGameRate() []string {
	g, ok := s.GameRate()
	if !ok {
		return nil
	}
	tick := g.tick(s)
	var changed []string
	if s.TickRate != tick {
		changed = append(changed, "tickRate")
	}
	if s.SendRate != g.Send {
		changed = append(changed, "sendRate")
	}
	if g.Send < s.SendRate && len(changed) == 2 {
		changed[0], changed[1] = "sendRate", "tickRate"
	}
	s.TickRate, s.SendRate = tick, g.Send
	return changed
}

// hz writes a rate for a message: "60 Hz", "66.67 Hz".
func hz(v float64) string { return param.Readable(v, 4) + " Hz" }

// knobText is the named knob's value in s as a person reads it.
func knobText(name string, s *Settings) string {
	p, ok := Lookup(name)
	if !ok {
		return ""
	}
	return p.Show(p.Get(s))
}
