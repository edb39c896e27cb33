package fit

import (
	"unsafe"

	"interplab/engine"
)

// sizeofPacket is the bytes of one trace row in memory.
const sizeofPacket = unsafe.Sizeof(engine.TracePacket{})
