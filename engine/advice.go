package engine

import "strconv"

// Advice returns, for the library techniques among s's techniques, each
// setting that makes the technique run differently from the game it stands
// for: a library knob that in the game is the same setting as one of the
// lab's network (Mirror's sendRate is the server's send rate). The lab keeps
// them apart so that recorded library cases replay with their own values;
// the page shows the advice so that a designer who moves one moves both.
func Advice(s *Settings) []string {
	var out []string
	on := func(t string) bool {
		for _, x := range s.Techniques {
			if x == t {
				return true
			}
		}
		return false
	}
	hz := func(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) + " Hz" }
	if on(TechMirror) && float64(s.MirrorSettings.SendRate) != s.SendRate {
		out = append(out, "mirror.sendRate is "+hz(float64(s.MirrorSettings.SendRate))+" but the server sends at "+
			hz(s.SendRate)+" (sendRate): in a Mirror game both are NetworkManager.sendRate; set them equal")
	}
	if on(TechNGO) && float64(s.NGOSettings.TickRate) != s.SendRate {
		out = append(out, "ngo.tickRate is "+hz(float64(s.NGOSettings.TickRate))+" but the server sends at "+
			hz(s.SendRate)+" (sendRate): NGO sends a NetworkTransform state every tick; set them equal")
	}
	if on(TechGeckos) && s.GeckosSettings.ServerFPS > 0 && s.GeckosSettings.ServerFPS != s.SendRate {
		out = append(out, "geckos.serverFPS is "+hz(s.GeckosSettings.ServerFPS)+" but the server sends at "+
			hz(s.SendRate)+" (sendRate): the library sizes its default buffer from serverFPS; set them equal")
	}
	if on(TechSource) && s.SourceSettings.ClUpdaterate != s.SendRate {
		out = append(out, "source.cl_updaterate is "+hz(s.SourceSettings.ClUpdaterate)+" but the server sends at "+
			hz(s.SendRate)+" (sendRate): Source sends what cl_updaterate asks (up to the tick rate); set them equal")
	}
	return out
}
