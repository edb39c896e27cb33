package live

import "time"

// A client's message budget: each kind of message it may send is metered by
// a token bucket, and a client over budget is closed with close code 1008
// (policy violation) and a reason naming the budget, so one client can never
// make the hub do more work than its budget allows — the others keep their
// place.
const (
	// SetRate and SetBurst meter set messages: a designer dragging a
	// slider sends one per display frame at most (60 a second), so twice
	// that is generous; the burst covers two fast sliders at once.
	SetRate  = 120 // a second
	SetBurst = 240
	// PacketRate and PacketBurst meter a game's packet messages: 64
	// entities at a 60 Hz send rate is 3,840 a second.
	PacketRate  = 4000 // a second
	PacketBurst = 8000
)

// bucket is a token bucket: it holds at most burst tokens, gains rate a
// second, and each message takes one.
type bucket struct {
	rate, burst float64
	tokens      float64
	last        time.Time
}

func newBucket(rate, burst float64, now time.Time) bucket {
	return bucket{rate: rate, burst: burst, tokens: burst, last: now}
}

// take takes a token at now, and tells whether there was one.
func (b *bucket) take(now time.Time) bool {
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.tokens = min(b.burst, b.tokens+dt*b.rate)
		b.last = now
	}
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
