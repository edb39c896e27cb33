package technique

import (
	"testing"

	"interplab/engine/geom"
)

// TestCopySnapshot checks that CopySnapshot copies every field over what
// the destination held.
func TestCopySnapshot(t *testing.T) {
	src := Snapshot{Time: 1, Pos: geom.Vec3{2, 3, 4}, Vel: geom.Vec3{5, 6, 7}, Rot: geom.Quat{8, 9, 10, 11}}
	dst := Snapshot{Time: -1, Pos: geom.Vec3{-1, -1, -1}, Vel: geom.Vec3{-1, -1, -1}, Rot: geom.Quat{-1, -1, -1, -1}}
	CopySnapshot(&dst, &src)
	if dst != src {
		t.Errorf("CopySnapshot gives %+v, want %+v", dst, src)
	}
}
