package main

import (
	"context"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"

	"interplab/cmd/lab/internal/cli"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/unrealrc"
)

const followUsage = `Usage: lab follow [-once] [-token TOKEN] [-unreal URL -unreal-object PATH...] URL

Follows a lab session the way a game would: connects to its live sync
WebSocket, prints every config it receives as one line of JSON
({"schema":1,"settings":{...}}), and reconnects with backoff when the
connection drops, until interrupted. With -unreal it also sets the unreal-cmc
knobs on a running Unreal editor through Epic's Remote Control API.

URL is the session's page (http://localhost:8080/s/ID, or /s/ID/r/REV) or
its WebSocket (ws://localhost:8080/ws/sessions/ID). A lab served with an
access token needs it: -token, or LAB_TOKEN in the environment.

Flags:
`

// runFollow implements lab follow: the reference game client of the live
// sync protocol (package live). It returns the exit code: 0 when interrupted
// (or after the first config with -once), 1 when the session is gone or, with
// -once, on any failure, 2 on a usage error.
func runFollow(args []string, stdout, stderr io.Writer) int {
	c := cli.New("follow", followUsage, stdout, stderr)
	once := c.Flags.Bool("once", false, "exit after the first config instead of following")
	tokenFlag := c.TokenFlag("the lab's access `token` (default $LAB_TOKEN)")
	unreal := unrealrc.AddFlags(c.Flags)
	pos, code, ok := c.Args(args, 1)
	if !ok {
		return code
	}
	wsURL, err := live.FollowURL(pos[0])
	if err != nil {
		return c.Bad(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, stopUnreal, err := unreal.Start(ctx, stdout, stderr)
	if err != nil {
		return c.Bad(err)
	}
	f := live.Follower{URL: wsURL, Token: tokenFlag(), Once: *once, Stdout: out, Stderr: stderr, Jitter: rand.Int64N}
	return c.Exit(stopUnreal(f.Run(ctx)))
}
