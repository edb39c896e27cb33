// Package compare runs 2 to 8 variants of the lab's settings on one
// scenario with the engine, on the server (never from numbers a browser
// sends), and keeps what the comparison charts draw (package chart): the
// error over time, the metrics, and added latency against error p95.
//
// Every variant runs the first variant's scenario: the parameters of the
// "scenario" group (motion, entities, maxSpeed, seed, duration, round) are
// copied from the first, and the comparison lists each value it replaced.
// Rejecting a mismatch instead would refuse most pairs of presets, which
// differ in their scenario as well as in their tuning; the designer wants the
// tuning compared on the same packets. Techniques are not forced: each
// variant runs its own, and the charts show the union.
//
// A variant may replay a recorded trace (engine.RunTraceSeries): entities
// and sendRate are then the trace's, and the run lasts the shorter of
// duration and the trace's span.
package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"interplab/cmd/lab/internal/chart"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// Limits of a comparison.
const (
	MinVariants = 2
	MaxVariants = 8

	// MaxRef bounds the length of one variant ref, in bytes: a q: ref
	// carries a whole share query, a few hundred bytes.
	MaxRef = 4096

	// maxWork bounds the work of one comparison, so that a request
	// cannot hold the cores for long: the sum over variants of frames ×
	// techniques × max(entities, CostEntities), in entity-technique-
	// frames. Measured on the 2-core machine of DESIGN.md, a unit costs
	// 0.3 to 2 µs of CPU, so the bound is 3 to 20 s of CPU. The lab's
	// default settings need 576,000 a variant; 8 of them 4.6e6.
	maxWork = 1e7

	// CostEntities: a run costs at least as much as one of this many
	// entities, for the added-latency metric samples up to 16 entities
	// whatever their number, at a cost above an entity's own.
	CostEntities = 16

	// maxWindows bounds the points of a line in the error-over-time
	// chart.
	maxWindows = 600

	// cacheRuns is how many runs a Runner keeps.
	cacheRuns = 64
)

// MaxTracePackets bounds the packets of the traces one comparison holds,
// each trace counted once however many variants replay it: the largest
// trace, or smaller ones up to as many packets: it bounds what a
// comparison holds, its traces and their replays while they run.
const MaxTracePackets = 200000

// steps are the window widths, in seconds, the error series may use:
// the smallest that gives at most maxWindows windows is chosen.
var steps = []float64{0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60}

// Variant is one contender of a comparison: settings and the label the
// charts show for them, and the trace it replays, if any. The server
// builds it from a ref: a preset, a share query, a saved session or
// revision, or a recorded trace.
type Variant struct {
	Label    string
	Settings engine.Settings

	// TraceName, when not "", names the trace the variant replays
	// (engine.RunTraceSeries), and TraceInfo is what the store keeps of
	// it: Plan checks the comparison's work and the packets it would hold
	// from them, before any trace is loaded. Trace is its packets: loaded
	// by Exec, or given (then TraceName and TraceInfo may be left out).
	TraceName string
	TraceInfo store.TraceInfo
	Trace     *engine.Trace
	TraceKey  string // identifies Trace's content in the run cache; set by Exec
}

// replays reports whether v replays a trace.
func (v *Variant) replays() bool { return v.Trace != nil || v.TraceName != "" }

// traceSize returns the span (s), entities and packets of the trace v
// replays, from the trace when it is loaded, else from its TraceInfo.
func (v *Variant) traceSize() (span float64, entities, packets int) {
	if v.Trace != nil {
		return v.Trace.Span(), v.Trace.Entities, len(v.Trace.Packets)
	}
	return v.TraceInfo.Span, v.TraceInfo.Entities, v.TraceInfo.Packets
}

// Error is a comparison that cannot run because of what was asked.
// Field names the query parameter ("v") or the setting at fault, as in the
// server's JSON errors.
type Error struct {
	Field string
	Err   error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Comparison is the outcome of Runner.Run: what the charts draw (its
// Runs) and the variants as run. Its results are shared with the run
// cache: read them, never modify them.
type Comparison struct {
	chart.Runs
	Variants []Variant // as run: labels made unique, scenario equal to the first's
	Forced   []string  // scenario values replaced by the first variant's, in words
}

// Runner runs comparisons: at most its slots' worth of simulations at
// once, whatever the number of comparisons, and the latest runs kept for
// a comparison asked again (the page's CSV links ask for the one just
// shown). Runs are deterministic functions of their settings, so a kept run
// never goes stale. A Runner is safe for concurrent use.
type Runner struct {
	slots chan struct{}
	cache *lru
}

// NewRunner returns a runner of at most slots simulations at once (at
// least one).
func NewRunner(slots int) *Runner {
	return &Runner{slots: make(chan struct{}, max(1, slots)), cache: newLRU(cacheRuns)}
}

// Variants resolves refs into variants with resolve, which loads no
// trace: 2 to 8 refs of at most MaxRef bytes each; an empty label becomes
// the ref.
func Variants(refs []string, resolve func(ref string) (Variant, error)) ([]Variant, error) {
	if n := len(refs); n < MinVariants || n > MaxVariants {
		return nil, &Error{Field: "v", Err: fmt.Errorf("compare %d variants: want %d to %d refs (v=preset:NAME, v=session:ID...)",
			n, MinVariants, MaxVariants)}
	}
	vs := make([]Variant, len(refs))
	for i, ref := range refs {
		if len(ref) > MaxRef {
			return nil, &Error{Field: "v", Err: fmt.Errorf("variant %d: ref of %d bytes: want at most %d", i+1, len(ref), MaxRef)}
		}
		v, err := resolve(ref)
		if err != nil {
			return nil, &Error{Field: "v", Err: fmt.Errorf("variant %d (%s): %w", i+1, ref, err)}
		}
		if v.Label == "" {
			v.Label = ref
		}
		vs[i] = v
	}
	return vs, nil
}

// Scenario returns the parameters every variant takes from the first.
func Scenario() []*engine.Param {
	var ps []*engine.Param
	for i, p := range engine.Params() {
		if p.Group == "scenario" && p.Kind != engine.Set {
			ps = append(ps, &engine.Params()[i])
		}
	}
	return ps
}

// Run is Plan, then Exec for variants whose traces are given: it checks
// the variants, gives them the first one's scenario, and runs each.
func (r *Runner) Run(ctx context.Context, vs []Variant) (*Comparison, error) {
	c, err := r.Plan(vs)
	if err != nil {
		return nil, err
	}
	if err := r.Exec(ctx, c, nil); err != nil {
		return nil, err
	}
	return c, nil
}

// Plan checks the variants and gives them the first one's scenario,
// loading and running nothing: their number, their settings, the work of
// the comparison (maxWork) and the packets of the traces it would hold
// (MaxTracePackets, each trace counted once), the last two from what the
// store keeps of each trace. A variant that cannot run is reported as an
// *Error naming it. The comparison it returns runs with Exec.
func (r *Runner) Plan(vs []Variant) (*Comparison, error) {
	if n := len(vs); n < MinVariants || n > MaxVariants {
		return nil, &Error{Field: "v", Err: fmt.Errorf("compare %d variants: want %d to %d", n, MinVariants, MaxVariants)}
	}
	first := vs[0].Settings
	first.Techniques = slices.Clone(first.Techniques)
	if err := first.Validate(); err != nil {
		return nil, variantError(0, vs[0].Label, err)
	}
	c := &Comparison{Runs: chart.Runs{Duration: first.Duration, Step: Step(first.Duration)}}
	labels := uniqueLabels(vs)
	ran := make(map[string]bool)
	work := 0.0
	held := make(map[string]int) // packets of each trace held, by name
	for i, v := range vs {
		s := v.Settings
		s.Techniques = slices.Clone(s.Techniques)
		for _, p := range Scenario() {
			if i == 0 || p.Get(&s) == p.Get(&first) || v.replays() && p.Name == "entities" {
				continue
			}
			c.Forced = append(c.Forced, fmt.Sprintf("%s: %s %s → %s", labels[i], p.Name, p.Show(p.Get(&s)), p.Show(p.Get(&first))))
			if err := p.Set(&s, p.Get(&first)); err != nil {
				return nil, variantError(0, vs[0].Label, err) // first was valid: cannot happen
			}
		}
		if err := s.Validate(); err != nil {
			return nil, variantError(i, v.Label, err)
		}
		techs := 0
		for _, t := range engine.TechniqueNames {
			if slices.Contains(s.Techniques, t) {
				ran[t] = true
				techs++
			}
		}
		frames, entities := math.Round(s.Duration*s.RenderRate), s.Entities
		if v.replays() {
			span, ents, packets := v.traceSize()
			frames, entities = math.Round(min(s.Duration, span)*s.RenderRate), ents
			key := v.TraceName
			if key == "" {
				key = fmt.Sprintf("variant %d", i) // a trace given: its own
			}
			held[key] = packets
		}
		work += frames * float64(techs) * float64(max(entities, CostEntities))
		c.Variants = append(c.Variants, Variant{Label: labels[i], Settings: s, TraceName: v.TraceName, TraceInfo: v.TraceInfo,
			Trace: v.Trace, TraceKey: v.TraceKey})
		c.Labels = append(c.Labels, labels[i])
	}
	if work > maxWork {
		return nil, &Error{Field: "entities", Err: fmt.Errorf(
			"compare: the variants need %.3g entity-technique-frames, more than the %.3g a comparison may run: lower entities or duration, or run fewer techniques",
			work, float64(maxWork))}
	}
	packets := 0
	for _, n := range held {
		packets += n
	}
	if packets > MaxTracePackets {
		return nil, &Error{Field: "v", Err: fmt.Errorf(
			"compare: the variants replay %d traces of %d packets in all, more than the %d a comparison may hold: replay fewer or shorter traces (one trace may be replayed by every variant)",
			len(held), packets, MaxTracePackets)}
	}
	c.Techniques = techniqueOrder(first.PrimaryTechnique(), ran)
	return c, nil
}

// Exec loads, with load, the traces the variants of c replay that are not
// loaded yet, each once, keys each trace for the run cache once however many
// variants replay it, and runs the variants (see runAll). A trace that
// changed since Plan read its size is refused.
func (r *Runner) Exec(ctx context.Context, c *Comparison, load func(name string) (*engine.Trace, error)) error {
	loaded := make(map[string]*engine.Trace)
	keys := make(map[*engine.Trace]string) // TraceKey hashes every packet
	for i := range c.Variants {
		v := &c.Variants[i]
		if v.Trace == nil && v.TraceName != "" {
			tr, ok := loaded[v.TraceName]
			if !ok {
				if load == nil {
					return errors.New("compare: a trace variant with no trace and no loader")
				}
				var err error
				if tr, err = load(v.TraceName); err != nil {
					return &Error{Field: "v", Err: fmt.Errorf("variant %d (%s): trace %s: %w", i+1, v.Label, v.TraceName, err)}
				}
				if len(tr.Packets) != v.TraceInfo.Packets {
					return &Error{Field: "v", Err: fmt.Errorf("variant %d (%s): trace %s changed while the comparison started: try again", i+1, v.Label, v.TraceName)}
				}
				loaded[v.TraceName] = tr
			}
			v.Trace = tr
		}
		if v.Trace != nil && v.TraceKey == "" {
			key, ok := keys[v.Trace]
			if !ok {
				key = TraceKey(v.Trace)
				keys[v.Trace] = key
			}
			v.TraceKey = key
		}
	}
	res, err := r.runAll(ctx, c.Variants, c.Step)
	if err != nil {
		return err
	}
	c.Results = res
	return nil
}

// techniqueOrder lists the techniques ran: the library the designer is on
// first (primary, the first variant's Settings.PrimaryTechnique, when it is
// a library's), then the other libraries', then the lab's own, each in
// engine.TechniqueNames order. A Mirror designer's comparison opens on
// mirror, with buffer and epic after it as the comparison they are; one of
// the lab's own techniques keeps the table's order.
func techniqueOrder(primary string, ran map[string]bool) []string {
	var out []string
	if ran[primary] && engine.LibraryTechnique(primary) {
		out = append(out, primary)
	}
	for _, library := range []bool{true, false} {
		for _, t := range engine.TechniqueNames {
			if ran[t] && !slices.Contains(out, t) && engine.LibraryTechnique(t) == library {
				out = append(out, t)
			}
		}
	}
	return out
}

func variantError(i int, label string, err error) error {
	field := "v"
	if fe, ok := errors.AsType[*engine.FieldError](err); ok {
		field = fe.Field
	}
	return &Error{Field: field, Err: fmt.Errorf("variant %d (%s): %w", i+1, label, err)}
}

// uniqueLabels returns the variants' labels, unique: an empty label becomes
// "variant N", a repeated one gets " (2)", " (3)"...
func uniqueLabels(vs []Variant) []string {
	labels := make([]string, len(vs))
	used := make(map[string]bool)
	for i, v := range vs {
		l := v.Label
		if l == "" {
			l = "variant " + strconv.Itoa(i+1)
		}
		u := l
		for n := 2; used[u]; n++ {
			u = fmt.Sprintf("%s (%d)", l, n)
		}
		used[u] = true
		labels[i] = u
	}
	return labels
}

// Step returns the window of the error series for a run of duration
// seconds.
func Step(duration float64) float64 {
	for _, st := range steps {
		if duration/st <= maxWindows {
			return st
		}
	}
	return steps[len(steps)-1]
}

// runAll runs every variant (identical settings once), each on one
// core when a slot is free. A cancelled ctx stops the runs not yet started.
func (r *Runner) runAll(ctx context.Context, vs []Variant, step float64) ([]engine.Result, error) {
	keys := make([]string, len(vs))
	first := make(map[string]int) // key → index of its first variant
	for i, v := range vs {
		keys[i] = Key(v.Settings, step)
		if v.Trace != nil {
			keys[i] = "trace " + v.TraceKey + " " + keys[i]
		}
		if _, ok := first[keys[i]]; !ok {
			first[keys[i]] = i
		}
	}
	res := make([]engine.Result, len(vs))
	errs := make([]error, len(vs))
	var wg sync.WaitGroup
	for i, v := range vs {
		if first[keys[i]] != i {
			continue
		}
		wg.Go(func() {
			if cached, ok := r.cache.get(keys[i]); ok {
				res[i] = cached
				return
			}
			if errs[i] = ctx.Err(); errs[i] != nil {
				return
			}
			select {
			case r.slots <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-r.slots }()
			var run engine.Result
			var err error
			if v.Trace != nil {
				run, err = engine.RunTraceSeries(v.Trace, v.Settings, step)
			} else {
				run, err = engine.RunSeries(v.Settings, step)
			}
			if err != nil {
				errs[i] = variantError(i, v.Label, err)
				return
			}
			r.cache.put(keys[i], run)
			res[i] = run
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i := range vs {
		res[i] = res[first[keys[i]]]
	}
	return res, nil
}

// Refs returns the non-empty v parameters of q, trimmed, in order.
func Refs(q url.Values) []string {
	var refs []string
	for _, v := range q["v"] {
		if v = strings.TrimSpace(v); v != "" {
			refs = append(refs, v)
		}
	}
	return refs
}

// FormRows pads refs with blank rows up to the most variants a
// comparison takes, for the page's form.
func FormRows(refs []string) []string {
	rows := slices.Clone(refs)
	for len(rows) < MaxVariants {
		rows = append(rows, "")
	}
	return rows
}
