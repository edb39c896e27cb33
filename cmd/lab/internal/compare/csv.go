package compare

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"interplab/engine"
)

// The charts whose data WriteCSV writes.
const (
	CSVError   = "error"   // RMS position error per window, one column per variant × technique
	CSVMetrics = "metrics" // every metric, one row per variant × technique
	CSVLatency = "latency" // added latency and error p95, one row per variant × technique
)

// WriteCSV writes the data of one chart of c as CSV, in SI units (m,
// s, fractions: the JSON's), each column's unit in its header.
func WriteCSV(w io.Writer, c *Comparison, chart string) error {
	cw := csv.NewWriter(w)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch chart {
	case CSVError:
		head := []string{"start (s)", "end (s)"}
		var cols []*engine.TechniqueResult
		windows := 0
		for _, t := range c.Techniques {
			for i, v := range c.Variants {
				if tr := c.Technique(i, t); tr != nil {
					head = append(head, csvText(v.Label+" / "+t+" (m)"))
					cols = append(cols, tr)
					windows = max(windows, len(tr.Series))
				}
			}
		}
		cw.Write(head)
		for wi := range windows {
			start, end := c.Window(wi)
			row := []string{num(start), num(end)}
			for _, tr := range cols {
				cell := ""
				if wi < len(tr.Series) {
					cell = num(tr.Series[wi])
				}
				row = append(row, cell)
			}
			cw.Write(row)
		}
	case CSVMetrics:
		head := []string{"variant", "technique", "frames (count)"}
		for _, f := range engine.MetricFields {
			head = append(head, f.Name+" ("+f.Unit+")")
		}
		cw.Write(head)
		var vals []float64
		for i, v := range c.Variants {
			for _, tr := range c.Results[i].Techniques {
				row := []string{csvText(v.Label), tr.Name, strconv.Itoa(tr.Metrics.Frames)}
				vals = tr.Metrics.Values(vals[:0])
				for _, x := range vals {
					row = append(row, num(x))
				}
				cw.Write(row)
			}
		}
	case CSVLatency:
		cw.Write([]string{"variant", "technique", "addedLatency (s)", "errP95 (m)"})
		for i, v := range c.Variants {
			for _, tr := range c.Results[i].Techniques {
				cw.Write([]string{csvText(v.Label), tr.Name, num(tr.Metrics.AddedLatency), num(tr.Metrics.ErrP95)})
			}
		}
	default:
		return &Error{Field: "chart", Err: fmt.Errorf("chart = %q: want %s, %s or %s", chart,
			CSVError, CSVMetrics, CSVLatency)}
	}
	cw.Flush()
	return cw.Error()
}

// csvText defuses a label a spreadsheet would run as a formula (a
// session name is the user's text): it gets a leading apostrophe.
func csvText(s string) string {
	if s != "" && (s[0] == '=' || s[0] == '+' || s[0] == '-' || s[0] == '@' || s[0] == '\t' || s[0] == '\r') {
		return "'" + s
	}
	return s
}
