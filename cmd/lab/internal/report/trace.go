package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// A trace as the traces API and lab trace show -json describe it.

// TraceInfoJSON is a trace in GET /api/traces.
type TraceInfoJSON struct {
	Name     string     `json:"name"`
	Format   string     `json:"format"`
	Created  *time.Time `json:"created,omitempty"` // absent for a sample
	Packets  int        `json:"packets"`
	Entities int        `json:"entities"`
	Span     float64    `json:"span"` // s
	Sample   bool       `json:"sample"`
	Title    string     `json:"title,omitempty"`
	Doc      string     `json:"doc,omitempty"`
}

// TraceJSON is one trace in GET /api/traces/{name}: its metadata, the
// network derived from it, and the settings to replay it with.
type TraceJSON struct {
	TraceInfoJSON
	MaxSpeed float64                `json:"maxSpeed"` // largest recorded speed, m/s
	Network  engine.NetworkEstimate `json:"network"`
	// Settings are engine.Defaults with the derived network and maxSpeed:
	// the starting point of `lab trace sim`. Set names what they replaced.
	Settings engine.Settings `json:"settings"`
	Set      []string        `json:"set"`
}

// TraceInfoOf is t as GET /api/traces lists it.
func TraceInfoOf(t store.TraceInfo) TraceInfoJSON {
	out := TraceInfoJSON{Name: t.Name, Format: t.Format, Packets: t.Packets, Entities: t.Entities,
		Span: t.Span, Sample: t.Sample, Title: t.Title, Doc: t.Doc}
	if !t.Sample {
		out.Created = &t.Created
	}
	return out
}

// DescribeTrace is trace tr with its metadata t as GET /api/traces/{name}
// answers it, and lab trace show -json prints it.
func DescribeTrace(t store.TraceInfo, tr *engine.Trace) TraceJSON {
	t.Network, t.MaxSpeed = tr.Network(), tr.MaxSpeed()
	return DescribeTraceInfo(t)
}

// DescribeTraceInfo is DescribeTrace from the measures the store keeps
// with a trace (t.Network and t.MaxSpeed), without its packets.
func DescribeTraceInfo(t store.TraceInfo) TraceJSON {
	s, names := traceio.SettingsFrom(t.Network, t.MaxSpeed, engine.Defaults())
	return TraceJSON{TraceInfoJSON: TraceInfoOf(t), MaxSpeed: t.MaxSpeed, Network: t.Network, Settings: s, Set: names}
}

// TraceReplay prints a replay of the trace called name, as lab trace sim
// does: what was replayed, what the replay ignores, and the metrics.
func TraceReplay(w io.Writer, name string, res engine.Result) error {
	r := res.Settings
	fmt.Fprintf(w, "trace %s: %d entities, %s s replayed at %g Hz render (sends at %g Hz, from the trace)\n",
		name, r.Entities, Short(r.Duration), r.RenderRate, r.SendRate)
	fmt.Fprintf(w, "ignored for the packets (they shape only the clock's pings): %s; unused: %s\n\n",
		strings.Join(engine.ReplayPingOnly, ", "), strings.Join(engine.ReplayUnused, ", "))
	return MetricsTable(w, res)
}
