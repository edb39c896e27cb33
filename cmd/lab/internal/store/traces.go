package store

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"strings"
	"time"

	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// Traces live in the sessions database, table traces (migration step 2):
// one row per trace, named by its name, with what a list shows of it and
// the packets as one compressed blob (see traceblob.go).
//
// The built-in sample traces (presets.TraceSamples) are listed and loaded
// beside the stored ones; their names are reserved.

// traceInfo describes tr as saved in format at now.
func traceInfo(tr *engine.Trace, format string, now time.Time) TraceInfo {
	return TraceInfo{Name: tr.Name, Format: format, Created: now, Packets: len(tr.Packets),
		Entities: tr.Entities, Span: tr.Span(), Network: tr.Network(), MaxSpeed: tr.MaxSpeed()}
}

// SaveTrace stores the valid trace tr under tr.Name in one transaction: all
// of it or, on any error, nothing. A name in use is ErrTraceExists; names
// starting with "sample-" are kept for the samples.
func (st *DB) SaveTrace(tr *engine.Trace, format string, now time.Time) (_ TraceInfo, err error) {
	defer classify(&err)
	if err := traceio.CheckName(tr.Name); err != nil {
		return TraceInfo{}, err
	}
	if err := tr.Validate(); err != nil {
		return TraceInfo{}, err
	}
	if strings.HasPrefix(tr.Name, SamplePrefix) {
		return TraceInfo{}, &engine.FieldError{Field: "name", Value: tr.Name,
			Allowed: "a name not starting with " + SamplePrefix + ", kept for the built-in samples"}
	}
	blob, err := encodeTraceBlob(tr)
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save trace %s: %w", tr.Name, err)
	}
	info := traceInfo(tr, format, now)
	network, err := json.Marshal(info.Network)
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save trace %s: %w", tr.Name, err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save trace %s: %w", tr.Name, err)
	}
	defer tx.Rollback()
	res, err := tx.Exec(`INSERT INTO traces (name, created_ns, format, packets, entities, span, data, network, max_speed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		info.Name, now.UnixNano(), format, info.Packets, info.Entities, info.Span, blob, string(network), info.MaxSpeed)
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save trace %s: %w", tr.Name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return TraceInfo{}, fmt.Errorf("save trace %s: %w", tr.Name, err)
	} else if n == 0 {
		return TraceInfo{}, ErrTraceExists
	}
	if err := tx.Commit(); err != nil {
		return TraceInfo{}, fmt.Errorf("save trace %s: %w", tr.Name, err)
	}
	return info, nil
}

// ListTraces returns the sample traces, then the stored ones, newest first.
func (st *DB) ListTraces() ([]TraceInfo, error) {
	list := []TraceInfo{}
	samples, err := st.samples.all()
	if err != nil {
		return nil, err
	}
	for _, s := range samples {
		list = append(list, s.info)
	}
	rows, err := st.db.Query(`SELECT name, created_ns, format, packets, entities, span, network, max_speed FROM traces
		ORDER BY created_ns DESC, name`)
	if err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var t TraceInfo
		var ns int64
		var network sql.NullString
		var maxSpeed sql.NullFloat64
		if err := rows.Scan(&t.Name, &ns, &t.Format, &t.Packets, &t.Entities, &t.Span, &network, &maxSpeed); err != nil {
			return nil, fmt.Errorf("list traces: %w", err)
		}
		t.Created = time.Unix(0, ns).UTC()
		if err := t.setMeasures(network, maxSpeed); err != nil {
			return nil, fmt.Errorf("list traces: %s: %w", t.Name, err)
		}
		list = append(list, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list traces: %w", err)
	}
	return list, nil
}

// LoadTrace returns the sample or stored trace called name.
func (st *DB) LoadTrace(name string) (TraceInfo, *engine.Trace, error) {
	if s, ok, err := st.sample(name); ok || err != nil {
		if err != nil {
			return TraceInfo{}, nil, err
		}
		tr := *s.trace
		tr.Packets = append([]engine.TracePacket(nil), s.trace.Packets...) // the caller may change it
		return s.info, &tr, nil
	}
	t, blob, err := st.traceRow(name, true)
	if err != nil {
		return TraceInfo{}, nil, err
	}
	tr, err := decodeTraceBlob(blob)
	if err == nil && (len(tr.Packets) != t.Packets || tr.Entities != t.Entities) {
		err = fmt.Errorf("packets: %d of %d entities, listed as %d of %d", len(tr.Packets), tr.Entities, t.Packets, t.Entities)
	}
	if err != nil {
		return TraceInfo{}, nil, fmt.Errorf("load trace %s: %w", name, err)
	}
	tr.Name = t.Name
	if !t.measured {
		t.Network, t.MaxSpeed = tr.Network(), tr.MaxSpeed()
	}
	return t.TraceInfo, tr, nil
}

// TraceInfo returns what the store keeps of the sample or stored trace
// called name besides its packets: nothing is decoded. A trace whose
// measures are missing (its packets are damaged, see measureOldTraces)
// has a zero Network.
func (st *DB) TraceInfo(name string) (TraceInfo, error) {
	if s, ok, err := st.sample(name); ok || err != nil {
		return s.info, err
	}
	t, _, err := st.traceRow(name, false)
	return t.TraceInfo, err
}

// TraceFlat returns the sample or stored trace called name's metadata and
// its flat encoding (engine.AppendFlat's numbers as little-endian
// float64s), read from the compressed packets a block at a time as the
// caller reads: it holds them and one block, not the trace. A trace whose
// packets turn out damaged is an error of Read, before its last byte.
func (st *DB) TraceFlat(name string) (TraceInfo, io.Reader, error) {
	if s, ok, err := st.sample(name); ok || err != nil {
		if err != nil {
			return TraceInfo{}, nil, err
		}
		var b []byte
		for _, v := range s.trace.AppendFlat(nil) {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		return s.info, bytes.NewReader(b), nil
	}
	t, blob, err := st.traceRow(name, true)
	if err != nil {
		return TraceInfo{}, nil, err
	}
	r, err := newFlatReader(blob)
	if err == nil && (r.packets != t.Packets || r.entities != t.Entities) {
		err = fmt.Errorf("packets: %d of %d entities, listed as %d of %d", r.packets, r.entities, t.Packets, t.Entities)
	}
	if err != nil {
		return TraceInfo{}, nil, fmt.Errorf("load trace %s: %w", name, err)
	}
	return t.TraceInfo, r, nil
}

// sample returns the sample called name, if it is one; ok with an error
// when the samples cannot be read.
func (st *DB) sample(name string) (_ sampleEntry, ok bool, _ error) {
	if err := traceio.CheckName(name); err != nil {
		return sampleEntry{}, false, err
	}
	s, ok := st.samples.find(name)
	if ok && s.err != nil {
		return sampleEntry{}, true, s.err
	}
	return s, ok, nil
}

// storedTrace is a stored trace's row: its TraceInfo, and whether its
// measures were kept.
type storedTrace struct {
	TraceInfo
	measured bool
}

// traceRow reads the row of the stored trace called name, with its blob
// if withData.
func (st *DB) traceRow(name string, withData bool) (storedTrace, []byte, error) {
	var t storedTrace
	var ns int64
	var blob []byte
	var network sql.NullString
	var maxSpeed sql.NullFloat64
	data := "NULL"
	if withData {
		data = "data"
	}
	err := st.db.QueryRow(`SELECT name, created_ns, format, packets, entities, span, `+data+`, network, max_speed FROM traces WHERE name = ?`, name).
		Scan(&t.Name, &ns, &t.Format, &t.Packets, &t.Entities, &t.Span, &blob, &network, &maxSpeed)
	if errors.Is(err, sql.ErrNoRows) {
		return storedTrace{}, nil, ErrTraceNotFound
	}
	if err != nil {
		return storedTrace{}, nil, fmt.Errorf("load trace %s: %w", name, err)
	}
	t.Created = time.Unix(0, ns).UTC()
	t.measured = network.Valid
	if err := t.setMeasures(network, maxSpeed); err != nil {
		return storedTrace{}, nil, fmt.Errorf("load trace %s: %w", name, err)
	}
	return t, blob, nil
}

// setMeasures sets t's network and max speed from their columns; a trace
// that could not be measured (its packets are damaged) has none.
func (t *TraceInfo) setMeasures(network sql.NullString, maxSpeed sql.NullFloat64) error {
	if !network.Valid {
		return nil
	}
	if err := json.Unmarshal([]byte(network.String), &t.Network); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	t.MaxSpeed = maxSpeed.Float64
	return nil
}

// measureOldTraces fills in the network and max speed of the traces saved
// before they were kept (migration step 3), decoding each once.
func (st *DB) measureOldTraces() error {
	names, err := scanNames(st.db.Query(`SELECT name FROM traces WHERE network IS NULL`))
	if err != nil {
		return fmt.Errorf("measure traces: %w", err)
	}
	for _, n := range names {
		t, _, err := st.LoadTrace(n)
		if err != nil {
			// A damaged trace stays unmeasured; loading it says why.
			log.Printf("lab: store: cannot measure trace %s: %v", n, err)
			continue
		}
		network, err := json.Marshal(t.Network)
		if err != nil {
			return fmt.Errorf("measure trace %s: %w", n, err)
		}
		st.mu.Lock()
		_, err = st.db.Exec(`UPDATE traces SET network = ?, max_speed = ? WHERE name = ?`, string(network), t.MaxSpeed, n)
		st.mu.Unlock()
		if err != nil {
			return fmt.Errorf("measure trace %s: %w", n, err)
		}
	}
	return nil
}

// scanNames returns the names a query of one text column gave, closing
// its rows.
func scanNames(rows *sql.Rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		names = append(names, n)
	}
	return names, rows.Err()
}

// DeleteTrace removes the stored trace called name for good.
func (st *DB) DeleteTrace(name string) (err error) {
	defer classify(&err)
	if err := traceio.CheckName(name); err != nil {
		return err
	}
	if _, ok := st.samples.find(name); ok {
		return ErrTraceSample
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	res, err := st.db.Exec(`DELETE FROM traces WHERE name = ?`, name)
	if err != nil {
		return fmt.Errorf("delete trace %s: %w", name, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("delete trace %s: %w", name, err)
	} else if n == 0 {
		return ErrTraceNotFound
	}
	return nil
}
