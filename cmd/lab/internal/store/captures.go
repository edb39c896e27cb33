package store

import (
	"bytes"
	"compress/flate"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync"
	"time"

	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// Captures are what games stream into a session (package capture, and
// docs/capture-protocol.md): each capture is a row of table captures,
// counting what is durably stored of it, and its batches are rows of
// capture_batches, one compressed block each, written as they arrive, so
// a capture survives a restart up to its last stored batch and its size
// is bounded by the disk, not by memory. Ending a capture turns it into
// an ordinary trace (FinishCapture) and removes these rows, in one
// transaction.
//
// A batch's block is laid out as a trace blob's block (traceblob.go): its
// updates' numbers as little-endian float64s, column by column
// (captureCols columns), DEFLATE-compressed; it is exact.

// Capture is what the store keeps of a capture besides its batches.
type Capture struct {
	ID       string  // the capture's id
	Session  string  // the session it streams into
	Name     string  // the trace it becomes; no trace or other capture has it
	Engine   string  // the game's netcode library
	Version  string  // that library's version
	Client   string  // the client's own name and version; may be empty
	Rate     float64 // capture rate, Hz
	TimeBase string  // "seconds" or "ticks"
	TickRate float64 // Hz, with "ticks"; 0 otherwise
	Created  time.Time
	Batches  int   // batches stored: the last acknowledged batch number
	Updates  int   // updates stored
	Dropped  int   // updates the client reported dropped
	Bytes    int64 // compressed bytes of the stored batches
}

// CaptureUpdate is one entity update of a capture, as the game sent it.
type CaptureUpdate struct {
	ID     uint32 // the game's id of the entity
	Flags  uint8  // CaptureVel, CaptureRot
	Sent   float64
	Arrive float64
	Pos    [3]float64
	Vel    [3]float64 // 0 unless Flags has CaptureVel
	Rot    [4]float64 // 0 unless Flags has CaptureRot
}

// Flags of a CaptureUpdate.
const (
	CaptureVel = 1 // the update carries a velocity
	CaptureRot = 2 // the update carries a rotation
)

// CaptureBatch is a batch of updates on its way to the store.
type CaptureBatch struct {
	Capture string
	Batch   int // the batch number: the capture's stored batches + 1
	Dropped int // the client's running total of dropped updates
	Updates []CaptureUpdate
}

// captureCols are the numbers of an update in a block: id, flags, sent,
// arrive, x, y, z, vx, vy, vz, qx, qy, qz, qw.
const captureCols = 14

// Errors of Captures.
var (
	ErrCaptureNotFound = errors.New("capture not found")
	// ErrCaptureOrder is a batch that is not its capture's next.
	ErrCaptureOrder = errors.New("batch out of order")
)

// CreateCapture stores a new capture c (its counts zero) with a new id.
// A name a trace or another capture has is ErrTraceExists.
func (st *DB) CreateCapture(c Capture) (_ Capture, err error) {
	defer classify(&err)
	if err := traceio.CheckName(c.Name); err != nil {
		return Capture{}, err
	}
	if strings.HasPrefix(c.Name, SamplePrefix) {
		return Capture{}, ErrTraceExists
	}
	id, err := newSessionID(st.Rand)
	if err != nil {
		return Capture{}, err
	}
	c.ID, c.Batches, c.Updates, c.Dropped, c.Bytes = id, 0, 0, 0, 0
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return Capture{}, fmt.Errorf("create capture: %w", err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM traces WHERE name = ?`, c.Name).Scan(&n); err != nil {
		return Capture{}, fmt.Errorf("create capture: %w", err)
	}
	if n > 0 {
		return Capture{}, ErrTraceExists
	}
	res, err := tx.Exec(`INSERT INTO captures (id, session, name, engine, version, client, rate, time_base, tick_rate,
		created_ns, batches, updates, dropped, bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, 0, 0)
		ON CONFLICT (name) DO NOTHING`,
		c.ID, c.Session, c.Name, c.Engine, c.Version, c.Client, c.Rate, c.TimeBase, c.TickRate, c.Created.UnixNano())
	if err != nil {
		return Capture{}, fmt.Errorf("create capture: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return Capture{}, fmt.Errorf("create capture: %w", err)
	} else if n == 0 {
		return Capture{}, ErrTraceExists
	}
	if err := tx.Commit(); err != nil {
		return Capture{}, fmt.Errorf("create capture: %w", err)
	}
	return c, nil
}

const captureColumns = `id, session, name, engine, version, client, rate, time_base, tick_rate, created_ns, batches, updates, dropped, bytes`

func scanCapture(row interface{ Scan(...any) error }) (Capture, error) {
	var c Capture
	var ns int64
	err := row.Scan(&c.ID, &c.Session, &c.Name, &c.Engine, &c.Version, &c.Client, &c.Rate, &c.TimeBase, &c.TickRate,
		&ns, &c.Batches, &c.Updates, &c.Dropped, &c.Bytes)
	c.Created = time.Unix(0, ns).UTC()
	return c, err
}

// Capture returns the open capture id; ErrCaptureNotFound if there is
// none (it never was, or it became a trace).
func (st *DB) Capture(id string) (Capture, error) {
	c, err := scanCapture(st.db.QueryRow(`SELECT `+captureColumns+` FROM captures WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Capture{}, ErrCaptureNotFound
	}
	if err != nil {
		return Capture{}, fmt.Errorf("capture %s: %w", id, err)
	}
	return c, nil
}

// Captures returns session's open captures, oldest first; every open
// capture for session "".
func (st *DB) Captures(session string) ([]Capture, error) {
	rows, err := st.db.Query(`SELECT `+captureColumns+` FROM captures WHERE session = ? OR ? = '' ORDER BY created_ns, id`, session, session)
	if err != nil {
		return nil, fmt.Errorf("list captures: %w", err)
	}
	defer rows.Close()
	var out []Capture
	for rows.Next() {
		c, err := scanCapture(rows)
		if err != nil {
			return nil, fmt.Errorf("list captures: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list captures: %w", err)
	}
	return out, nil
}

// CaptureBytes returns the compressed bytes every open capture holds.
func (st *DB) CaptureBytes() (int64, error) {
	var n sql.NullInt64
	if err := st.db.QueryRow(`SELECT sum(bytes) FROM captures`).Scan(&n); err != nil {
		return 0, fmt.Errorf("capture bytes: %w", err)
	}
	return n.Int64, nil
}

// AppendCaptureBatches stores batches, of any captures, in one
// transaction: every one of them or, on any error, none. Each must be its
// capture's next batch, in order (ErrCaptureOrder otherwise). It returns
// the compressed bytes each took.
func (st *DB) AppendCaptureBatches(batches []CaptureBatch) (_ []int64, err error) {
	defer classify(&err)
	blobs := make([][]byte, len(batches))
	sizes := make([]int64, len(batches))
	for i, b := range batches {
		if len(b.Updates) == 0 {
			return nil, fmt.Errorf("capture %s: batch %d: no updates", b.Capture, b.Batch)
		}
		if blobs[i], err = encodeCaptureBlock(b.Updates); err != nil {
			return nil, fmt.Errorf("capture %s: batch %d: %w", b.Capture, b.Batch, err)
		}
		sizes[i] = int64(len(blobs[i]))
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return nil, fmt.Errorf("store capture batches: %w", err)
	}
	defer tx.Rollback()
	for i, b := range batches {
		res, err := tx.Exec(`UPDATE captures SET batches = batches + 1, updates = updates + ?, dropped = ?, bytes = bytes + ?
			WHERE id = ? AND batches = ?`, len(b.Updates), b.Dropped, sizes[i], b.Capture, b.Batch-1)
		if err != nil {
			return nil, fmt.Errorf("capture %s: batch %d: %w", b.Capture, b.Batch, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return nil, fmt.Errorf("capture %s: batch %d: %w", b.Capture, b.Batch, err)
		} else if n == 0 {
			return nil, fmt.Errorf("capture %s: batch %d: %w", b.Capture, b.Batch, ErrCaptureOrder)
		}
		if _, err := tx.Exec(`INSERT INTO capture_batches (capture, batch, updates, data) VALUES (?, ?, ?, ?)`,
			b.Capture, b.Batch, len(b.Updates), blobs[i]); err != nil {
			return nil, fmt.Errorf("capture %s: batch %d: %w", b.Capture, b.Batch, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("store capture batches: %w", err)
	}
	return sizes, nil
}

// SetCaptureDropped records the client's final count of dropped updates.
func (st *DB) SetCaptureDropped(id string, dropped int) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, err := st.db.Exec(`UPDATE captures SET dropped = ? WHERE id = ?`, dropped, id); err != nil {
		return fmt.Errorf("capture %s: %w", id, err)
	}
	return nil
}

// CaptureUpdates calls fn with each stored update of capture id, batch by
// batch in order, holding one batch at a time.
func (st *DB) CaptureUpdates(id string, fn func(CaptureUpdate) error) error {
	var batches int
	if err := st.db.QueryRow(`SELECT batches FROM captures WHERE id = ?`, id).Scan(&batches); errors.Is(err, sql.ErrNoRows) {
		return ErrCaptureNotFound
	} else if err != nil {
		return fmt.Errorf("capture %s: %w", id, err)
	}
	var us []CaptureUpdate
	for b := 1; b <= batches; b++ {
		var n int
		var blob []byte
		if err := st.db.QueryRow(`SELECT updates, data FROM capture_batches WHERE capture = ? AND batch = ?`, id, b).Scan(&n, &blob); err != nil {
			return fmt.Errorf("capture %s: batch %d: %w", id, b, err)
		}
		var err error
		if us, err = decodeCaptureBlock(blob, n, us[:0]); err != nil {
			return fmt.Errorf("capture %s: batch %d: %w", id, b, err)
		}
		for _, u := range us {
			if err := fn(u); err != nil {
				return err
			}
		}
	}
	return nil
}

// FinishCapture saves tr, made from capture id's updates, as a trace in
// format and removes the capture, in one transaction: afterwards there is
// the trace or, on any error, still the capture.
func (st *DB) FinishCapture(id string, tr *engine.Trace, format string, now time.Time) (_ TraceInfo, err error) {
	defer classify(&err)
	if err := tr.Validate(); err != nil {
		return TraceInfo{}, err
	}
	blob, err := encodeTraceBlob(tr)
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	}
	info := traceInfo(tr, format, now)
	network, err := json.Marshal(info.Network)
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	tx, err := st.db.Begin()
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	}
	defer tx.Rollback()
	res, err := tx.Exec(`DELETE FROM captures WHERE id = ?`, id)
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	} else if n == 0 {
		return TraceInfo{}, ErrCaptureNotFound
	}
	if _, err := tx.Exec(`DELETE FROM capture_batches WHERE capture = ?`, id); err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	}
	res, err = tx.Exec(`INSERT INTO traces (name, created_ns, format, packets, entities, span, data, network, max_speed)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
		info.Name, now.UnixNano(), format, info.Packets, info.Entities, info.Span, blob, string(network), info.MaxSpeed)
	if err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	} else if n == 0 {
		return TraceInfo{}, ErrTraceExists
	}
	if err := tx.Commit(); err != nil {
		return TraceInfo{}, fmt.Errorf("save capture %s: %w", id, err)
	}
	return info, nil
}

// encodeCaptureBlock returns us as a compressed block.
func encodeCaptureBlock(us []CaptureUpdate) ([]byte, error) {
	raw := make([]byte, 0, 8*captureCols*len(us))
	col := func(f func(*CaptureUpdate) float64) {
		for i := range us {
			raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(f(&us[i])))
		}
	}
	col(func(u *CaptureUpdate) float64 { return float64(u.ID) })
	col(func(u *CaptureUpdate) float64 { return float64(u.Flags) })
	col(func(u *CaptureUpdate) float64 { return u.Sent })
	col(func(u *CaptureUpdate) float64 { return u.Arrive })
	for k := range 3 {
		col(func(u *CaptureUpdate) float64 { return u.Pos[k] })
	}
	for k := range 3 {
		col(func(u *CaptureUpdate) float64 { return u.Vel[k] })
	}
	for k := range 4 {
		col(func(u *CaptureUpdate) float64 { return u.Rot[k] })
	}
	var buf bytes.Buffer
	w, _ := captureWriters.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriter(&buf, flate.BestSpeed); err != nil {
			return nil, err
		}
	} else {
		w.Reset(&buf)
	}
	defer captureWriters.Put(w)
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// captureWriters are DEFLATE writers for batches: a writer holds about
// 1 MiB, which a lab storing 80 batches a second would otherwise
// allocate, and collect, 80 times a second.
var captureWriters sync.Pool

// decodeCaptureBlock appends blob's n updates to dst.
func decodeCaptureBlock(blob []byte, n int, dst []CaptureUpdate) ([]CaptureUpdate, error) {
	if n < 1 || n > 1<<20 {
		return nil, fmt.Errorf("%d updates", n)
	}
	raw := make([]byte, 8*captureCols*n)
	zr := flate.NewReader(bytes.NewReader(blob))
	if _, err := io.ReadFull(zr, raw); err != nil {
		return nil, fmt.Errorf("updates: %w", noEOF(err))
	}
	if m, _ := zr.Read(make([]byte, 1)); m != 0 {
		return nil, errors.New("updates: longer than listed")
	}
	start := len(dst)
	dst = append(dst, make([]CaptureUpdate, n)...)
	us := dst[start:]
	c := 0
	col := func(f func(*CaptureUpdate, float64)) {
		for i := range us {
			f(&us[i], math.Float64frombits(binary.LittleEndian.Uint64(raw[8*(c*n+i):])))
		}
		c++
	}
	col(func(u *CaptureUpdate, v float64) { u.ID = uint32(v) })
	col(func(u *CaptureUpdate, v float64) { u.Flags = uint8(v) })
	col(func(u *CaptureUpdate, v float64) { u.Sent = v })
	col(func(u *CaptureUpdate, v float64) { u.Arrive = v })
	for k := range 3 {
		col(func(u *CaptureUpdate, v float64) { u.Pos[k] = v })
	}
	for k := range 3 {
		col(func(u *CaptureUpdate, v float64) { u.Vel[k] = v })
	}
	for k := range 4 {
		col(func(u *CaptureUpdate, v float64) { u.Rot[k] = v })
	}
	return dst, nil
}
