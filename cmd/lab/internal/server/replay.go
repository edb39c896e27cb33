package server

import (
	"errors"
	"net/url"
	"slices"
	"strings"

	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/templates"
)

// Replays in the lab page.
//
// /?trace=NAME&<vocabulary overrides> opens the lab replaying the recorded
// trace NAME (a sample or a stored trace, see /traces): the page fetches
// GET /api/traces/NAME/flat and starts interplab.createReplay instead of
// create. The settings apply as in any run, except the ones a replay takes
// from its trace (entities and sendRate, see engine.NewReplay), which the
// page shows disabled with the trace's values; a link that sets them is
// told so. An unknown trace is an error on the page, which then runs the
// link's settings without a replay.

// linkTraceKey is the query key naming the trace a page replays.
const linkTraceKey = "trace"

// replayFixedParams are the parameters a replay takes from its trace.
var replayFixedParams = []string{"entities", "sendRate"}

// replayTraceKey removes the trace key from q and returns its value and
// whether it was there; a key given twice is an error.
func replayTraceKey(q url.Values) (name string, ok bool, err *engine.FieldError) {
	vals, ok := q[linkTraceKey]
	if !ok {
		return "", false, nil
	}
	delete(q, linkTraceKey)
	if len(vals) > 1 {
		return "", false, &engine.FieldError{Field: linkTraceKey, Value: strings.Join(vals, ","), Allowed: "one trace"}
	}
	return vals[0], true, nil
}

// replayPage makes v the page replaying the trace called name with v's
// settings: it sets v.Trace, shows the trace's entities and sendRate in
// v.Settings, and reports an unknown trace or a link that sets a fixed
// parameter in v.Errors. q is the link's query without the trace key.
func (s *Server) replayPage(v *templates.PageView, name string, q url.Values) {
	bad := func(msg string) {
		v.Errors = append(v.Errors, (&engine.FieldError{Field: linkTraceKey, Value: name, Allowed: msg}).Error())
	}
	_, tr, err := s.store.LoadTrace(name)
	switch {
	case errors.Is(err, store.ErrTraceNotFound):
		bad("the name of a sample or stored trace (see /traces)")
		return
	case err != nil:
		bad("a trace that loads: " + err.Error())
		return
	}
	sim, err := engine.NewReplay(tr, v.Settings)
	if err != nil {
		v.Errors = append(v.Errors, "replay "+name+": "+err.Error())
		return
	}
	fixed := sim.Settings()
	for _, p := range replayFixedParams {
		if _, set := q[p]; set {
			v.Errors = append(v.Errors, (&engine.FieldError{Field: p, Value: strings.Join(q[p], ","),
				Allowed: "no value: a replay takes it from its trace"}).Error())
		}
	}
	v.Settings.Entities, v.Settings.SendRate, v.Settings.TickRate = fixed.Entities, fixed.SendRate, fixed.TickRate
	v.Trace = name
	v.TraceFixed = strings.Join(replayFixedParams, ",")
	v.TraceIgnored = strings.Join(slices.Concat(engine.ReplayPingOnly, engine.ReplayUnused), ",")
	v.TraceInfo = report.Number(tr.Span()) + " s, " + report.Number(float64(tr.Entities)) + " entities, " +
		report.Number(float64(len(tr.Packets))) + " packets"
}
