package lightyear

import "interplab/engine/geom"

// vec3 is a position as lightyear holds it: three f32.
type vec3 = [3]float32

// entry is one confirmed update of the history: the server tick it is for
// and its value, or a marker meaning "the same as the entry before".
type entry struct {
	tick uint32
	same bool // a marker: the value is that of the nearest explicit entry before
	val  vec3
	rot  geom.Quat // the lab's rotation, a component of its own in a game (identity in the cases)
}

// history is one interpolated entity's confirmed history, sorted by tick.
type history struct {
	e []entry
}

// resolve is the value of entry i: its own, or for a marker that of the
// nearest explicit entry before it.
func (h *history) resolve(i int) (vec3, geom.Quat) {
	for i > 0 && h.e[i].same {
		i--
	}
	return h.e[i].val, h.e[i].rot
}

// insert records the update v of the given tick. An update at a tick
// already there replaces it; one equal to the state in force before its
// tick is kept as a marker (the lab's rotation must be equal too: in a
// game it is a component with a history of its own).
func (h *history) insert(tick uint32, v vec3, rot geom.Quat) {
	i := len(h.e)
	for i > 0 && h.e[i-1].tick >= tick {
		i--
	}
	n := entry{tick: tick, val: v, rot: rot}
	if i > 0 {
		if prev, pr := h.resolve(i - 1); prev == v && pr == rot {
			n.same = true
		}
	}
	if i < len(h.e) && h.e[i].tick == tick {
		h.e[i] = n
		return
	}
	h.e = append(h.e, entry{})
	copy(h.e[i+1:], h.e[i:])
	h.e[i] = n
}

// drain drops the entries the cursor at whole tick cur no longer needs:
// while at least 3 remain and the second-oldest is at or before cur, the
// oldest goes; a marker that becomes the oldest takes the value it stood
// for.
func (h *history) drain(cur uint32) {
	k := 0
	for len(h.e)-k >= 3 && h.e[k+1].tick <= cur {
		old := h.e[k]
		k++
		if h.e[k].same {
			h.e[k].same, h.e[k].val, h.e[k].rot = false, old.val, old.rot
		}
	}
	if k > 0 {
		h.e = append(h.e[:0], h.e[k:]...)
	}
}

// sample is the history at whole tick cur and fraction overstep: the
// entries around the cursor, interpolated linearly in f32, or the newest
// value held past the last one. ok is false when no entry is at or before
// cur; end is -1 when the newest value is held.
func (h *history) sample(cur uint32, overstep float32) (p vec3, t float32, start, end int, ok bool) {
	i := len(h.e) - 1
	for i >= 0 && h.e[i].tick > cur {
		i--
	}
	if i < 0 {
		return p, 0, -1, -1, false
	}
	a, _ := h.resolve(i)
	if i+1 == len(h.e) {
		return a, 0, i, -1, true
	}
	b, _ := h.resolve(i + 1)
	s, e := h.e[i].tick, h.e[i+1].tick
	t = (float32(int32(cur-s)) + overstep) / float32(int32(e-s))
	t = min(max(t, 0), 1)
	u := 1 - t
	for k := range 3 {
		p[k] = float32(a[k]*u) + float32(b[k]*t)
	}
	return p, t, i, i + 1, true
}
