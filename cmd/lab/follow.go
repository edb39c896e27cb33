package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"

	"github.com/gorilla/websocket"
)

// Reconnection backoff of lab follow: the wait doubles from followMinWait to
// followMaxWait after each failed attempt, and resets once connected.
const (
	followMinWait = 500 * time.Millisecond
	followMaxWait = 30 * time.Second
)

const followUsage = `Usage: lab follow [-once] URL

Follows a lab session the way a game would: connects to its live sync
WebSocket, prints every config it receives as one line of JSON
({"schema":1,"settings":{...}}), and reconnects with backoff when the
connection drops, until interrupted.

URL is the session's page (http://localhost:8080/s/ID, or /s/ID/r/REV) or
its WebSocket (ws://localhost:8080/ws/sessions/ID).

Flags:
`

// runFollow implements lab follow: the reference game client of the live
// sync protocol (see hub.go). It returns the exit code: 0 when interrupted
// (or after the first config with -once), 1 when the session is gone or, with
// -once, on any failure, 2 on a usage error.
func runFollow(args []string, stdout, stderr io.Writer) int {
	fs := labFlags("follow", followUsage, stderr)
	once := fs.Bool("once", false, "exit after the first config instead of following")
	if code, ok := parseLabFlags(fs, args, 1, stderr); !ok {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "lab follow: want exactly one URL")
		fs.Usage()
		return 2
	}
	wsURL, err := followURL(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "lab follow: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	f := follower{url: wsURL, once: *once, stdout: stdout, stderr: stderr,
		minWait: followMinWait, maxWait: followMaxWait, jitter: rand.Int64N}
	return f.run(ctx)
}

// follower is one run of lab follow.
type follower struct {
	url              string // ws:// or wss:// URL of the session's live sync
	once             bool
	stdout, stderr   io.Writer
	minWait, maxWait time.Duration
	jitter           func(n int64) int64 // random in [0, n), spreads reconnects of many games
}

// Errors after which reconnecting cannot help.
var (
	errFollowGone    = errors.New("session not found or deleted")
	errFollowRefused = errors.New("refused")
)

func (f *follower) run(ctx context.Context) int {
	wait := f.minWait
	for {
		connected, err := f.session(ctx)
		switch {
		case ctx.Err() != nil:
			return 0
		case err == nil: // -once got its config
			return 0
		case errors.Is(err, errFollowGone), errors.Is(err, errFollowRefused), f.once:
			fmt.Fprintf(f.stderr, "lab follow: %v\n", err)
			return 1
		}
		if connected {
			wait = f.minWait
		}
		// Half the wait plus up to the other half at random.
		d := wait/2 + time.Duration(f.jitter(int64(wait/2)+1))
		fmt.Fprintf(f.stderr, "lab follow: %v; reconnecting in %v\n", err, d.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return 0
		case <-time.After(d):
		}
		wait = min(2*wait, f.maxWait)
	}
}

// session connects once and prints configs until the connection ends. It
// returns whether it connected, and nil only when -once is done.
func (f *follower) session(ctx context.Context) (connected bool, err error) {
	dialer := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: http.ProxyFromEnvironment}
	conn, resp, err := dialer.DialContext(ctx, f.url, nil)
	if err != nil {
		if resp != nil && resp.StatusCode >= 400 && resp.StatusCode < 500 {
			msg := followErrorBody(resp)
			if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone {
				return false, fmt.Errorf("%w: %s", errFollowGone, msg)
			}
			// Other 4xx (a refused origin, a bad request) will not change either.
			return false, fmt.Errorf("%w: %s: %s", errFollowRefused, resp.Status, msg)
		}
		if resp != nil {
			return false, fmt.Errorf("connect %s: %s: %s", f.url, resp.Status, strings.TrimSpace(followErrorBody(resp)))
		}
		return false, fmt.Errorf("connect %s: %w", f.url, err)
	}
	defer conn.Close()
	// ReadMessage does not watch ctx: closing the connection unblocks it.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	fmt.Fprintf(f.stderr, "lab follow: connected to %s\n", f.url)
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code == closeNoSession {
				return true, fmt.Errorf("%w: %s", errFollowGone, ce.Text)
			}
			return true, fmt.Errorf("disconnected: %w", err)
		}
		var m struct {
			Type   string          `json:"type"`
			Config json.RawMessage `json:"config"`
		}
		if err := json.Unmarshal(data, &m); err != nil || m.Type != "config" {
			continue // set and error messages: a game needs only the configs
		}
		var line bytes.Buffer
		if err := json.Compact(&line, m.Config); err != nil {
			return true, fmt.Errorf("bad config from the server: %w", err)
		}
		line.WriteByte('\n')
		if _, err := f.stdout.Write(line.Bytes()); err != nil {
			return true, fmt.Errorf("%w: write: %v", errFollowRefused, err) // nobody reads: stop
		}
		if f.once {
			conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
			return true, nil
		}
	}
}

// followErrorBody returns the "error" of a JSON error answer, or the start
// of the body.
func followErrorBody(resp *http.Response) string {
	if resp.Body == nil {
		return ""
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	var e struct{ Error string }
	if json.Unmarshal(data, &e) == nil && e.Error != "" {
		return e.Error
	}
	return jsonapi.Clip(strings.ToValidUTF8(string(data), "?"), 200)
}

// followURL returns the live sync WebSocket URL for a session's page URL
// (http(s)://host/s/ID, /s/ID/r/REV), API URL (/api/sessions/ID) or
// WebSocket URL (ws(s)://host/ws/sessions/ID). A path prefix before those
// (a lab behind a proxy at /lab/) is kept.
func followURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("bad URL %q: %w", raw, err)
	}
	scheme := map[string]string{"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}[strings.ToLower(u.Scheme)]
	if scheme == "" || u.Host == "" {
		return "", fmt.Errorf("bad URL %q: want http(s)://host/s/ID or ws(s)://host/ws/sessions/ID", raw)
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	id, prefix := "", -1
	for i := len(segs) - 2; i >= 0 && id == ""; i-- {
		rest := segs[i+2:]
		switch {
		case segs[i] == "s" && (len(rest) == 0 || len(rest) == 2 && rest[0] == "r"):
			id, prefix = segs[i+1], i
		case segs[i] == "sessions" && i > 0 && (segs[i-1] == "ws" || segs[i-1] == "api"):
			id, prefix = segs[i+1], i-1
		}
	}
	if id == "" {
		return "", fmt.Errorf("bad URL %q: no session in it (want …/s/ID or …/ws/sessions/ID)", raw)
	}
	if err := store.CheckSessionID(id); err != nil {
		return "", fmt.Errorf("bad URL %q: %w", raw, err)
	}
	out := url.URL{Scheme: scheme, Host: u.Host, Path: "/" + strings.Join(append(segs[:prefix:prefix], "ws", "sessions", id), "/")}
	return out.String(), nil
}
