package lightyear

import "interplab/engine/geom"

// vec3 is a position as lightyear holds it: three f32.
type vec3 = [3]float32

// history is the confirmed histories of n interpolated entities that share
// their packets: each entity's history is lightyear's, sorted by tick, and
// since every packet carries every entity they all have the same ticks, so
// the ticks are kept once and each entry's values in a storage slot of n.
//
// An update equal to the state in force before its tick is kept as a
// marker, "the same as the entry before", which resolves at read time to
// the nearest explicit entry before it, so a late update inserted before a
// marker changes what it stands for. Whether an update is a marker is the
// entity's own business: the lab's rotation must be equal too (in a game
// it is a component with a history of its own).
type history struct {
	n     int
	ticks []uint32 // the entries' ticks, increasing
	slots []int32  // the entries' storage slots
	free  []int32

	// Per slot: its stamp (a new one for every update received, for the
	// lab's slerp cache); per slot and entity (slot·n + e): the value and
	// whether it is a marker.
	gen  []uint32
	val  []vec3
	rot  []geom.Quat
	same []bool
}

func newHistory(n int) history { return history{n: n} }

// len is the number of entries.
func (h *history) len() int { return len(h.ticks) }

// insert makes room for the update of the given tick, stamped gen, and
// returns its entry; put then sets each entity's value. An update at a
// tick already there replaces it.
func (h *history) insert(tick uint32, gen uint32) int {
	i := len(h.ticks)
	for i > 0 && h.ticks[i-1] >= tick {
		i--
	}
	if i < len(h.ticks) && h.ticks[i] == tick {
		h.gen[h.slots[i]] = gen
		return i
	}
	var slot int32
	if k := len(h.free); k > 0 {
		slot, h.free = h.free[k-1], h.free[:k-1]
	} else {
		slot = int32(len(h.gen))
		h.gen = append(h.gen, 0)
		h.val = append(h.val, make([]vec3, h.n)...)
		h.rot = append(h.rot, make([]geom.Quat, h.n)...)
		h.same = append(h.same, make([]bool, h.n)...)
	}
	h.gen[slot] = gen
	h.ticks = append(h.ticks, 0)
	h.slots = append(h.slots, 0)
	copy(h.ticks[i+1:], h.ticks[i:])
	copy(h.slots[i+1:], h.slots[i:])
	h.ticks[i], h.slots[i] = tick, slot
	return i
}

// put sets entity e's value of entry i: a marker when it equals the state
// in force before it.
func (h *history) put(i, e int, v vec3, r geom.Quat) {
	k := int(h.slots[i])*h.n + e
	same := false
	if i > 0 {
		p := h.explicit(i-1, e)
		same = h.val[p] == v && h.rot[p] == r
	}
	h.val[k], h.rot[k], h.same[k] = v, r, same
}

// explicit is where entity e's value of entry i is stored: its own, or
// for a marker that of the nearest explicit entry before it.
func (h *history) explicit(i, e int) int {
	for i > 0 && h.same[int(h.slots[i])*h.n+e] {
		i--
	}
	return int(h.slots[i])*h.n + e
}

// drain drops the entries the cursor at whole tick cur no longer needs:
// while at least 3 remain and the second-oldest is at or before cur, the
// oldest goes; a marker that becomes the oldest takes the value it stood
// for (the oldest entry is always explicit).
func (h *history) drain(cur uint32) {
	k := 0
	for len(h.ticks)-k >= 3 && h.ticks[k+1] <= cur {
		old, next := int(h.slots[k])*h.n, int(h.slots[k+1])*h.n
		for e := range h.n {
			if h.same[next+e] {
				h.val[next+e], h.rot[next+e], h.same[next+e] = h.val[old+e], h.rot[old+e], false
			}
		}
		h.free = append(h.free, h.slots[k])
		k++
	}
	if k > 0 {
		h.ticks = append(h.ticks[:0], h.ticks[k:]...)
		h.slots = append(h.slots[:0], h.slots[k:]...)
	}
}

// find is the last entry at or before whole tick cur, -1 if none.
func (h *history) find(cur uint32) int {
	i := len(h.ticks) - 1
	for i >= 0 && h.ticks[i] > cur {
		i--
	}
	return i
}

// frac is the fraction of the way from entry i to entry i+1 at whole tick
// cur and fraction overstep, clamped to [0, 1], in f32.
func (h *history) frac(i int, cur uint32, overstep float32) float32 {
	s, e := h.ticks[i], h.ticks[i+1]
	t := (float32(int32(cur-s)) + overstep) / float32(int32(e-s))
	return min(max(t, 0), 1)
}

// lerp is a·(1 − t) + b·t per axis in f32, each product rounded.
func lerp(a, b *vec3, t float32) vec3 {
	u := 1 - t
	return vec3{float32(a[0]*u) + float32(b[0]*t), float32(a[1]*u) + float32(b[1]*t), float32(a[2]*u) + float32(b[2]*t)}
}
