package source

import (
	"slices"

	"interplab/engine/param"
	"interplab/engine/technique"
)

// Settings are the Source engine cvars the source technique reads,
// by their cvar names (JSON keys prefixed "source."), in the cvars' own
// units: seconds, Hz (updates per second), ratios, milliseconds. Defaults
// are Source SDK 2013 multiplayer's as the cases and the Valve developer
// wiki give them; sv_maxupdaterate's 66 is the wiki's (the cases use 128,
// which never binds).
type Settings struct {
	Tickrate            string  `json:"source.tickrate"`                                  // server tick rate: "66" (0.015 s ticks), "64" or "128"
	ClUpdaterate        float64 `json:"source.cl_updaterate"`                             // snapshots per second asked of the server, Hz
	ClInterp            float64 `json:"source.cl_interp"`                                 // interpolation time, s
	ClInterpRatio       float64 `json:"source.cl_interp_ratio"`                           // interpolation time in update intervals
	ClExtrapolate       bool    `json:"source.cl_extrapolate"`                            // extrapolate past the newest sample
	ClExtrapolateAmount float64 `json:"source.cl_extrapolate_amount"`                     // longest extrapolation, s
	ClInterpolate       bool    `json:"source.cl_interpolate"`                            // interpolate entities at all
	SvMinupdaterate     float64 `json:"source.sv_minupdaterate"`                          // server's floor on cl_updaterate, Hz
	SvMaxupdaterate     float64 `json:"source.sv_maxupdaterate"`                          // server's cap on cl_updaterate, Hz
	SvClientMinRatio    float64 `json:"source.sv_client_min_interp_ratio"`                // server's floor on cl_interp_ratio
	SvClientMaxRatio    float64 `json:"source.sv_client_max_interp_ratio"`                // server's cap on cl_interp_ratio
	ClClockCorrection   bool    `json:"source.cl_clock_correction"`                       // slew the client clock toward the server's ticks
	ClClockdriftMaxMs   float64 `json:"source.cl_clockdrift_max_ms"`                      // clock error that resets the clock, ms
	ClClockAdjMinOffset float64 `json:"source.cl_clock_correction_adjustment_min_offset"` // offset below which the clock is not slewed, ms
	ClClockAdjMaxOffset float64 `json:"source.cl_clock_correction_adjustment_max_offset"` // offset at which the slew is fastest, ms
	ClClockAdjMaxAmount float64 `json:"source.cl_clock_correction_adjustment_max_amount"` // fastest slew, ms per s
}

// Tickrates are the choices of source.tickrate.
var Tickrates = []string{"66", "64", "128"}

// sourceIntervals are their tick intervals, s: 66 stands for the engine's
// default 0.015 s tick (66.67 Hz), the others are 1/rate.
var sourceIntervals = [...]float32{0.015, 1.0 / 64, 1.0 / 128}

// sourceConfig is SourceSettings in the engine's types, read once a frame.
type sourceConfig struct {
	clock        sourceClockConfig
	interval     float32 // tick interval, s
	amount       float32 // interp amount, s
	extrapolate  bool
	extrapAmount float32
	interpolate  bool
}

// SourceTickInterval returns the tick interval of s.Tickrate in seconds
// (0.015 for an unknown rate).
func (s *Settings) tickInterval() float32 {
	if i := slices.Index(Tickrates, s.Tickrate); i >= 0 {
		return sourceIntervals[i]
	}
	return sourceIntervals[0]
}

// clientInterpAmount is GetClientInterpAmount: the larger of cl_interp and
// the (clamped) ratio over the (clamped) update rate, in float32.
func (s *Settings) clientInterpAmount() float32 {
	rate := min(max(float32(s.ClUpdaterate), float32(s.SvMinupdaterate)), float32(s.SvMaxupdaterate))
	minRatio, maxRatio := float32(s.SvClientMinRatio), float32(s.SvClientMaxRatio)
	ratio := min(max(float32(s.ClInterpRatio), minRatio), maxRatio)
	return max(max(float32(s.ClInterp), minRatio/rate), ratio/rate)
}

// interpAmount is the interpolation amount: the client interp amount
// rounded to whole ticks, plus one tick.
func interpAmount(client, interval float32) float32 {
	return interval * float32(int(0.5+float64(client/interval))+1)
}

func (s *Settings) config() sourceConfig {
	iv := s.tickInterval()
	return sourceConfig{
		clock: sourceClockConfig{
			interval:   float64(iv),
			correction: s.ClClockCorrection,
			maxTicks:   int64(0.5 + float64(float32(s.ClClockdriftMaxMs/1000)/iv)),
			minOffset:  s.ClClockAdjMinOffset,
			maxOffset:  s.ClClockAdjMaxOffset,
			maxAmount:  s.ClClockAdjMaxAmount,
		},
		interval:     iv,
		amount:       interpAmount(s.clientInterpAmount(), iv),
		extrapolate:  s.ClExtrapolate,
		extrapAmount: float32(s.ClExtrapolateAmount),
		interpolate:  s.ClInterpolate,
	}
}

// delayOf is the display delay behind the newest snapshot: the interp
// amount.
func delayOf(ss *Settings, _ *technique.Env) float64 {
	return float64(interpAmount(ss.clientInterpAmount(), ss.tickInterval()))
}

// check checks the cvars' ranges against each other.
func check(ss *Settings) error {
	if ss.SvMaxupdaterate < ss.SvMinupdaterate {
		return &param.FieldError{Field: "source.sv_maxupdaterate", Value: param.FormatNumber(ss.SvMaxupdaterate),
			Allowed: "[source.sv_minupdaterate = " + param.FormatNumber(ss.SvMinupdaterate) + ", 128] Hz"}
	}
	if ss.SvClientMaxRatio < ss.SvClientMinRatio {
		return &param.FieldError{Field: "source.sv_client_max_interp_ratio", Value: param.FormatNumber(ss.SvClientMaxRatio),
			Allowed: "[source.sv_client_min_interp_ratio = " + param.FormatNumber(ss.SvClientMinRatio) + ", 5]"}
	}
	if ss.ClClockAdjMaxOffset <= ss.ClClockAdjMinOffset {
		return &param.FieldError{Field: "source.cl_clock_correction_adjustment_max_offset", Value: param.FormatNumber(ss.ClClockAdjMaxOffset),
			Allowed: "(source.cl_clock_correction_adjustment_min_offset = " + param.FormatNumber(ss.ClClockAdjMinOffset) + ", 1000] ms"}
	}
	return nil
}

// Def is the source technique's row of the technique list.
var Def = technique.Def[*Settings]{Name: Name, Group: "source", Params: Params,
	Base: technique.LocalTime, Reach: technique.Transit,
	Tune:   []string{"source.cl_interp", "source.cl_interp_ratio", "source.cl_extrapolate", "source.cl_extrapolate_amount"},
	Advice: advice, Check: check, Delay: delayOf,
	Rate: "source.cl_updaterate", Rates: rates,
	Batch: newSourceBatch, One: newSource,
	Library: &technique.Library{Title: "Source engine", Note: "cl_interp, cl_updaterate, Hermite interpolation", Group: "Source engine",
		Version: "Source SDK 2013 multiplayer", Commit: "aea94b32cbefeba5d16ef6fc70eff9508cf11673"},
}

// rates are a Source server's: it ticks at -tickrate (66: the 0.015 s
// tick) and sends a client the cl_updaterate it asks, at most once a tick.
func rates(s *Settings) (send, tick float64) {
	tick = sourceRates[0]
	if i := slices.Index(Tickrates, s.Tickrate); i >= 0 {
		tick = sourceRates[i]
	}
	return min(s.ClUpdaterate, tick), tick
}

// sourceRates are the tick rates of Tickrates, Hz: 66 stands for the
// default 0.015 s tick.
var sourceRates = [...]float64{1 / 0.015, 64, 128}

// advice says when cl_updaterate is not the server's send rate:
// Source sends what cl_updaterate asks, up to the tick rate.
func advice(s *Settings, env *technique.Env) string {
	if s.ClUpdaterate == env.SendRate {
		return ""
	}
	return technique.RateAdvice("source.cl_updaterate", s.ClUpdaterate, env, "Source sends what cl_updaterate asks (up to the tick rate)")
}

func sourceBool(name string, def bool, doc string, f func(*Settings) *bool) param.Param[*Settings] {
	return param.Param[*Settings]{Name: name, Group: "source", Kind: param.Bool, Max: 1, Step: 1, Default: param.FromBool(def), Doc: doc,
		Read:  func(s *Settings) float64 { return param.FromBool(*f(s)) },
		Write: func(s *Settings, v float64) { *f(s) = v != 0 }}
}

func sourceFloat(p param.Param[*Settings], f func(*Settings) *float64) param.Param[*Settings] {
	p.Group = "source"
	p.Read = func(s *Settings) float64 { return *f(s) }
	p.Write = func(s *Settings, v float64) { *f(s) = v }
	return p
}

// Params are the source technique's cvars. Their defaults (param.Defaults)
// are the SDK's.
var Params = []param.Param[*Settings]{
	param.EnumOf(param.Param[*Settings]{Name: "source.tickrate", Group: "source", Default: 0, Choices: Tickrates,
		Doc: "Server tick rate (-tickrate): 66 is the 0.015 s default tick; the interp amount is whole ticks."},
		func(s *Settings) *string { return &s.Tickrate }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_updaterate", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 20, Display: "Hz", Scale: 1,
		Doc: "Updates per second the client asks for (default 20); cl_interp_ratio counts in their intervals."},
		func(s *Settings) *float64 { return &s.ClUpdaterate }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_interp", Unit: "s", Min: 0, Max: 0.5, Step: 0.001, Default: 0.1, Display: "s", Scale: 1,
		Doc: "Interpolation time (default 100 ms); the larger of it and cl_interp_ratio / cl_updaterate is used."},
		func(s *Settings) *float64 { return &s.ClInterp }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_interp_ratio", Min: 0, Max: 5, Step: 0.1, Default: 2, Display: "updates", Scale: 1,
		Doc: "Interpolation time in update intervals (default 2), clamped by the server's min/max ratio."},
		func(s *Settings) *float64 { return &s.ClInterpRatio }),
	sourceBool("source.cl_extrapolate", true,
		"Extrapolate once past the newest update, then hold (default on; needs sv_cheats to change).",
		func(s *Settings) *bool { return &s.ClExtrapolate }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_extrapolate_amount", Unit: "s", Min: 0, Max: 1, Step: 0.01, Default: 0.25, Display: "s", Scale: 1,
		Inert: []param.Inert{{When: "source.cl_extrapolate", From: 0, To: 0, Why: "it bounds the extrapolation cl_extrapolate turns off"}},
		Doc:   "Longest extrapolation past the newest update (default 250 ms; needs sv_cheats to change)."},
		func(s *Settings) *float64 { return &s.ClExtrapolateAmount }),
	sourceBool("source.cl_interpolate", true,
		"Interpolate entities at all (default on); off shows each update as it comes.",
		func(s *Settings) *bool { return &s.ClInterpolate }),
	sourceFloat(param.Param[*Settings]{Name: "source.sv_minupdaterate", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 10, Display: "Hz", Scale: 1,
		Doc: "Server floor on cl_updaterate (default 10)."},
		func(s *Settings) *float64 { return &s.SvMinupdaterate }),
	sourceFloat(param.Param[*Settings]{Name: "source.sv_maxupdaterate", Unit: "Hz", Min: 1, Max: 128, Step: 1, Default: 66, Display: "Hz", Scale: 1,
		Doc: "Server cap on cl_updaterate (default 66)."},
		func(s *Settings) *float64 { return &s.SvMaxupdaterate }),
	sourceFloat(param.Param[*Settings]{Name: "source.sv_client_min_interp_ratio", Min: 0, Max: 5, Step: 0.1, Default: 1, Display: "updates", Scale: 1,
		Doc: "Server floor on cl_interp_ratio (default 1)."},
		func(s *Settings) *float64 { return &s.SvClientMinRatio }),
	sourceFloat(param.Param[*Settings]{Name: "source.sv_client_max_interp_ratio", Min: 0, Max: 5, Step: 0.1, Default: 5, Display: "updates", Scale: 1,
		Doc: "Server cap on cl_interp_ratio (default 5)."},
		func(s *Settings) *float64 { return &s.SvClientMaxRatio }),
	sourceBool("source.cl_clock_correction", true,
		"Slew the client's clock toward the server's ticks (default on).",
		func(s *Settings) *bool { return &s.ClClockCorrection }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_clockdrift_max_ms", Unit: "ms", Min: 0, Max: 1000, Step: 1, Default: 150, Display: "ms", Scale: 1,
		Inert: []param.Inert{{When: "source.cl_clock_correction", From: 0, To: 0, Why: "without cl_clock_correction the clock jumps to every server tick"}},
		Doc:   "Clock error beyond which the client clock jumps to the server tick (default 150 ms)."},
		func(s *Settings) *float64 { return &s.ClClockdriftMaxMs }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_clock_correction_adjustment_min_offset", Unit: "ms", Min: 0, Max: 1000, Step: 1, Default: 10, Display: "ms", Scale: 1,
		Inert: []param.Inert{{When: "source.cl_clock_correction", From: 0, To: 0, Why: "without cl_clock_correction the clock jumps to every server tick"}},
		Doc:   "Clock error below which no correction is made (default 10 ms)."},
		func(s *Settings) *float64 { return &s.ClClockAdjMinOffset }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_clock_correction_adjustment_max_offset", Unit: "ms", Min: 0, Max: 1000, Step: 1, Default: 90, Display: "ms", Scale: 1,
		Inert: []param.Inert{{When: "source.cl_clock_correction", From: 0, To: 0, Why: "without cl_clock_correction the clock jumps to every server tick"}},
		Doc:   "Clock error at which the correction is fastest (default 90 ms)."},
		func(s *Settings) *float64 { return &s.ClClockAdjMaxOffset }),
	sourceFloat(param.Param[*Settings]{Name: "source.cl_clock_correction_adjustment_max_amount", Unit: "ms/s", Min: 0, Max: 1000, Step: 1, Default: 200, Display: "ms/s", Scale: 1,
		Inert: []param.Inert{{When: "source.cl_clock_correction", From: 0, To: 0, Why: "without cl_clock_correction the clock jumps to every server tick"}},
		Doc:   "Fastest clock correction, ms per second (default 200)."},
		func(s *Settings) *float64 { return &s.ClClockAdjMaxAmount }),
}
