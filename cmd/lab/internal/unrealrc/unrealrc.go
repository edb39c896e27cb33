// Package unrealrc sets the unreal-cmc technique's knobs on a running Unreal
// Editor's CharacterMovementComponents through Epic's Remote Control API:
// the HTTP server of the Remote Control API plugin (port 30010 by default,
// on loopback), no plugin code in the game. lab follow -unreal uses it.
//
// Each property that changed is one request, as Epic's HTTP reference
// documents it:
//
//	PUT /remote/object/property
//	{"objectPath":"/Game/Maps/Arena.Arena:PersistentLevel.BP_Hero_C_0.CharMoveComp",
//	 "access":"WRITE_ACCESS","propertyName":"NetworkSmoothingMode",
//	 "propertyValue":{"NetworkSmoothingMode":"Linear"}}
//
// answered 200 when set. The properties, names and units are the unreal
// export's (unreal.Properties): seconds and centimetres, an
// ENetworkSmoothingMode by its value's name. A property the editor refuses
// (a 4xx: an unknown object, a property Remote Control may not write) is
// logged, one line naming the object, the property, the value and the
// editor's reason, and not sent again until its value changes; an editor that
// cannot be reached (or answers 5xx) is retried with backoff, with the
// newest settings.
package unrealrc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"interplab/engine"
	"interplab/engine/technique/unreal"
)

// Remote Control's access modes for a write (ERCAccess).
const (
	// WriteAccess sets the property as a game would: nothing in the
	// editor's undo history. The default.
	WriteAccess = "WRITE_ACCESS"
	// WriteTransactionAccess also records the change as an editor
	// transaction, which Undo reverts.
	WriteTransactionAccess = "WRITE_TRANSACTION_ACCESS"
)

// PropertyPath is the route of Remote Control's property calls.
const PropertyPath = "/remote/object/property"

// Request is the body of a PUT /remote/object/property that writes one
// property, in the field order of Epic's examples.
type Request struct {
	ObjectPath    string         `json:"objectPath"`
	Access        string         `json:"access"`
	PropertyName  string         `json:"propertyName"`
	PropertyValue map[string]any `json:"propertyValue"` // {PropertyName: value}
}

// requestTimeout bounds one request to the editor.
const requestTimeout = 5 * time.Second

// Pusher sets the knobs of the newest settings it was given on every
// object of Objects, in a goroutine of its own (Run): Push never waits for
// the editor.
type Pusher struct {
	URL              string   // the Remote Control server: http://127.0.0.1:30010
	Objects          []string // CharacterMovementComponent object paths
	Access           string   // WriteAccess or WriteTransactionAccess
	Client           *http.Client
	Log              io.Writer // one line per property set or refused, and per retry
	MinWait, MaxWait time.Duration

	mu      sync.Mutex
	pending *engine.Settings // newest settings not yet taken by Run
	busy    bool             // Run is applying settings
	lastErr error            // why the last settings taken are not all set; nil once they are
	wake    chan struct{}
	idle    chan struct{} // signalled when Run has nothing left to do
}

// NewPusher returns a Pusher of the objects on the Remote Control server at
// url, with backoff from minWait to maxWait between retries.
func NewPusher(url string, objects []string, access string, log io.Writer, minWait, maxWait time.Duration) *Pusher {
	return &Pusher{URL: strings.TrimRight(url, "/"), Objects: objects, Access: access,
		Client: &http.Client{Timeout: requestTimeout}, Log: log, MinWait: minWait, MaxWait: maxWait,
		wake: make(chan struct{}, 1), idle: make(chan struct{}, 1)}
}

// Push makes s the settings to set, replacing any not yet taken: the
// editor gets the newest state, never a backlog.
func (p *Pusher) Push(s engine.Settings) {
	p.mu.Lock()
	p.pending = &s
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// take returns the pending settings and marks Run busy, or reports idle.
func (p *Pusher) take() (engine.Settings, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.busy = false
		return engine.Settings{}, false
	}
	s := *p.pending
	p.pending, p.busy = nil, true
	return s, true
}

// Run sets each settings pushed until ctx is done.
func (p *Pusher) Run(ctx context.Context) {
	set := map[string]string{} // object + "\x00" + property: the JSON value set (or refused) last
	for {
		s, ok := p.take()
		if !ok {
			select {
			case p.idle <- struct{}{}:
			default:
			}
			select {
			case <-ctx.Done():
				return
			case <-p.wake:
				continue
			}
		}
		wait := p.MinWait
		for {
			err := p.apply(ctx, s, set)
			p.mu.Lock()
			p.lastErr = err
			p.mu.Unlock()
			if err == nil || ctx.Err() != nil {
				break
			}
			fmt.Fprintf(p.Log, "lab follow: unreal: %v; retrying in %v\n", err, wait)
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, p.MaxWait)
			if newer, ok := p.take(); ok {
				s = newer
			}
		}
	}
}

// Wait waits until every settings pushed has been taken and tried, or d
// has passed, and returns why the last ones are not all set (nil when they
// are).
func (p *Pusher) Wait(d time.Duration) error {
	deadline := time.After(d)
	for {
		p.mu.Lock()
		done, err := p.pending == nil && !p.busy, p.lastErr
		p.mu.Unlock()
		if done {
			return err
		}
		select {
		case <-p.idle:
		case <-deadline:
			p.mu.Lock()
			defer p.mu.Unlock()
			return errors.Join(fmt.Errorf("unreal: the settings were not all set within %v", d), p.lastErr)
		}
	}
}

// apply sets the properties of s that differ from what set records on
// every object. It returns an error, after which the rest is tried again,
// only when the editor cannot be reached or fails (5xx); a refusal is
// logged and recorded as done.
func (p *Pusher) apply(ctx context.Context, s engine.Settings, set map[string]string) error {
	props := unreal.Properties(&s.UnrealSettings)
	for _, obj := range p.Objects {
		for _, prop := range props {
			var v any = prop.Float
			if prop.Enum != "" {
				v = prop.Enum
			}
			text, _ := json.Marshal(v) // a string or a finite float32
			key := obj + "\x00" + prop.Name
			if set[key] == string(text) {
				continue
			}
			refused, err := p.put(ctx, Request{ObjectPath: obj, Access: p.Access, PropertyName: prop.Name,
				PropertyValue: map[string]any{prop.Name: v}})
			if err != nil {
				return err
			}
			if refused != "" {
				fmt.Fprintf(p.Log, "lab follow: unreal refused %s = %s (%s) on %s: %s\n", prop.Name, text, prop.Param, obj, refused)
			} else {
				fmt.Fprintf(p.Log, "lab follow: unreal: set %s = %s on %s\n", prop.Name, text, obj)
			}
			set[key] = string(text)
		}
	}
	return nil
}

// put sends one write. It returns the editor's reason when it refused the
// write (a 4xx), and an error when it could not be asked or failed.
func (p *Pusher) put(ctx context.Context, r Request) (refused string, err error) {
	body, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, p.URL+PropertyPath, bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.Client.Do(req)
	if err != nil {
		return "", fmt.Errorf("PUT %s: %w", p.URL+PropertyPath, err)
	}
	defer resp.Body.Close()
	reason := errorMessage(resp.Body)
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		return "", nil
	case resp.StatusCode >= 400 && resp.StatusCode < 500:
		return fmt.Sprintf("%s: %s", resp.Status, reason), nil
	}
	return "", fmt.Errorf("PUT %s %s: %s: %s", p.URL+PropertyPath, r.PropertyName, resp.Status, reason)
}

// errorMessage reads Remote Control's error answer, {"errorMessage":"..."},
// or the start of any other body.
func errorMessage(body io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(body, 4096))
	var e struct {
		ErrorMessage string `json:"errorMessage"`
	}
	if json.Unmarshal(data, &e) == nil && e.ErrorMessage != "" {
		return clip(e.ErrorMessage, 300)
	}
	if s := strings.TrimSpace(strings.ToValidUTF8(string(data), "?")); s != "" {
		return clip(s, 300)
	}
	return "no reason given"
}

// clip shortens s to at most n runes, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
