package technique

// CopySnapshot sets *dst to *src, field by field and element by element.
//
// A batch's per-entity loops copy this way rather than by assignment: in
// Go's WebAssembly a struct or array of more than 16 bytes assigned whole
// (a Vec3 is 24, a Quat 32, a Snapshot 88) becomes a memory.copy, which V8
// runs as a call out of the module, dearer than the copy itself; element
// by element it is a load and a store each. The values are the same bits.
func CopySnapshot(dst, src *Snapshot) {
	dst.Time = src.Time
	dst.Pos[0], dst.Pos[1], dst.Pos[2] = src.Pos[0], src.Pos[1], src.Pos[2]
	dst.Vel[0], dst.Vel[1], dst.Vel[2] = src.Vel[0], src.Vel[1], src.Vel[2]
	dst.Rot[0], dst.Rot[1], dst.Rot[2], dst.Rot[3] = src.Rot[0], src.Rot[1], src.Rot[2], src.Rot[3]
}
