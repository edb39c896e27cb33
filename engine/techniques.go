package engine

import (
	"slices"
	"strings"

	"interplab/engine/param"
	"interplab/engine/technique"
	"interplab/engine/technique/buffer"
	"interplab/engine/technique/epic"
	"interplab/engine/technique/geckos"
	"interplab/engine/technique/ioquake3"
	"interplab/engine/technique/lightyear"
	"interplab/engine/technique/mirror"
	"interplab/engine/technique/ngo"
	"interplab/engine/technique/snap"
	"interplab/engine/technique/source"
	"interplab/engine/technique/unreal"
)

// Technique names, in the order the lab shows them.
const (
	TechEPIC    = epic.Name          // the seed's interpolator, exactly as written
	TechEPICFix = epic.FixName       // EPIC without the jump when a packet is older than the display
	TechSnap    = snap.Name          // apply each snapshot on arrival
	TechBuffer  = buffer.Name        // snapshot interpolation: delayed ring buffer, lerp and slerp
	TechHermite = buffer.HermiteName // the buffer with cubic Hermite positions
	TechMirror  = mirror.Name        // Mirror's snapshot interpolation
	TechGeckos  = geckos.Name        // geckos.io snapshot-interpolation
	TechNGO     = ngo.Name           // Unity Netcode for GameObjects' NetworkTransform
	TechUnreal  = unreal.Name        // Unreal Engine's CharacterMovementComponent
	TechSource  = source.Name        // the Source engine's entity interpolation
)

// Libraries are the library techniques' own knobs, each library's struct
// as its package declares it. They sit one level below Settings, so that
// a library's knob named like one of the lab's (Mirror's SendRate, NGO's
// TickRate) never hides the lab's: s.SendRate is the server's send rate,
// s.MirrorSettings.SendRate Mirror's. Their JSON keys are flat, like every
// other field's. A library is its folder, a field here and a row of
// techDefs: nothing else in the program names it.
type Libraries struct {
	MirrorSettings
	GeckosSettings
	NGOSettings
	UnrealSettings
	SourceSettings
	LightyearSettings
	IOQuake3Settings
}

// The library techniques' settings, as their packages declare them.
type (
	MirrorSettings    = mirror.Settings    // mirror
	NGOSettings       = ngo.Settings       // ngo
	GeckosSettings    = geckos.Settings    // geckos
	UnrealSettings    = unreal.Settings    // unreal-cmc
	SourceSettings    = source.Settings    // source
	LightyearSettings = lightyear.Settings // lightyear
	IOQuake3Settings  = ioquake3.Settings  // ioquake3
)

// techDef is one row of the technique table: a technique.Def with its
// settings reached through Settings, what the runner, the parameter table
// and the studies need to know of a technique (see technique.Def).
type techDef struct {
	name   string
	group  string  // parameter-table group of its own settings; "" if it has none
	params []Param // its rows of the parameter table, lifted onto Settings

	base             technique.TimeBase // the clock it reads
	tune             []string           // the parameters Tune searches by default, over their whole ranges
	reach            technique.Reach
	underrunByDesign bool

	check     func(s *Settings) error
	delay     func(s *Settings, env *technique.Env) float64
	advice    func(s *Settings, env *technique.Env) string
	rate      string
	rates     func(s *Settings) (send, tick float64)
	canonical func(s, base *Settings)
	batch     func(s *Settings, env *technique.Env, n int) technique.Batch
	one       func(s *Settings, env *technique.Env) technique.Technique

	library *technique.Library // nil for the lab's own techniques
	export  *Export
	cases   func(caseJSON []byte) ([]technique.PeerFrame, error)
}

// row returns the row of technique d, whose settings are the field of
// Settings that field points to.
func row[P any](d technique.Def[P], field func(*Settings) P) techDef {
	r := techDef{name: d.Name, group: d.Group, params: param.Lift(d.Params, field),
		base: d.Base, tune: d.Tune, reach: d.Reach, underrunByDesign: d.UnderrunByDesign}
	if f := d.Check; f != nil {
		r.check = func(s *Settings) error { return f(field(s)) }
	}
	if f := d.Delay; f != nil {
		r.delay = func(s *Settings, env *technique.Env) float64 { return f(field(s), env) }
	}
	if f := d.Advice; f != nil {
		r.advice = func(s *Settings, env *technique.Env) string { return f(field(s), env) }
	}
	if f := d.Rates; f != nil {
		r.rate = d.Rate
		r.rates = func(s *Settings) (float64, float64) { return f(field(s)) }
	}
	if f := d.Canonical; f != nil {
		r.canonical = func(s, base *Settings) { f(field(s), field(base)) }
	}
	if f := d.Batch; f != nil {
		r.batch = func(s *Settings, env *technique.Env, n int) technique.Batch { return f(field(s), env, n) }
	}
	one := d.One
	r.one = func(s *Settings, env *technique.Env) technique.Technique { return one(field(s), env) }
	r.library, r.cases = d.Library, d.Cases
	if x := d.Export; x != nil {
		r.export = &Export{Technique: d.Name, Format: x.Format, Label: x.Label, ContentType: x.ContentType, File: x.File, Ext: x.Ext,
			Write: func(b *strings.Builder, s *Settings, from, warning string) {
				x.Write(b, field(s), &technique.ExportEnv{From: from, Warning: warning, Env: envOf(s)})
			}}
	}
	return r
}

// epicSettings is the settings of epic and epicfix.
func epicSettings(s *Settings) *EPICSettings { return &s.EPICSettings }

// bufferSettings is the settings of buffer and hermite.
func bufferSettings(s *Settings) *BufferSettings { return &s.BufferSettings }

// noSettings is the settings of a technique that has none.
func noSettings(*Settings) *technique.None { return &technique.None{} }

// labTechniques is how many of the first rows of techDefs are the lab's own
// techniques: the default set of a run.
const labTechniques = 5

// techDefs is the technique table, in display order.
var techDefs = [...]techDef{
	row(epic.Def, epicSettings),
	row(epic.FixDef, epicSettings),
	row(snap.Def, noSettings),
	row(buffer.Def, bufferSettings),
	row(buffer.HermiteDef, bufferSettings),
	row(mirror.Def, func(s *Settings) *MirrorSettings { return &s.MirrorSettings }),
	row(geckos.Def, func(s *Settings) *GeckosSettings { return &s.GeckosSettings }),
	row(ngo.Def, func(s *Settings) *NGOSettings { return &s.NGOSettings }),
	row(unreal.Def, func(s *Settings) *UnrealSettings { return &s.UnrealSettings }),
	row(source.Def, func(s *Settings) *SourceSettings { return &s.SourceSettings }),
	row(lightyear.Def, func(s *Settings) *LightyearSettings { return &s.LightyearSettings }),
	row(ioquake3.Def, func(s *Settings) *IOQuake3Settings { return &s.IOQuake3Settings }),
}

// numTechniques is len(techDefs), as a constant for the Set mask and
// FrameRecord.
const numTechniques = len(techDefs)

// TechniqueNames lists every technique, in display order.
var TechniqueNames = func() []string {
	names := make([]string, len(techDefs))
	for i := range techDefs {
		names[i] = techDefs[i].name
	}
	return names
}()

func techniqueIndex(name string) int {
	for i := range techDefs {
		if techDefs[i].name == name {
			return i
		}
	}
	return -1
}

// techniqueDef returns the row of a technique known to be valid.
func techniqueDef(name string) *techDef {
	i := techniqueIndex(name)
	if i < 0 {
		panic("engine: unknown technique " + name)
	}
	return &techDefs[i]
}

// TechniqueGroup returns the parameter-table group of the named technique's
// own settings, or "" when it has none or the name is unknown.
func TechniqueGroup(name string) string {
	if i := techniqueIndex(name); i >= 0 {
		return techDefs[i].group
	}
	return ""
}

// EffectiveDelay returns the display delay behind the newest snapshot that
// technique name has in steady state with settings s, in seconds, counted
// the way its library counts it; ok is false when the technique has no such
// figure (epic, snap) or the name is unknown.
func EffectiveDelay(name string, s *Settings) (delay float64, ok bool) {
	i := techniqueIndex(name)
	if i < 0 || techDefs[i].delay == nil {
		return 0, false
	}
	env := envOf(s)
	return techDefs[i].delay(s, &env), true
}

// envOf is what the techniques may know of a run of s.
func envOf(s *Settings) technique.Env {
	return technique.Env{SendRate: s.SendRate, TickRate: s.TickRate, RenderRate: s.RenderRate,
		MaxSpeed: s.MaxSpeed, Latency: s.Latency, Jitter: s.Jitter}
}

// UnderrunByDesign tells whether the technique draws past its newest packet
// on every frame by design, so its underrun is 100% and not a fault: EPIC
// and its fix (see technique.Def).
func UnderrunByDesign(name string) bool {
	i := techniqueIndex(name)
	return i >= 0 && techDefs[i].underrunByDesign
}

// Export is a library technique's export (technique.Export) over the
// lab's settings: it writes the technique's knobs as the file a game on the
// library pastes.
type Export struct {
	Technique   string // the technique whose settings it writes
	Format      string // the name in -format and ?format=
	Label       string // the page's link text
	ContentType string
	File        string // the download's name; "" names it after the preset, with Ext
	Ext         string
	// Write writes s, which must be valid; from is where the values come
	// from and warning the rate warning's comment lines (technique.ExportEnv).
	Write func(b *strings.Builder, s *Settings, from, warning string)
}

// Library returns what names the library that technique name reproduces
// (title, note, version, commit), nil for one of the lab's own techniques
// or an unknown name.
func Library(name string) *technique.Library {
	if i := techniqueIndex(name); i >= 0 {
		return techDefs[i].library
	}
	return nil
}

// LibraryExports lists the library techniques' exports, in the technique
// list's order; empty in lab.wasm, which leaves the writers out.
func LibraryExports() []*Export {
	var out []*Export
	for i := range techDefs {
		if x := techDefs[i].export; x != nil {
			out = append(out, x)
		}
	}
	return out
}

// PeerCases returns, by library (a case's library field, its technique's
// name), the function that decodes one of the library's recorded cases and
// replays it through its technique, for every library with cases; empty
// in lab.wasm.
func PeerCases() map[string]func(caseJSON []byte) ([]technique.PeerFrame, error) {
	out := map[string]func([]byte) ([]technique.PeerFrame, error){}
	for i := range techDefs {
		if f := techDefs[i].cases; f != nil {
			out[techDefs[i].name] = f
		}
	}
	return out
}

// LibraryTechnique tells whether name is a technique that reproduces a
// netcode library (mirror, ngo, ...) rather than one of the lab's own.
func LibraryTechnique(name string) bool { return techniqueIndex(name) >= labTechniques }

// Library returns the library technique s is on: the first of
// s.Techniques that reproduces a library (LibraryTechnique), "" when s runs
// only the lab's own techniques.
func (s *Settings) Library() string {
	for _, t := range s.Techniques {
		if LibraryTechnique(t) {
			return t
		}
	}
	return ""
}

// PrimaryTechnique returns the technique the designer is working on in s:
// the library technique s is on (Library; a Mirror game compares the lab's
// buffer against mirror, but tunes and ships mirror); else the
// buffer if it runs (the guide's technique, what the studies started on
// before); else the first of s.Techniques with settings to tune; else the
// buffer. Pages that
// start from the lab (tune, population, sweep, compare, exports) start on
// it.
func (s *Settings) PrimaryTechnique() string {
	if t := s.Library(); t != "" {
		return t
	}
	if slices.Contains(s.Techniques, TechBuffer) {
		return TechBuffer
	}
	for _, t := range s.Techniques {
		if i := techniqueIndex(t); i >= 0 && len(techDefs[i].tune) > 0 {
			return t
		}
	}
	return TechBuffer
}

// newBatch returns the named technique for n entities.
func newBatch(name string, s *Settings, env *technique.Env, n int) technique.Batch {
	if d := techniqueDef(name); d.batch != nil {
		return d.batch(s, env, n)
	}
	return newPerEntity(name, s, env, n)
}

// newPerEntity returns the named technique as one Technique per entity.
func newPerEntity(name string, s *Settings, env *technique.Env, n int) *technique.PerEntity {
	d := techniqueDef(name)
	p := &technique.PerEntity{Techs: make([]technique.Technique, n)}
	for e := range p.Techs {
		p.Techs[e] = d.one(s, env)
	}
	return p
}
