package unrealrc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
	"unicode"

	"interplab/cmd/lab/internal/live"
	"interplab/engine"
)

// Backoff between retries of an editor that cannot be reached.
const (
	retryMinWait = 500 * time.Millisecond
	retryMaxWait = 10 * time.Second
	// flushWait bounds how long lab follow waits, as it ends, for the
	// last settings to be set.
	flushWait = 10 * time.Second
)

// Flags are lab follow's -unreal flags.
type Flags struct {
	url         string
	objects     []string
	transaction bool
}

// AddFlags registers -unreal, -unreal-object and -unreal-transaction on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.url, "unreal", "", "also set the unreal-cmc knobs on a running Unreal editor: its Remote Control API's `URL` (http://127.0.0.1:30010)")
	fs.Func("unreal-object", "a CharacterMovementComponent's object `path` for -unreal (repeat for each character)", func(v string) error {
		if err := checkObject(v); err != nil {
			return err
		}
		f.objects = append(f.objects, v)
		return nil
	})
	fs.BoolVar(&f.transaction, "unreal-transaction", false, "with -unreal, record each change in the editor's undo history (WRITE_TRANSACTION_ACCESS)")
	return f
}

// checkObject checks an object path: Unreal's start with "/" (/Game/...,
// /Script/...) and hold no spaces or control characters.
func checkObject(v string) error {
	if !strings.HasPrefix(v, "/") || len(v) > 1024 || strings.IndexFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("-unreal-object %q: want an Unreal object path such as /Game/Maps/Arena.Arena:PersistentLevel.BP_Hero_C_0.CharMoveComp", clip(v, 80))
	}
	return nil
}

// Start checks the flags and, with -unreal, starts setting the knobs of
// every config lab follow prints on the editor: out is what lab follow
// writes its config lines to (stdout, and the editor with -unreal), and
// stop, called with following's outcome when it ends, waits (at most 10 s)
// for the last config to be set and returns that outcome joined with why
// the config could not be set, if it could not.
func (f *Flags) Start(ctx context.Context, stdout, stderr io.Writer) (out io.Writer, stop func(error) error, err error) {
	if f.url == "" {
		if len(f.objects) > 0 || f.transaction {
			return nil, nil, fmt.Errorf("-unreal-object and -unreal-transaction need -unreal URL")
		}
		return stdout, func(err error) error { return err }, nil
	}
	u, err := url.Parse(f.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
		return nil, nil, fmt.Errorf("-unreal %q: want the Remote Control API's http://host:port (http://127.0.0.1:30010)", clip(f.url, 80))
	}
	if len(f.objects) == 0 {
		return nil, nil, fmt.Errorf("-unreal needs at least one -unreal-object: the object path of a CharacterMovementComponent to set")
	}
	access := WriteAccess
	if f.transaction {
		access = WriteTransactionAccess
	}
	p := NewPusher(u.Scheme+"://"+u.Host, f.objects, access, stderr, retryMinWait, retryMaxWait)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.Run(ctx)
	}()
	stop = func(followErr error) error {
		err := p.Wait(flushWait)
		cancel()
		<-done
		return errors.Join(followErr, err)
	}
	return &configWriter{next: stdout, push: p.Push}, stop, nil
}

// configWriter passes lab follow's config lines ({"schema":1,"settings":{...}})
// on to next and pushes the settings of each.
type configWriter struct {
	next    io.Writer
	push    func(engine.Settings)
	partial []byte // a line not yet ended
}

func (w *configWriter) Write(b []byte) (int, error) {
	n, err := w.next.Write(b)
	if err != nil {
		return n, err
	}
	w.partial = append(w.partial, b...)
	for {
		i := bytes.IndexByte(w.partial, '\n')
		if i < 0 {
			return n, nil
		}
		line := w.partial[:i]
		w.partial = w.partial[i+1:]
		var c live.Config
		if err := json.Unmarshal(line, &c); err != nil {
			return n, fmt.Errorf("unreal: read a config: %w", err)
		}
		w.push(c.Settings)
	}
}
