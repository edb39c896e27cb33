package engine

import "interplab/engine/technique"

// What underrun means for each technique.
//
// The underrun metric counts the frames drawn past the newest snapshot the
// client has received. For the buffer techniques (snap, buffer, hermite and
// the libraries that interpolate behind a delay) such a frame means the
// buffer ran dry: it is the figure to drive to zero. EPIC and its fix draw
// at the estimated server time itself, ahead of every packet, and
// extrapolate by design: every frame they draw is past their newest packet,
// so their underrun is 100% on every run and says nothing. Their starved
// figure is frozen: the frames held after slopTime without an update.
// Underrun keeps one definition for every technique, so the metric stays
// comparable in exports, sweeps and tunings; the page and the tables show an
// ahead-by-design technique's underrun as such and never rank it.
//
// Idle holds.
//
// An underrun is starvation: the sender sent something the client has not
// received. A send-on-change library's sender (Mirror's onlySyncOnChange
// with positionSensitivity, NGO's positionThreshold) sends nothing new for
// an entity that stands still, so its client holds the last pose and its
// render time runs past the newest update: by the definition above that
// would read as an underrun and a freeze, although nothing is missing. The
// lab tells the two apart by what the client received (technique.IdleSpans,
// Sample.Idle): a frame is an idle hold when it holds a pose (Freeze or
// Hold) or runs past Newest while its render time lies inside a span that
// the sender, in snapshots that reached the client, confirmed unchanged
// (every one of them judged no axis moved beyond the library's threshold).
// An idle hold counts in the idle metric only: never in underrun, frozen or
// underrunRounds. A hold past the newest snapshot received, when the
// sender's next word is late, lost or cut off by an outage, is outside every
// span and stays an underrun, whether the entity moved or not. A technique
// whose sender sends every snapshot never reports Idle, so its figures are
// those of the definition above.

// isIdleHold reports whether the frame smp is an idle hold: it holds a pose
// (Freeze or Hold) or runs past its newest snapshot while the sender had
// deliberately sent nothing new for its time (Sample.Idle).
func isIdleHold(smp *technique.Sample) bool {
	return smp.Idle && (smp.Mode == technique.Freeze || smp.Mode == technique.Hold || smp.Time > smp.Newest)
}
