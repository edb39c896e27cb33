package engine

// ReplayPingOnly lists the parameters that do not shape a replay's packets
// (the trace's own sends and arrivals stand in for the link): in a replay
// they only shape the client clock's ping exchanges (see NewReplay).
var ReplayPingOnly = []string{"latency", "jitter", "jitterDist", "loss", "lossModel", "burstLength", "duplicate", "seed"}

// ReplayUnused lists the parameters a replay does not use at all: the
// trace's recorded states stand in for the motion scripts.
var ReplayUnused = []string{"motion"}
