package study

import (
	"math"
	"slices"
	"strconv"

	"interplab/engine"
	"interplab/engine/geom"
	"interplab/engine/motion"
	"interplab/engine/netsim"
	"interplab/engine/param"
)

// Population is a player base: a distribution of connections from which
// every entity draws its own link, each entity with its own motion, watched
// over Rounds rounds of Round seconds. The guide's figures ("buffer underrun
// per entity per round: 41% → 6%") are population figures: a share of
// entity-rounds, not of frames on one connection.
//
// Entity e's draws depend only on (Seed, e): entity 7 of a population of 10
// is entity 7 of a population of 1,000, so a small run previews a large one.
// A share HighVarianceShare of the connections are high-variance ones (Wi-Fi,
// congested or mobile last miles) whose jitter and loss come from
// HighVariance instead of Stable; the rest from Stable.
type Population struct {
	Latency    Spread `json:"latency"`    // base one-way latency, s, in [0, 1]
	ClockDrift Spread `json:"clockDrift"` // client clock rate error, fraction, in [−0.01, 0.01]

	Stable            LinkSpread `json:"stable"`            // the ordinary connections
	HighVariance      LinkSpread `json:"highVariance"`      // the high-variance ones
	HighVarianceShare float64    `json:"highVarianceShare"` // share of high-variance connections, in [0, 1]

	Motion   string  `json:"motion"`   // one of Motions; "mix" gives entity e script e mod 6
	Entities int     `json:"entities"` // in [1, MaxPopulationEntities]
	Rounds   int     `json:"rounds"`   // rounds per entity, in [1, MaxPopulationRounds]
	Round    float64 `json:"round"`    // length of a round, s, in [1, 3600]
	Seed     int     `json:"seed"`     // seed of every draw, in [0, 2³²−1]
}

// Spread is the range a population parameter is drawn from: uniformly, or
// log-uniformly when Log is set (then Min > 0), so that a range spanning
// decades (a loss from 0.001% to 0.1%) is not dominated by its top decade.
// Min = Max gives that one value.
type Spread struct {
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	Log bool    `json:"log,omitempty"`
}

// at returns the value of the spread at the uniform draw u in [0, 1).
func (r Spread) at(u float64) float64 {
	if r.Max == r.Min {
		return r.Min
	}
	if r.Log {
		return r.Min * geom.Exp(float64(u*geom.Log(r.Max/r.Min)))
	}
	return r.Min + float64(u*(r.Max-r.Min))
}

// LinkSpread is the jitter and loss of one class of connection.
type LinkSpread struct {
	Jitter      Spread `json:"jitter"`      // mean extra one-way delay, s
	JitterDist  string `json:"jitterDist"`  // one of JitterDists
	Loss        Spread `json:"loss"`        // long-run share of packets lost
	LossModel   string `json:"lossModel"`   // one of LossModels
	BurstLength Spread `json:"burstLength"` // mean loss burst, packets (burst loss)
}

// Limits of a population: a run simulates Entities × Rounds × Round
// entity-seconds, and the bound keeps one request from holding the cores
// for hours.
const (
	MaxPopulationEntities = 100000
	MaxPopulationRounds   = 1000
	// MaxPopulationSeconds bounds Entities × Rounds × Round: ten times
	// the guide's study at 1,000 entities × 20 rounds of 3 minutes.
	MaxPopulationSeconds = 36e6
)

// EntityLink is the connection one entity drew.
type EntityLink struct {
	HighVariance bool    `json:"highVariance"` // drawn from Population.HighVariance
	Latency      float64 `json:"latency"`      // base one-way latency, s
	Jitter       float64 `json:"jitter"`       // mean extra one-way delay, s
	JitterDist   string  `json:"jitterDist"`   // one of JitterDists
	Loss         float64 `json:"loss"`         // long-run share of packets lost, in [0, 1]
	LossModel    string  `json:"lossModel"`    // one of LossModels
	BurstLength  float64 `json:"burstLength"`  // mean loss burst, packets
	ClockDrift   float64 `json:"clockDrift"`   // client clock rate error, fraction
}

// Validate checks p. The error is a *FieldError naming the field as
// "population.latency.min", "population.entities"..., with its range.
func (p *Population) Validate() error {
	if err := p.Latency.check("latency", "latency"); err != nil {
		return err
	}
	if err := p.ClockDrift.check("clockDrift", "clockDrift"); err != nil {
		return err
	}
	for _, c := range [...]struct {
		name string
		l    *LinkSpread
	}{{"stable", &p.Stable}, {"highVariance", &p.HighVariance}} {
		if err := c.l.check(c.name); err != nil {
			return err
		}
	}
	if !(p.HighVarianceShare >= 0 && p.HighVarianceShare <= 1) {
		return &engine.FieldError{Field: "population.highVarianceShare", Value: param.FormatNumber(p.HighVarianceShare), Allowed: "[0, 1]"}
	}
	if slices.Index(motion.Names, p.Motion) < 0 {
		mp, _ := engine.Lookup("motion")
		return &engine.FieldError{Field: "population.motion", Value: p.Motion, Allowed: mp.Allowed()}
	}
	if p.Entities < 1 || p.Entities > MaxPopulationEntities {
		return &engine.FieldError{Field: "population.entities", Value: strconv.Itoa(p.Entities),
			Allowed: "a whole number in [1, " + strconv.Itoa(MaxPopulationEntities) + "]"}
	}
	if p.Rounds < 1 || p.Rounds > MaxPopulationRounds {
		return &engine.FieldError{Field: "population.rounds", Value: strconv.Itoa(p.Rounds),
			Allowed: "a whole number in [1, " + strconv.Itoa(MaxPopulationRounds) + "]"}
	}
	rp, _ := engine.Lookup("round")
	if rp.Check(p.Round) != nil {
		return &engine.FieldError{Field: "population.round", Value: rp.ValueText(p.Round), Allowed: rp.Allowed()}
	}
	sp, _ := engine.Lookup("seed")
	if sp.Check(float64(p.Seed)) != nil {
		return &engine.FieldError{Field: "population.seed", Value: strconv.Itoa(p.Seed), Allowed: sp.Allowed()}
	}
	if n := float64(p.Entities) * float64(p.Rounds) * p.Round; n > MaxPopulationSeconds {
		return &engine.FieldError{Field: "population.entities", Value: strconv.Itoa(p.Entities),
			Allowed: "entities × rounds × round ≤ " + param.FormatNumber(MaxPopulationSeconds) + " entity-seconds (this is " + param.FormatNumber(n) + ")"}
	}
	return nil
}

// check validates the spread against the parameter table's range of param;
// field is its name under "population.".
func (r Spread) check(field, param string) error {
	p, _ := engine.Lookup(param)
	f := "population." + field
	if p.Check(r.Min) != nil {
		return &engine.FieldError{Field: f + ".min", Value: p.ValueText(r.Min), Allowed: p.Allowed()}
	}
	if p.Check(r.Max) != nil {
		return &engine.FieldError{Field: f + ".max", Value: p.ValueText(r.Max), Allowed: p.Allowed()}
	}
	if r.Max < r.Min {
		return &engine.FieldError{Field: f + ".max", Value: p.ValueText(r.Max), Allowed: "at least " + f + ".min = " + p.ValueText(r.Min)}
	}
	if r.Log && !(r.Min > 0) {
		return &engine.FieldError{Field: f + ".min", Value: p.ValueText(r.Min), Allowed: "above 0 for a log-uniform spread"}
	}
	return nil
}

func (l *LinkSpread) check(class string) error {
	if err := l.Jitter.check(class+".jitter", "jitter"); err != nil {
		return err
	}
	if slices.Index(netsim.JitterDists, l.JitterDist) < 0 {
		p, _ := engine.Lookup("jitterDist")
		return &engine.FieldError{Field: "population." + class + ".jitterDist", Value: l.JitterDist, Allowed: p.Allowed()}
	}
	if err := l.Loss.check(class+".loss", "loss"); err != nil {
		return err
	}
	if slices.Index(netsim.LossModels, l.LossModel) < 0 {
		p, _ := engine.Lookup("lossModel")
		return &engine.FieldError{Field: "population." + class + ".lossModel", Value: l.LossModel, Allowed: p.Allowed()}
	}
	return l.BurstLength.check(class+".burstLength", "burstLength")
}

// Draw numbers of an entity, fixed so that adding a draw never moves the
// others.
const (
	popDrawClass = iota + 1
	popDrawLatency
	popDrawJitter
	popDrawLoss
	popDrawBurst
	popDrawDrift
	popDrawSeed
)

// Entity returns what entity e (≥ 0) drew: its link, its motion script and
// the seed of its run. Values are rounded to what a designer can type (0.1 ms,
// 0.0001%, 0.1 packet, 0.01 ppm), so the link shown is exactly the link run.
func (p *Population) Entity(e int) (EntityLink, string, int) {
	h := geom.Mix(uint64(p.Seed) ^ geom.Mix(uint64(e)+0x5851f42d4c957f2d))
	draw := func(i uint64) float64 { return geom.ToUnit(geom.Mix(h + i*0x9e3779b97f4a7c15)) }
	var l EntityLink
	l.HighVariance = draw(popDrawClass) < p.HighVarianceShare
	c := &p.Stable
	if l.HighVariance {
		c = &p.HighVariance
	}
	l.Latency = roundTo(p.Latency.at(draw(popDrawLatency)), 1e4)
	l.Jitter = roundTo(c.Jitter.at(draw(popDrawJitter)), 1e4)
	l.JitterDist = c.JitterDist
	l.Loss = roundTo(c.Loss.at(draw(popDrawLoss)), 1e6)
	l.LossModel = c.LossModel
	l.BurstLength = roundTo(c.BurstLength.at(draw(popDrawBurst)), 10)
	l.ClockDrift = roundTo(p.ClockDrift.at(draw(popDrawDrift)), 1e8)
	script := p.Motion
	if script == "mix" {
		script = motion.Scripts[e%len(motion.Scripts)]
	}
	seed := int(geom.Mix(h^geom.Mix(popDrawSeed)) >> 32)
	return l, script, seed
}

// roundTo rounds v to a whole number of 1/inv, inv a power of ten: the
// nearest float64 to that decimal, so it prints as typed.
func roundTo(v, inv float64) float64 { return math.Round(float64(v*inv)) / inv }

// EntitySettings returns base with entity e's link, motion and seed, one
// entity, and the population's round: the settings that replay that entity
// alone, as its population run did, in any view of the lab.
func (p *Population) EntitySettings(base engine.Settings, e int) engine.Settings {
	l, motion, seed := p.Entity(e)
	s := base
	s.Techniques = append([]string(nil), base.Techniques...)
	s.Latency, s.Jitter, s.JitterDist = l.Latency, l.Jitter, l.JitterDist
	s.Loss, s.LossModel, s.BurstLength, s.ClockDrift = l.Loss, l.LossModel, l.BurstLength, l.ClockDrift
	s.Motion, s.Seed, s.Entities = motion, seed, 1
	s.Round = p.Round
	s.Duration = min(float64(p.Rounds)*p.Round, 3600)
	return s
}

// With returns p with its size overridden where the arguments are not zero:
// the entities, the rounds per entity and a round's length, s. The CLI, the
// tuner and the Population page scale a population preset this way.
func (p Population) With(entities, rounds int, round float64) Population {
	if entities != 0 {
		p.Entities = entities
	}
	if rounds != 0 {
		p.Rounds = rounds
	}
	if round != 0 {
		p.Round = round
	}
	return p
}
