// Package store keeps the lab's saved sessions and recorded traces. The
// server's handlers use the Store interface; SQLite, a database file in
// the data directory, implements it, and a second backend (PostgreSQL for
// a team) implements the same interface without touching them. Times are
// always arguments: a store never reads the clock.
package store

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"interplab/cmd/lab/internal/wire"
	"interplab/engine"
)

// Store is what the lab keeps: sessions, traces, job records, custom
// presets and sign-ins. Its implementations
// are safe for concurrent use.
type Store interface {
	Sessions
	Traces
	Captures
	Jobs
	Presets
	Logins
	Close() error
}

// Presets are the custom presets designers save from the lab page or
// import as preset files; the built-in ones (package presets) are not
// kept here, and the server refuses their names before a store sees them.
type Presets interface {
	// SavePreset stores p, created at now; a name in use is ErrPresetExists.
	SavePreset(p CustomPreset, now time.Time) error
	// ListPresets returns the custom presets by name.
	ListPresets() ([]CustomPreset, error)
	// LoadPreset returns the custom preset called name, or ErrPresetNotFound.
	LoadPreset(name string) (CustomPreset, error)
	// DeletePreset removes the custom preset called name for good.
	DeletePreset(name string) error
}

// CustomPreset is a preset a designer saved: the fields of a preset file.
type CustomPreset struct {
	Name     string
	Title    string
	Doc      string
	Settings engine.Settings
	Created  time.Time
}

// Errors of Presets.
var (
	ErrPresetNotFound = errors.New("preset not found")
	ErrPresetExists   = errors.New("preset name taken")
)

// Sessions are saved sessions. Every save is a new revision of a session;
// nothing is overwritten. A deleted session is only marked deleted and can
// be restored for RestoreWindow. Malformed input is an *engine.FieldError
// naming its field (a malformed id's field is "id"), or a *wire.Error
// naming it for text over its cap; a missing session or revision is one of
// the Err values below.
type Sessions interface {
	// Create saves d as revision 1 of a new session with a fresh random id.
	Create(d Draft, now time.Time) (Revision, error)
	// Update saves a new revision of session id computed by edit from the
	// latest one; no other save comes between the two. edit must be quick;
	// its error is returned as is. A draft that changes nothing (the same
	// name, notes and settings) makes no revision: Update returns the
	// latest one.
	Update(id string, now time.Time, edit func(prev Revision) (Draft, error)) (Revision, error)
	// Latest returns the latest revision of a live session that can be
	// read: a damaged one (ErrDamaged) is passed over for the one before.
	Latest(id string) (Revision, error)
	// Get returns a session, deleted or not, with its history; damaged
	// revisions are marked in it (see Session).
	Get(id string) (Session, error)
	// Revision returns one revision of a live session.
	Revision(id string, rev int) (Revision, error)
	// List returns the sessions whose latest name contains q (ignoring
	// case), the most recently saved first, deleted ones only if asked.
	List(q string, withDeleted bool) ([]Summary, error)
	// Delete marks a session deleted at now (the first time only).
	Delete(id string, now time.Time) error
	// Restore undeletes a session deleted less than RestoreWindow ago.
	Restore(id string, now time.Time) error
	// DamagedRevisions returns, for each of the sessions ids that has
	// any, its revisions whose stored settings are not a JSON object,
	// without decoding the others: what a list can afford to check.
	DamagedRevisions(ids []string) (map[string][]int, error)
}

// Traces are recorded packet traces: the built-in samples (names starting
// with SamplePrefix), listed and loaded, never stored or deleted, and the
// stored ones.
type Traces interface {
	// SaveTrace stores the valid trace tr under tr.Name, all of it or
	// nothing; a name in use is ErrTraceExists.
	SaveTrace(tr *engine.Trace, format string, now time.Time) (TraceInfo, error)
	// ListTraces returns the samples, then the stored traces, newest first.
	ListTraces() ([]TraceInfo, error)
	// LoadTrace returns the sample or stored trace called name.
	LoadTrace(name string) (TraceInfo, *engine.Trace, error)
	// TraceInfo returns what LoadTrace would, without the packets:
	// nothing is decoded.
	TraceInfo(name string) (TraceInfo, error)
	// TraceFlat returns the trace's metadata and its flat encoding
	// (engine.Trace.AppendFlat's numbers as little-endian float64s), read
	// as the caller reads, holding a bounded part of it; a damaged trace
	// is an error of Read.
	TraceFlat(name string) (TraceInfo, io.Reader, error)
	// DeleteTrace removes the stored trace called name for good.
	DeleteTrace(name string) error
}

// Captures are the captures games stream into sessions (captures.go).
type Captures interface {
	// CreateCapture stores a new capture, its counts zero, under a new
	// id; a name a trace or capture has is ErrTraceExists.
	CreateCapture(c Capture) (Capture, error)
	// Capture returns an open capture, or ErrCaptureNotFound.
	Capture(id string) (Capture, error)
	// Captures returns a session's open captures ("": every session's).
	Captures(session string) ([]Capture, error)
	// CaptureBytes returns the compressed bytes the open captures hold.
	CaptureBytes() (int64, error)
	// AppendCaptureBatches stores batches durably, all or none, each its
	// capture's next, and returns the bytes each took.
	AppendCaptureBatches(batches []CaptureBatch) ([]int64, error)
	// SetCaptureDropped records a capture's final count of dropped updates.
	SetCaptureDropped(id string, dropped int) error
	// CaptureUpdates calls fn with a capture's updates in order, holding
	// one batch at a time.
	CaptureUpdates(id string, fn func(CaptureUpdate) error) error
	// FinishCapture saves tr as a trace and removes the capture, in one
	// transaction.
	FinishCapture(id string, tr *engine.Trace, format string, now time.Time) (TraceInfo, error)
}

// Jobs are the sweeps' and tunings' records, kept so that their pages
// outlive the process: what each was asked, how it ended and, for a
// finished one, its result. The latest MaxJobs are kept.
type Jobs interface {
	// SaveJob stores j, replacing the record of the same id.
	SaveJob(j Job) error
	// LoadJob returns the job with id, or ErrJobNotFound.
	LoadJob(id string) (Job, error)
	// InterruptJobs marks every job still recorded as running as
	// interrupted, at now: a server calls it when it starts, as no job of
	// an earlier process can still run.
	InterruptJobs(now time.Time) (int, error)
}

// Job is a sweep's or a tuning's record.
type Job struct {
	ID      string
	Kind    string // sweep or tune
	State   string // running, done, cancelled, failed or interrupted
	Error   string // why it failed or was interrupted
	Done    int    // results finished
	Total   int    // results asked
	Spec    []byte // what it was asked, JSON
	Result  []byte // its result, JSON; only when done
	Created time.Time
	Ended   time.Time // zero while it runs
}

// MaxJobs is how many job records a store keeps; older ones go.
const MaxJobs = 200

// ErrDamaged is a stored session or revision that cannot be read (its
// settings are not JSON, a row is missing): the error names which; the rest
// of the store is unaffected. A session with a damaged revision opens at
// its latest revision that can be read; one with none is ErrDamaged.
var ErrDamaged = errors.New("damaged")

// ErrJobNotFound is LoadJob's error for an unknown id.
var ErrJobNotFound = errors.New("job not found")

// Limits on what a session may hold.
const (
	SessionIDLen  = 12                  // characters of a session id
	MaxNameRunes  = 200                 // longest session name
	MaxNotesRunes = 10000               // longest notes
	RestoreWindow = 30 * 24 * time.Hour // how long a deleted session can be restored
)

// sessionIDAlphabet is lower-case base32 (RFC 4648 letters and 2–7): URL-safe,
// unambiguous when read aloud, and case-insensitive systems cannot mangle it.
const sessionIDAlphabet = "abcdefghijklmnopqrstuvwxyz234567"

// Errors a store returns besides validation errors (*engine.FieldError).
var (
	ErrSessionNotFound = errors.New("session not found")
	ErrSessionDeleted  = errors.New("session deleted")
	ErrRevNotFound     = errors.New("revision not found")
)

// Draft is what a save carries: the session's name and notes and the
// settings (techniques and scenario included).
type Draft struct {
	Name     string
	Notes    string
	Settings engine.Settings
}

// Revision is one saved state of a session.
type Revision struct {
	ID       string // the session's id
	Rev      int    // 1 for the first save, then 2, 3, ...
	Name     string
	Notes    string
	Settings engine.Settings
	Time     time.Time // when it was saved
}

// RevisionInfo describes a revision in a session's history.
type RevisionInfo struct {
	Rev     int
	Name    string
	Time    time.Time
	Changed []string // vocabulary names of the settings that differ from the previous readable revision
	// Damaged says why the revision cannot be read; "" when it can. A
	// damaged revision has no Changed.
	Damaged string
}

// Session is a session's latest readable revision with its history.
type Session struct {
	Revision                // the latest revision that can be read: Latest unless that one is damaged
	Latest   int            // the latest revision's number
	Created  time.Time      // time of revision 1
	Deleted  time.Time      // zero unless deleted
	History  []RevisionInfo // every revision, oldest first
}

// Summary is one line of a session list.
type Summary struct {
	ID      string
	Name    string // the latest revision's name
	Rev     int    // the latest revision
	Created time.Time
	Updated time.Time // time of the latest revision
	Deleted time.Time // zero unless deleted
}

// TraceInfo describes a stored or sample trace.
type TraceInfo struct {
	Name     string
	Format   string // the file format it came from (csv, jsonl, seed), live, or sample
	Created  time.Time
	Packets  int
	Entities int
	Span     float64 // s, first to last send
	Sample   bool    // built in: listed and loaded, never stored or deleted
	Title    string  // a sample's title; "" for a stored trace
	Doc      string  // a sample's one-line description; "" for a stored trace

	// What the trace measures, kept with it so that a list needs no
	// decoding: the network derived from it, and its largest speed (m/s).
	Network  engine.NetworkEstimate
	MaxSpeed float64
}

// Errors about traces besides validation errors.
var (
	ErrTraceNotFound = errors.New("trace not found")
	ErrTraceExists   = errors.New("trace name taken")
	ErrTraceSample   = errors.New("trace is a built-in sample")
)

// newSessionID returns SessionIDLen random characters of sessionIDAlphabet
// (60 bits) read from r.
func newSessionID(r io.Reader) (string, error) {
	var b [SessionIDLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("new session id: %w", err)
	}
	for i := range b {
		b[i] = sessionIDAlphabet[b[i]&31]
	}
	return string(b[:]), nil
}

// CheckSessionID accepts exactly the ids newSessionID makes, so nothing else
// (paths, quotes, "../") reaches a query or a URL.
func CheckSessionID(id string) error {
	ok := len(id) == SessionIDLen
	for i := 0; ok && i < len(id); i++ {
		ok = strings.IndexByte(sessionIDAlphabet, id[i]) >= 0
	}
	if !ok {
		return &engine.FieldError{Field: "id", Value: wire.Clip(id, 40),
			Allowed: strconv.Itoa(SessionIDLen) + " characters of a-z and 2-7"}
	}
	return nil
}

// Check validates d and puts it in canonical form: the name trimmed,
// the settings validated by the engine and canonical (techniques in display
// order, once each).
func (d *Draft) Check() error {
	d.Name = strings.TrimSpace(d.Name)
	n := utf8.RuneCountInString(d.Name)
	if n == 0 || n > MaxNameRunes || !utf8.ValidString(d.Name) || strings.ContainsFunc(d.Name, unicode.IsControl) {
		return &engine.FieldError{Field: "name", Value: wire.Clip(d.Name, 40),
			Allowed: "1 to " + strconv.Itoa(MaxNameRunes) + " characters, no control characters"}
	}
	if n := utf8.RuneCountInString(d.Notes); n > MaxNotesRunes {
		// In the designer's terms: what the box holds, and what they gave.
		return wire.BadRequest("notes", fmt.Sprintf("notes: at most %d characters, got %d", MaxNotesRunes, n))
	}
	badNotes := func(r rune) bool { return unicode.IsControl(r) && r != '\n' && r != '\r' && r != '\t' }
	if !utf8.ValidString(d.Notes) || strings.ContainsFunc(d.Notes, badNotes) {
		return &engine.FieldError{Field: "notes", Value: wire.Clip(d.Notes, 40),
			Allowed: "at most " + strconv.Itoa(MaxNotesRunes) + " characters, no control characters but tabs and line breaks"}
	}
	if err := d.Settings.Validate(); err != nil {
		return err
	}
	d.Settings = engine.Canonical(d.Settings)
	return nil
}
