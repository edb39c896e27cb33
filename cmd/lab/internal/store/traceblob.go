package store

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"interplab/engine"
)

// A trace's packets are stored as one DEFLATE-compressed blob of the
// engine's flat encoding (engine.TraceFlatHeader numbers, then
// engine.TraceFlatStride per packet) as little-endian float64s, written
// column by column: every packet's entity, then every packet's seq, and
// so on. Columns compress far better than rows: ids, sequence numbers and
// times are nearly arithmetic, and a missing orientation is the same four
// numbers every time. It is exact: a trace loads bit for bit as it was
// saved.
//
// Layout 2, written since the reads were streamed, starts with the eight
// bytes blobMagic and groups the packets in blocks of blobBlock, each
// block column by column, so a reader turns one block at a time into
// rows: it holds the compressed blob and one block, never the trace.
// DEFLATE looks back 32 KiB at most, so blocks of 4,096 packets (a column
// of a block is 32 KiB) compress as well as whole columns.
//
// Layout 1, written before, holds whole columns and starts with the
// header's version (engine.TraceFlatVersion as a float64, never
// blobMagic); reading it holds every column at once. Step 11 of the
// schema rewrites such blobs in layout 2 (reblockTraces), in a database
// or a restored backup alike; the reader still takes both.

// blobBlock is the packets of a block of layout 2.
const blobBlock = 4096

// blobMagic starts a blob of layout 2.
var blobMagic = [8]byte{'t', 'r', 'a', 'c', 'e', '/', 'v', '2'}

// blobMost bounds the bytes of a blob's flat encoding.
const blobMost = 8 * (len(blobMagic)/8 + engine.TraceFlatHeader + engine.TraceMaxPackets*engine.TraceFlatStride)

// encodeTraceBlob returns tr's blob, in layout 2: a block at a time, so
// encoding holds one block besides the trace and the compressed output.
func encodeTraceBlob(tr *engine.Trace) ([]byte, error) {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, flate.DefaultCompression)
	if err != nil {
		return nil, err
	}
	n := len(tr.Packets)
	raw := append(make([]byte, 0, 8*engine.TraceFlatStride*min(n, blobBlock)), blobMagic[:]...)
	for _, v := range []float64{engine.TraceFlatVersion, float64(tr.Entities), float64(n)} {
		raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(v))
	}
	var flat []float64
	for start := 0; start < n; start += blobBlock {
		block := engine.Trace{Entities: tr.Entities, Packets: tr.Packets[start:min(n, start+blobBlock)]}
		flat = block.AppendFlat(flat[:0])
		rows, b := flat[engine.TraceFlatHeader:], len(block.Packets)
		for c := range engine.TraceFlatStride {
			for i := range b {
				raw = binary.LittleEndian.AppendUint64(raw, math.Float64bits(rows[i*engine.TraceFlatStride+c]))
			}
		}
		if _, err := w.Write(raw); err != nil {
			return nil, err
		}
		raw = raw[:0]
	}
	if _, err := w.Write(raw); err != nil { // a trace of no packets: the header
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// flatReader reads a blob as the flat encoding's little-endian bytes, in
// rows, a block at a time as its caller reads.
type flatReader struct {
	zr       io.Reader // the decompressed blob
	entities int
	packets  int
	block    int    // packets of a block: blobBlock, or every packet in layout 1
	done     int    // packets turned into rows
	cols     []byte // the block being read, as stored
	out      []byte // rows not yet read
	rows     []byte // out's storage
	err      error  // sticky
}

// newFlatReader opens blob and reads its header: a blob that does not
// start like a trace is an error at once, a blob damaged further on an
// error of Read.
func newFlatReader(blob []byte) (*flatReader, error) {
	zr := io.LimitReader(flate.NewReader(bytes.NewReader(blob)), int64(blobMost)+1)
	var head [8 * (1 + engine.TraceFlatHeader)]byte
	if _, err := io.ReadFull(zr, head[:8]); err != nil {
		return nil, fmt.Errorf("packets: %w", noEOF(err))
	}
	layout2 := bytes.Equal(head[:8], blobMagic[:])
	if layout2 {
		if _, err := io.ReadFull(zr, head[8:]); err != nil {
			return nil, fmt.Errorf("packets: %w", noEOF(err))
		}
	} else if _, err := io.ReadFull(zr, head[8:8*engine.TraceFlatHeader]); err != nil {
		return nil, fmt.Errorf("packets: %w", noEOF(err))
	}
	h := head[:8*engine.TraceFlatHeader]
	if layout2 {
		h = head[8:]
	}
	num := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(h[8*i:])) }
	version, ent, n := num(0), num(1), num(2)
	if version != engine.TraceFlatVersion || !(ent >= 1 && ent <= engine.TraceMaxEntities && ent == math.Trunc(ent)) ||
		!(n >= 0 && n <= engine.TraceMaxPackets && n == math.Trunc(n)) {
		return nil, fmt.Errorf("packets: header %v, %v, %v is not a trace's", version, ent, n)
	}
	r := &flatReader{zr: zr, entities: int(ent), packets: int(n), block: blobBlock}
	r.rows = append(make([]byte, 0, 8*engine.TraceFlatStride*min(r.packets, blobBlock)), h...)
	r.out = r.rows
	if !layout2 {
		r.block = r.packets // whole columns
	}
	return r, nil
}

// noEOF reports a blob that ends early as io.ErrUnexpectedEOF.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Read reads the flat encoding's bytes.
func (r *flatReader) Read(p []byte) (int, error) {
	for len(r.out) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.err = r.next()
	}
	n := copy(p, r.out)
	r.out = r.out[n:]
	return n, nil
}

// next turns the next block into rows; io.EOF after the last, when the
// blob ends there.
func (r *flatReader) next() error {
	const stride = engine.TraceFlatStride
	if r.done == r.packets {
		var one [1]byte
		if n, err := io.ReadFull(r.zr, one[:]); n > 0 || !errors.Is(err, io.EOF) {
			if err == nil || errors.Is(err, io.ErrUnexpectedEOF) {
				err = errors.New("data after the last packet")
			}
			return fmt.Errorf("packets: %w", err)
		}
		return io.EOF
	}
	b := min(r.block, r.packets-r.done)
	if cap(r.cols) < 8*stride*b {
		r.cols = make([]byte, 8*stride*b)
	}
	cols := r.cols[:8*stride*b]
	if _, err := io.ReadFull(r.zr, cols); err != nil {
		return fmt.Errorf("packets %d to %d of %d: %w", r.done, r.done+b, r.packets, noEOF(err))
	}
	if cap(r.rows) < len(cols) {
		r.rows = make([]byte, len(cols))
	}
	rows := r.rows[:len(cols)]
	for c := range stride {
		col := cols[8*c*b:]
		for i := range b {
			copy(rows[8*(i*stride+c):][:8], col[8*i:][:8])
		}
	}
	r.out = rows
	r.done += b
	return nil
}

// decodeTraceBlob reads a blob of either layout into a validated trace.
// It holds the flat numbers and the trace, and one block of the blob.
func decodeTraceBlob(blob []byte) (*engine.Trace, error) {
	r, err := newFlatReader(blob)
	if err != nil {
		return nil, err
	}
	flat := make([]float64, engine.TraceFlatHeader+r.packets*engine.TraceFlatStride)
	buf := make([]byte, 32<<10)
	for i := 0; i < len(flat); {
		chunk := buf[:8*min(len(buf)/8, len(flat)-i)]
		if _, err := io.ReadFull(r, chunk); err != nil {
			return nil, noEOF(err)
		}
		for k := 0; k < len(chunk); k += 8 {
			flat[i] = math.Float64frombits(binary.LittleEndian.Uint64(chunk[k:]))
			i++
		}
	}
	if _, err := r.Read(buf[:1]); !errors.Is(err, io.EOF) {
		if err == nil {
			err = errors.New("packets: data after the last packet")
		}
		return nil, err
	}
	return engine.TraceFromFlat(flat)
}

// reblockTraces rewrites every stored trace of layout 1 in layout 2, one
// trace at a time, its packets bit for bit the same (the rewrite is checked
// by reading it back). A trace whose blob does not decode is left as it
// is: reading it says why, as before.
func reblockTraces(tx sqlTx) error {
	names, err := scanNames(tx.Query(`SELECT name FROM traces`))
	if err != nil {
		return fmt.Errorf("traces: %w", err)
	}
	for _, n := range names {
		var blob []byte
		if err := tx.QueryRow(`SELECT data FROM traces WHERE name = ?`, n).Scan(&blob); err != nil {
			return fmt.Errorf("trace %s: %w", n, err)
		}
		if !blobLayout1(blob) {
			continue
		}
		tr, err := decodeTraceBlob(blob)
		if err != nil {
			continue // damaged: kept as it is
		}
		re, err := encodeTraceBlob(tr)
		if err != nil {
			return fmt.Errorf("trace %s: %w", n, err)
		}
		if back, err := decodeTraceBlob(re); err != nil || !sameFlat(back, tr) {
			return fmt.Errorf("trace %s: its blocks do not read back as its packets (%v)", n, err)
		}
		if _, err := tx.Exec(`UPDATE traces SET data = ? WHERE name = ?`, re, n); err != nil {
			return fmt.Errorf("trace %s: %w", n, err)
		}
	}
	return nil
}

// blobLayout1 tells whether blob is a trace of layout 1: one that starts
// like a trace's blob, but not with blobMagic.
func blobLayout1(blob []byte) bool {
	var head [8]byte
	if _, err := io.ReadFull(flate.NewReader(bytes.NewReader(blob)), head[:]); err != nil {
		return false
	}
	return !bytes.Equal(head[:], blobMagic[:])
}

// sameFlat tells whether a and b have the same flat encoding, bit for bit.
func sameFlat(a, b *engine.Trace) bool {
	fa, fb := a.AppendFlat(nil), b.AppendFlat(nil)
	if len(fa) != len(fb) {
		return false
	}
	for i := range fa {
		if math.Float64bits(fa[i]) != math.Float64bits(fb[i]) {
			return false
		}
	}
	return true
}
