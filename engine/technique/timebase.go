package technique

// TimeBase is the clock a technique reads: the time passed to its Receive
// and Sample (and to a batch's Receive and Frame).
type TimeBase uint8

const (
	// ServerEstimate is the client's NTP-style estimate of the server's
	// clock.
	ServerEstimate TimeBase = iota
	// StreamTime is the estimate less the transit of the freshest
	// snapshots: the buffer's delay counts behind it.
	StreamTime
	// LocalTime is the client's own clock in seconds since it started,
	// drift included: for the libraries that keep their own server clock
	// from the snapshots' timestamps and their local arrival times.
	LocalTime
)
