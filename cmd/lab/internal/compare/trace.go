package compare

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"interplab/engine"
)

// TraceKey identifies tr's packets in the run cache: a stored trace
// deleted and uploaded again under its name is another trace. It hashes
// the flat encoding a block of packets at a time, never a copy of the
// whole trace.
func TraceKey(tr *engine.Trace) string {
	const block = 1024
	h := fnv.New64a()
	var b [8]byte
	var flat []float64
	word := func(x float64) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	word(float64(tr.Entities))
	word(float64(len(tr.Packets)))
	for start := 0; start < len(tr.Packets); start += block {
		part := engine.Trace{Entities: tr.Entities, Packets: tr.Packets[start:min(len(tr.Packets), start+block)]}
		flat = part.AppendFlat(flat[:0])
		for _, x := range flat[engine.TraceFlatHeader:] {
			word(x)
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
