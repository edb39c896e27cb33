package compare

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"

	"interplab/engine"
)

// TraceKey identifies tr's packets in the run cache: a stored trace
// deleted and uploaded again under its name is another trace.
func TraceKey(tr *engine.Trace) string {
	h := fnv.New64a()
	var b [8]byte
	for _, x := range tr.AppendFlat(nil) {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	return fmt.Sprintf("%016x", h.Sum64())
}
