package technique

import (
	"strconv"
	"strings"

	"interplab/engine/param"
)

// Def is a technique as the engine lists it: its name, the settings it
// reads (a struct of its own, which P points to, with the parameter rows
// over it), the clock it reads and how to make it. A technique's package
// declares its Def over its own settings (Def[*Settings]); the engine's
// technique list adds it with the field of the lab's settings that holds
// them, and so its rows join the parameter table. The functions read the
// settings through the pointer they are given on every call, so a slider
// moved between frames takes effect on the next one.
type Def[P any] struct {
	Name  string // vocabulary name: one of the choices of the techniques parameter
	Group string // parameter-table group of its settings; "" if it has none

	// Params are the rows of its settings, in display order: nil when the technique
	// has no settings or shares its group with an earlier one (epicfix
	// with epic, hermite with the buffer).
	Params []param.Param[P]

	Base  TimeBase // the clock its Receive and Sample read
	Tune  []string // the parameters the tuner searches by default, over their whole ranges
	Reach Reach    // how far past what it received it may draw

	// UnderrunByDesign is true for a technique that draws past its newest
	// snapshot on every frame by design (EPIC draws at the server-time
	// estimate itself): its underrun is 100% on every run and no fault.
	UnderrunByDesign bool

	// Check, if not nil, checks the constraints between the technique's
	// own settings that the rows' ranges cannot express.
	Check func(s P) error

	// Delay, if not nil, is the display delay behind the newest snapshot
	// that the settings give a game in steady state, s: for a library,
	// what the designer should expect the shipped game to show (Mirror:
	// bufferTime plus NetworkTransform's timeline offset). Its live
	// counterpart is the Sample.Delay the technique fills in.
	Delay func(s P, env *Env) float64

	// Advice, if not nil, names a setting of its own that makes the technique
	// run differently from the game it stands for, because in the game it
	// is the same setting as one of the run's (Mirror's sendRate is the
	// server's send rate); "" when there is none.
	Advice func(s P, env *Env) string

	// Rate, if not "", is the knob of its own that is, in the game, the
	// rate its server sends at (Mirror's NetworkManager.sendRate, NGO's
	// Tick Rate): one game setting, which the lab's sendRate and tickRate
	// follow (Rates). Rates gives the send and tick rates, Hz, that a game
	// with settings s runs its server at: send 0 when s does not say
	// (geckos.io without a serverFPS), tick 0 when the game's tick is its
	// own (geckos.io's serverFPS is the snapshot rate only).
	Rate  string
	Rates func(s P) (send, tick float64)

	// Canonical, if not nil, makes s, a variation of base in the tuned
	// parameters, valid and canonical: knobs that do nothing in s take
	// base's values, so the tuner does not try them twice.
	Canonical func(s, base P)

	// Batch makes the technique for n entities that share their packets;
	// nil runs One per entity.
	Batch func(s P, env *Env, n int) Batch
	// One makes the technique for one entity.
	One func(s P, env *Env) Technique

	// Library, if not nil, is the netcode library the technique
	// reproduces, for people: a technique with one is a library technique.
	Library *Library

	// Export and Cases are the library's tools: they are set by a file
	// of the technique's package built only outside lab.wasm (//go:build
	// !js), whose init fills them in before the engine's technique list
	// reads the Def, so that fmt and encoding/json stay out of the page's
	// module. Both are nil in lab.wasm, and for a technique without them.
	//
	// Export writes the settings as the file a game team pastes.
	Export *Export[P]
	// Cases decodes one of the library's recorded cases (golden/peers,
	// its "library" field the Def's Name) and replays it through the
	// technique: what `lab peers check` compares with the library's frames.
	Cases func(caseJSON []byte) ([]PeerFrame, error)
}

// Library is what names a library technique's library for people.
type Library struct {
	Title   string // the library's name: "Unity Netcode for GameObjects"
	Note    string // what of it the technique reproduces, one line for the picker
	Group   string // the title of the group of its knobs in the page
	Version string // the version reproduced: "2.1.1", "Source SDK 2013"
	Commit  string // the commit reproduced, 40 hex digits
}

// Export is a library technique's export: its settings written as the file
// a game on the library pastes, in the library's own names and units.
type Export[P any] struct {
	Format      string // the name in -format and ?format=
	Label       string // the page's link text
	ContentType string // the download's content type
	// File is the download's file name; "" names it after the preset,
	// interplab-<preset><Ext>.
	File string
	Ext  string
	// Write writes s. It reads the library's knobs from s and their units
	// and docs from the technique's own parameter rows, never a retyped
	// name or default.
	Write func(b *strings.Builder, s P, x *ExportEnv)
}

// ExportEnv is what an Export's Write is told beyond its settings.
type ExportEnv struct {
	// From says where the values come from, as the export's heading says
	// it: `preset "wifi"`, `session "Harbor" rev 3`.
	From string
	// Warning is "//" comment lines ending in a newline that warn that the
	// lab ran its server at other rates than the game's knobs give, or ""
	// when they agree.
	Warning string
	Env     Env // the run the settings were tuned in
}

// None is the settings of a technique that has none (snap).
type None struct{}

// Env is what a technique may know of the run beyond its own settings: the
// server's and the client's rates, the entities' top speed, and the link's
// nominal latency and jitter (what a transport's round-trip estimate sees
// on a steady link). The runner refreshes it when a setting changes; a
// technique reads it through the pointer it was made with.
type Env struct {
	SendRate   float64 // snapshots the server sends per second, Hz
	TickRate   float64 // server simulation steps per second, Hz
	RenderRate float64 // client frames per second, Hz
	MaxSpeed   float64 // the entities' top speed, m/s
	Latency    float64 // the link's nominal one-way latency, s
	Jitter     float64 // the link's mean extra one-way delay, s
}

// RateAdvice is a Def's Advice for a knob, a rate of v Hz, that is not
// the server's send rate: "knob is v Hz but the server sends at
// env.SendRate Hz (sendRate): why; set them equal", rates to 4
// significant digits.
func RateAdvice(knob string, v float64, env *Env, why string) string {
	return knob + " is " + hz(v) + " but the server sends at " + hz(env.SendRate) + " (sendRate): " + why + "; set them equal"
}

// hz writes a rate for the advice: 4 significant digits.
func hz(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) + " Hz" }

// Reach is how far past what it has received a technique may draw: what
// the network can impose on its added latency (the tuner's floor). The zero
// Reach is none of the three: every Def says which is its own.
type Reach uint8

const (
	// Ahead: the technique extrapolates ahead of what it received (EPIC's
	// calcAhead, Unreal's simulated proxy moving on at the replicated
	// velocity, geckos.io's unclamped lerp past its newest snapshot when
	// its clock offset runs ahead), so its added latency can be far below
	// the link's latency.
	Ahead Reach = iota + 1
	// Transit: the technique draws at the snapshots it received, and at
	// most dead-reckons past the newest from when it arrived (the buffer's
	// stream time, Source's client clock, which follows the server ticks
	// the packets carry): it shows the truth no later than the packets'
	// transit, at least the link's least latency.
	Transit
	// Received: the technique draws only between snapshots it has
	// received and holds when it runs dry (Mirror, NGO, snap): what it
	// shows is never newer than its newest snapshot, which was sent some
	// time before its transit began.
	Received
)
