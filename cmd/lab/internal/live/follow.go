package live

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
)

// Follower follows a session's live sync the way a game should: it
// prints every config it receives as one line of JSON
// ({"schema":1,"settings":{...}}) and reconnects with backoff when the
// connection drops: the wait doubles from MinWait to MaxWait after each
// failed attempt, and resets once connected.
type Follower struct {
	URL            string // ws:// or wss:// URL of the session's live sync (see FollowURL)
	Token          string // the lab's access token, sent as a bearer; "" for none
	Once           bool   // stop after the first config
	Stdout, Stderr io.Writer
	// MinWait and MaxWait bound the backoff; zero is FollowMinWait and
	// FollowMaxWait.
	MinWait, MaxWait time.Duration
	Jitter           func(n int64) int64 // random in [0, n), spreads the reconnects of many games
}

// The backoff of lab follow (a Follower's zero MinWait and MaxWait).
const (
	FollowMinWait = 500 * time.Millisecond
	FollowMaxWait = 30 * time.Second
)

// Errors after which reconnecting cannot help.
var (
	ErrGone    = errors.New("session not found or deleted")
	ErrRefused = errors.New("refused")
)

// Run follows until ctx is done, or with Once until the first config, and
// then returns nil. It returns an error when following cannot go on: the
// session is gone (ErrGone), the server refuses the client (ErrRefused),
// or, with Once, any failure. It reports each reconnection on Stderr.
func (f *Follower) Run(ctx context.Context) error {
	minWait, maxWait := cmp.Or(f.MinWait, FollowMinWait), cmp.Or(f.MaxWait, FollowMaxWait)
	wait := minWait
	for {
		connected, err := f.session(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil: // Once got its config
			return nil
		case errors.Is(err, ErrGone), errors.Is(err, ErrRefused), f.Once:
			return err
		}
		if connected {
			wait = minWait
		}
		// Half the wait plus up to the other half at random.
		d := wait/2 + time.Duration(f.Jitter(int64(wait/2)+1))
		fmt.Fprintf(f.Stderr, "lab follow: %v; reconnecting in %v\n", err, d.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(d):
		}
		wait = min(2*wait, maxWait)
	}
}

// session connects once and prints configs until the connection ends. It
// returns whether it connected, and nil only when -once is done.
func (f *Follower) session(ctx context.Context) (connected bool, err error) {
	dialer := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Proxy: http.ProxyFromEnvironment}
	var header http.Header
	if f.Token != "" {
		header = http.Header{"Authorization": {"Bearer " + f.Token}}
	}
	conn, resp, err := dialer.DialContext(ctx, f.URL, header)
	if err != nil {
		if resp != nil && resp.StatusCode >= 400 && resp.StatusCode < 500 {
			msg := followErrorBody(resp)
			if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone {
				return false, fmt.Errorf("%w: %s", ErrGone, msg)
			}
			// Other 4xx (a refused origin, a bad request) will not change either.
			return false, fmt.Errorf("%w: %s: %s", ErrRefused, resp.Status, msg)
		}
		if resp != nil {
			return false, fmt.Errorf("connect %s: %s: %s", f.URL, resp.Status, strings.TrimSpace(followErrorBody(resp)))
		}
		return false, fmt.Errorf("connect %s: %w", f.URL, err)
	}
	defer conn.Close()
	// ReadMessage does not watch ctx: closing the connection unblocks it.
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	fmt.Fprintf(f.Stderr, "lab follow: connected to %s\n", f.URL)
	for {
		_, data, err := conn.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) && ce.Code == CloseNoSession {
				return true, fmt.Errorf("%w: %s", ErrGone, ce.Text)
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
		if _, err := f.Stdout.Write(line.Bytes()); err != nil {
			return true, fmt.Errorf("%w: write: %v", ErrRefused, err) // nobody reads: stop
		}
		if f.Once {
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

// FollowURL returns the live sync WebSocket URL for a session's page URL
// (http(s)://host/s/ID, /s/ID/r/REV), API URL (/api/sessions/ID) or
// WebSocket URL (ws(s)://host/ws/sessions/ID). A path prefix before those
// (a lab behind a proxy at /lab/) is kept.
func FollowURL(raw string) (string, error) {
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
