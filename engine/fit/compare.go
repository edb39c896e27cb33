package fit

import (
	"math"

	"interplab/engine"
	"interplab/engine/netsim"
)

// ModelTrace returns t with its network replaced by the fitted link's: the
// same sends (times, entities, states), each delivered, lost or
// duplicated by a netsim.Link under l's settings and scenario drawn from
// seed, its delays read on a clock drifting as l's. Replayed beside t, it
// tells whether the model behaves like the capture for the techniques.
func ModelTrace(t *engine.Trace, l *Link, seed uint64) (*engine.Trace, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	s := l.Settings(engine.Defaults())
	if err := s.Validate(); err != nil {
		return nil, err
	}
	dur := s.Duration
	link := netsim.NewLink(&s.NetworkSettings, &dur, seed)
	t0 := t.Packets[0].Sent
	out := &engine.Trace{Name: t.Name + " (fitted model)", Entities: t.Entities}
	var arr []float64
	for i := 0; i < len(t.Packets); {
		j := i
		for j < len(t.Packets) && t.Packets[j].Sent == t.Packets[i].Sent {
			j++
		}
		sent := t.Packets[i].Sent
		rel := sent - t0
		arr = link.Send(rel, arr[:0])
		copies := arr
		if len(copies) == 0 {
			copies = []float64{math.NaN()}
		}
		for _, a := range copies {
			at := a
			if !math.IsNaN(a) {
				at = min(sent+engine.TraceMaxDelay, max(sent, t0+a+l.ClockDrift*rel))
			}
			seen := map[int]bool{}
			for k := i; k < j; k++ {
				p := t.Packets[k]
				if seen[p.Entity] {
					continue // a copy in the capture: the model makes its own
				}
				seen[p.Entity] = true
				p.Arrive = at
				out.Packets = append(out.Packets, p)
			}
		}
		i = j
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	return out, nil
}

// Agreement is one technique's figures replayed on the capture and on its
// fitted model (ModelTrace).
type Agreement struct {
	Technique     string  `json:"technique"`
	CaptureUnder  float64 `json:"captureUnderrun"` // share of frames underrun on the capture
	ModelUnder    float64 `json:"modelUnderrun"`   // on the model
	CaptureErrP95 float64 `json:"captureErrP95"`   // m
	ModelErrP95   float64 `json:"modelErrP95"`     // m
}

// Compare replays t and its fitted model through the techniques of base
// (the replay takes entities and sendRate from the trace) and returns
// their underrun share and error p95 side by side.
func Compare(t *engine.Trace, l *Link, base engine.Settings, seed uint64) ([]Agreement, error) {
	model, err := ModelTrace(t, l, seed)
	if err != nil {
		return nil, err
	}
	base.Duration = max(1, min(netsim.MaxDuration, math.Ceil(t.Span())))
	rc, err := engine.RunTrace(t, base)
	if err != nil {
		return nil, err
	}
	rm, err := engine.RunTrace(model, base)
	if err != nil {
		return nil, err
	}
	out := make([]Agreement, len(rc.Techniques))
	for i, c := range rc.Techniques {
		m := rm.Techniques[i].Metrics
		out[i] = Agreement{Technique: c.Name, CaptureUnder: c.Metrics.Underrun, ModelUnder: m.Underrun,
			CaptureErrP95: c.Metrics.ErrP95, ModelErrP95: m.ErrP95}
	}
	return out, nil
}
