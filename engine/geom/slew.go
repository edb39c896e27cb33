package geom

// SlewTowards returns cur moved towards target by at most step (none when
// step is not positive): how the buffer's delay and the stream clock's lag
// follow their targets without jumps.
func SlewTowards(cur, target, step float64) float64 {
	if !(step > 0) {
		step = 0
	}
	switch {
	case target > cur+step:
		return cur + step
	case target < cur-step:
		return cur - step
	}
	return target
}
