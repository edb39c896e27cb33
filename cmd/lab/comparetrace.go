package main

import (
	"fmt"
	"net/url"
	"strings"

	"interplab/cmd/lab/internal/compare"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// Comparing replays of recorded traces.
//
// A comparison ref trace:NAME replays the trace NAME (a sample or a stored
// trace) with the settings derived from it (its measured network and top
// speed, as the traces page's links use); trace:NAME@REF replays it with
// the settings of REF, any other ref (preset:NAME, session:ID[@REV],
// q:QUERY). So /compare?v=trace:sample-4g@preset:harbor-before&v=trace:sample-4g@preset:harbor-after
// charts the two tunings on the same recorded packets. A trace variant runs
// with engine.RunTraceSeries: entities and sendRate are the trace's, and the
// run lasts the shorter of duration and the trace's span.

// compareTracePrefix starts a trace ref.
const compareTracePrefix = "trace:"

// resolveCompareVariant resolves a comparison ref: a trace ref as above,
// anything else with resolveVariant.
func (s *server) resolveCompareVariant(ref string) (compare.Variant, error) {
	if !strings.HasPrefix(ref, compareTracePrefix) {
		label, st, err := s.resolveVariant(ref)
		return compare.Variant{Label: label, Settings: st}, err
	}
	name, sub, hasSub := strings.Cut(strings.TrimPrefix(ref, compareTracePrefix), "@")
	if s.store == nil {
		return compare.Variant{}, fmt.Errorf("traces are not enabled on this server")
	}
	_, tr, err := s.store.LoadTrace(name)
	if err != nil {
		return compare.Variant{}, fmt.Errorf("trace %s: %w", name, err)
	}
	v := compare.Variant{Trace: tr, TraceKey: compare.TraceKey(tr)}
	if hasSub {
		if strings.HasPrefix(sub, compareTracePrefix) {
			return compare.Variant{}, fmt.Errorf("trace %s: settings from %s: want preset:NAME, session:ID[@REV] or q:QUERY", name, sub)
		}
		label, st, err := s.resolveVariant(sub)
		if err != nil {
			return compare.Variant{}, fmt.Errorf("trace %s: %w", name, err)
		}
		v.Label, v.Settings = name+" replay, "+label, st
	} else {
		v.Label = name + " replay"
		v.Settings, _ = traceio.Settings(tr, engine.Defaults())
	}
	return v, nil
}

// compareTraceLink returns the comparison of trace name replayed with the
// settings of each of refs (see trace:NAME@REF).
func compareTraceLink(name string, refs ...string) string {
	q := url.Values{}
	for _, r := range refs {
		q.Add("v", compareTracePrefix+name+"@"+r)
	}
	return "/compare?" + q.Encode()
}
