package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"syscall"
	"time"

	"interplab/cmd/lab/internal/live"
)

// Reconnection backoff of lab follow: the wait doubles from followMinWait to
// followMaxWait after each failed attempt, and resets once connected.
const (
	followMinWait = 500 * time.Millisecond
	followMaxWait = 30 * time.Second
)

const followUsage = `Usage: lab follow [-once] [-token TOKEN] URL

Follows a lab session the way a game would: connects to its live sync
WebSocket, prints every config it receives as one line of JSON
({"schema":1,"settings":{...}}), and reconnects with backoff when the
connection drops, until interrupted.

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
	fs := labFlags("follow", followUsage, stderr)
	once := fs.Bool("once", false, "exit after the first config instead of following")
	token := fs.String("token", "", "the lab's access `token` (default $LAB_TOKEN)")
	if code, ok := parseLabFlags(fs, args, 1, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "lab follow: want exactly one URL")
		fs.Usage()
		return 2
	}
	wsURL, err := live.FollowURL(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "lab follow: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *token == "" {
		*token = os.Getenv("LAB_TOKEN")
	}
	f := live.Follower{URL: wsURL, Token: *token, Once: *once, Stdout: stdout, Stderr: stderr,
		MinWait: followMinWait, MaxWait: followMaxWait, Jitter: rand.Int64N}
	if err := f.Run(ctx); err != nil {
		fmt.Fprintf(stderr, "lab follow: %v\n", err)
		return 1
	}
	return 0
}
