package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"interplab/engine/study"
)

// Population prints a population run: what was run, one row per
// population figure and one column per technique, then each technique's
// worst entities with the link they drew and the main page's query that
// replays them (url(entity)).
func Population(w io.Writer, title string, res *study.PopulationResult, url func(entity int) string) error {
	p := &res.Spec.Population
	fmt.Fprintf(w, "%s: %d entities × %d rounds of %g s, seed %d, motion %s\n\n",
		title, p.Entities, p.Rounds, p.Round, p.Seed, p.Motion)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "figure\tunit\t")
	for _, t := range res.Techniques {
		fmt.Fprintf(tw, "%s\t", t.Name)
	}
	fmt.Fprintln(tw)
	for i, f := range study.PopulationMetricFields {
		fmt.Fprintf(tw, "%s\t%s\t", f.Name, f.Display)
		for _, t := range res.Techniques {
			fmt.Fprintf(tw, "%s\t", Value(t.Metrics.Values(nil)[i], f))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for k, t := range res.Techniques {
		fmt.Fprintf(w, "\n%s, worst entities (most underrun rounds, then largest error p95):\n", t.Name)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "entity\tunderrun rounds\terrP95 (cm)\tlatency (ms)\tjitter (ms)\tloss (%)\tmotion\topen in the lab")
		for _, e := range t.Worst {
			ent := &res.Entities[e]
			em, l := ent.Techniques[k], ent.Link
			kind := ""
			if l.HighVariance {
				kind = " hv"
			}
			fmt.Fprintf(tw, "%d%s\t%d/%d\t%s\t%s\t%s %s\t%s %s\t%s\t%s\n", e, kind, em.UnderrunRounds, p.Rounds,
				Number(em.ErrP95*100), Number(l.Latency*1000), Number(l.Jitter*1000), l.JitterDist,
				Number(l.Loss*100), l.LossModel, ent.Motion, url(e))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

// PopulationCSV writes one row per entity and technique: what the entity
// drew and its figures over its rounds, in SI units (seconds, metres,
// fractions), with the round flags as one hex digit per round (1 underrun,
// 2 snap, 4 frozen beyond the extrapolation cap).
func PopulationCSV(w io.Writer, res *study.PopulationResult) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"entity", "technique", "highVariance", "latency", "jitter", "jitterDist", "loss", "lossModel",
		"burstLength", "clockDrift", "motion", "seed", "underrunRounds", "snapRounds", "frozenRounds", "rounds",
		"errP95", "errRMS", "addedLatency", "underrun", "idle"})
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, e := range res.Entities {
		l := e.Link
		for k, t := range res.Techniques {
			m := e.Techniques[k]
			cw.Write([]string{strconv.Itoa(e.Entity), t.Name, strconv.FormatBool(l.HighVariance), g(l.Latency), g(l.Jitter),
				l.JitterDist, g(l.Loss), l.LossModel, g(l.BurstLength), g(l.ClockDrift), e.Motion, strconv.Itoa(e.Seed),
				strconv.Itoa(m.UnderrunRounds), strconv.Itoa(m.SnapRounds), strconv.Itoa(m.FrozenRounds), "r" + m.Rounds,
				g(m.ErrP95), g(m.ErrRMS), g(m.AddedLatency), g(m.Underrun), g(m.Idle)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// PopulationJSON is the output of lab population -json: per technique its
// population figures and its worst entities, each with the lab query that
// replays it (url).
type PopulationJSON struct {
	Preset     string                    `json:"preset,omitempty"`
	Population string                    `json:"population"`
	Spec       study.PopulationSpec      `json:"spec"`
	Techniques []PopulationTechniqueJSON `json:"techniques"`
}

// PopulationTechniqueJSON is one technique of a PopulationJSON.
type PopulationTechniqueJSON struct {
	Name    string                  `json:"name"`
	Metrics study.PopulationMetrics `json:"metrics"`
	Worst   []PopulationWorstJSON   `json:"worst"`
}

// PopulationWorstJSON is one of a technique's worst entities: what it drew,
// how it did, and the query of the lab page that replays it.
type PopulationWorstJSON struct {
	study.PopulationEntity
	URL string `json:"url"`
}

// NewPopulationJSON builds the JSON of res; url gives entity e's lab query.
func NewPopulationJSON(preset, population string, res *study.PopulationResult, url func(int) string) PopulationJSON {
	out := PopulationJSON{Preset: preset, Population: population, Spec: res.Spec}
	for k, t := range res.Techniques {
		to := PopulationTechniqueJSON{Name: t.Name, Metrics: t.Metrics}
		for _, e := range t.Worst {
			ent := res.Entities[e]
			ent.Techniques = []study.EntityMetrics{ent.Techniques[k]}
			to.Worst = append(to.Worst, PopulationWorstJSON{ent, url(e)})
		}
		out.Techniques = append(out.Techniques, to)
	}
	return out
}
