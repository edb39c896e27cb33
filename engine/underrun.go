package engine

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
