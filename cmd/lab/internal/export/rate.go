package export

import "interplab/engine"

// rateWarning is the warning a technique's export carries when the lab ran
// its server at another send or tick rate than the game setting gives
// (engine.GameRateOf: Mirror's NetworkManager.sendRate, NGO's Tick Rate,
// Source's cl_updaterate, geckos.io's serverFPS): what the designer tuned
// is then not what the game will show. It is "//" comment lines ending in a
// newline, or "" when the rates agree or tech has no rate knob.
func rateWarning(tech string, s *engine.Settings) string {
	g, ok := engine.GameRateOf(tech, s)
	if !ok || g.Matches(s) {
		return ""
	}
	return "//\n// WARNING: " + g.Mismatch(s) + ":\n" +
		"//   what the lab showed is not what this game will show. In the lab set " + g.Knob + "\n" +
		"//   (the server's sendRate and tickRate follow it) and re-check before shipping.\n"
}
