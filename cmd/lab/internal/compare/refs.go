package compare

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
	"interplab/engine/netsim"
	"interplab/presets"
)

// Variant refs: what /compare's v, and a sweep's or a tuning's base, name.
//
//	preset:NAME       a preset
//	q:QUERY           a share link's query (package link)
//	session:ID[@REV]  a saved session's latest revision, or revision REV
//	trace:NAME[@REF]  (comparisons only) a recorded trace, replayed
//
// A comparison ref trace:NAME replays the trace NAME (a sample or a stored
// trace) with the settings derived from it (its measured network and top
// speed, as the traces page's links use); trace:NAME@REF replays it with
// the settings of REF, any other ref (preset:NAME, session:ID[@REV],
// q:QUERY). So /compare?v=trace:sample-4g@preset:harbor-before&v=trace:sample-4g@preset:harbor-after
// charts the two tunings on the same recorded packets. A trace variant runs
// with engine.RunTraceSeries: entities and sendRate are the trace's, and the
// run lasts the shorter of duration and the trace's span.

// TracePrefix starts a trace ref.
const TracePrefix = "trace:"

// Resolver resolves variant refs against the lab's presets and store.
type Resolver struct {
	Presets []presets.Preset
	Store   RefStore
}

// RefStore is what a Resolver reads of the store: sessions' revisions and
// traces (store.Store is one).
type RefStore interface {
	Latest(id string) (store.Revision, error)
	Revision(id string, rev int) (store.Revision, error)
	TraceInfo(name string) (store.TraceInfo, error)
	LoadTrace(name string) (store.TraceInfo, *engine.Trace, error)
}

// Variant resolves a comparison ref: a trace ref as above, anything else
// with Settings. A trace variant comes with what the store keeps of its
// trace, not its packets: Runner.Exec loads them (with Trace) once Plan
// has checked the comparison.
func (s *Resolver) Variant(ref string) (Variant, error) {
	if !strings.HasPrefix(ref, TracePrefix) {
		label, st, err := s.Settings(ref)
		return Variant{Label: label, Settings: st}, err
	}
	name, sub, hasSub := strings.Cut(strings.TrimPrefix(ref, TracePrefix), "@")
	info, err := s.Store.TraceInfo(name)
	if err != nil {
		return Variant{}, fmt.Errorf("trace %s: %w", name, err)
	}
	v := Variant{TraceName: name, TraceInfo: info}
	if hasSub {
		if strings.HasPrefix(sub, TracePrefix) {
			return Variant{}, fmt.Errorf("trace %s: settings from %s: want preset:NAME, session:ID[@REV] or q:QUERY", name, sub)
		}
		label, st, err := s.Settings(sub)
		if err != nil {
			return Variant{}, fmt.Errorf("trace %s: %w", name, err)
		}
		v.Label, v.Settings = name+" replay, "+label, st
	} else {
		v.Label = name + " replay"
		v.Settings, _ = traceio.SettingsFrom(info.Network, info.MaxSpeed, engine.Defaults())
	}
	return v, nil
}

// Trace loads the packets of the trace called name, for Runner.Exec.
func (s *Resolver) Trace(name string) (*engine.Trace, error) {
	_, tr, err := s.Store.LoadTrace(name)
	return tr, err
}

// TraceLink returns the comparison of trace name replayed with the
// settings of each of refs (see trace:NAME@REF).
func TraceLink(name string, refs ...string) string {
	q := url.Values{}
	for _, r := range refs {
		q.Add("v", TracePrefix+name+"@"+r)
	}
	return "/compare?" + q.Encode()
}

// Settings turns a ref into a label and settings: preset:NAME,
// session:ID, session:ID@REV, or q:QUERY (a share link's query).
func (s *Resolver) Settings(ref string) (string, engine.Settings, error) {
	kind, arg, _ := strings.Cut(ref, ":")
	switch kind {
	case "preset":
		for _, p := range s.Presets {
			if p.Name == arg {
				return p.Title, p.Settings, nil
			}
		}
		return "", engine.Settings{}, fmt.Errorf("no preset %q", arg)
	case "q":
		q, err := link.ParseRef(arg)
		if err != nil {
			return "", engine.Settings{}, fmt.Errorf("bad query: %w", err)
		}
		preset, st, errs := link.Parse(q)
		if len(errs) > 0 {
			return "", engine.Settings{}, errs[0]
		}
		label := "settings"
		if preset != "" {
			label = preset + " + changes"
		}
		if st.NetSim != netsim.Lab {
			label += " over " + st.NetSim + "'s simulator"
		}
		return label, st, nil
	case "session":
		id, revText, hasRev := strings.Cut(arg, "@")
		var r store.Revision
		var err error
		if hasRev {
			rev, perr := strconv.Atoi(revText)
			if perr != nil || rev < 1 {
				return "", engine.Settings{}, fmt.Errorf("bad revision %q", revText)
			}
			r, err = s.Store.Revision(id, rev)
		} else {
			r, err = s.Store.Latest(id)
		}
		if err != nil {
			return "", engine.Settings{}, err
		}
		return fmt.Sprintf("%s (rev %d)", r.Name, r.Rev), r.Settings, nil
	}
	return "", engine.Settings{}, fmt.Errorf("unknown variant %q: want preset:NAME, session:ID[@REV] or q:QUERY", ref)
}
