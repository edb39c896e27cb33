// Package netsim is the network between the lab's server and client: the
// seeded link (latency, jitter, loss, duplicates, a bottleneck queue,
// reordering), the client's clock synced over it, the scenarios that change
// its conditions over a run, the network's parameter rows (Settings), and
// the game engines' own network simulators (Mirror's LatencySimulation,
// Unity Transport 2's and Unreal's packet simulation) playing the plan its
// export writes, for what QA will get.
//
// Randomness and time are arguments: a seed, and the send times. Times are
// in seconds, shares in [0, 1]. It imports only engine/geom and
// engine/param.
package netsim
