package technique

import (
	"reflect"
	"testing"
)

// TestCopySnapshot checks that CopySnapshot copies every field over what
// the destination held. The fields are set by reflection, each to its own
// value, so that a field added to Snapshot without its line in
// CopySnapshot fails here.
func TestCopySnapshot(t *testing.T) {
	var src, dst Snapshot
	next := 1.0
	var set func(v reflect.Value, sign float64)
	set = func(v reflect.Value, sign float64) {
		switch v.Kind() {
		case reflect.Float64:
			v.SetFloat(sign * next)
			next++
		case reflect.Array:
			for i := range v.Len() {
				set(v.Index(i), sign)
			}
		case reflect.Struct:
			for i := range v.NumField() {
				set(v.Field(i), sign)
			}
		default:
			t.Fatalf("Snapshot holds a %s: teach this test and CopySnapshot to copy it", v.Kind())
		}
	}
	set(reflect.ValueOf(&src).Elem(), 1)
	set(reflect.ValueOf(&dst).Elem(), -1)
	CopySnapshot(&dst, &src)
	if dst != src {
		t.Errorf("CopySnapshot gives %+v, want %+v", dst, src)
	}
}
