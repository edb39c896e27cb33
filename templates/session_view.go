package templates

import (
	"net/url"
	"strconv"
	"strings"

	"interplab/engine"
)

// SessionView is the saved session a lab page is tied to (PageView.Session)
// or whose history a page lists.
type SessionView struct {
	ID     string
	Rev    int  // the revision shown; when Live, the revision the live state started from
	Latest int  // the session's latest revision
	Live   bool // the page follows the session's live state (/s/{id}); false on /s/{id}/r/{rev}
	Name   string
	Notes  string
	// Revisions lists every revision, newest first. On the lab page only
	// Rev, Name and Time are set.
	Revisions []RevisionView
	// Saved is the saved revision's settings (the latest on a live page,
	// the one shown on /s/{id}/r/{rev}) as a link query against the
	// defaults: what the page's unsaved-changes marker compares with.
	Saved string
	// Edits are the settings the address's query asked for
	// (/s/{id}?loss=20, 20 %), canonical "name=text&..." (loss=20%); the page applies them
	// as unsaved edits, with a notice.
	Edits string
	// Notice says which revisions cannot be read (damaged) and what that
	// costs, shown as a banner; "" when none is damaged.
	Notice string
}

// RevisionView is one revision in a session's history.
type RevisionView struct {
	Rev     int
	Name    string
	Notes   string
	Time    string       // when it was saved, as shown
	Changes []ChangeView // the settings it changed from the previous readable revision
	Damaged string       // why it cannot be read; "" when it can
}

// ChangeView is one setting a revision changed, its values as shown to a
// designer (in display units, e.g. "120 ms").
type ChangeView struct {
	Name, Old, New string
}

// SessionsView is the sessions page: the saved sessions matching a search.
type SessionsView struct {
	Query   string           // the search, as typed
	Error   string           // a problem with the search
	Live    []SessionSummary // newest first
	More    int              // live sessions matching but not listed
	Deleted []SessionSummary // deleted ones, most recently saved first
}

// SessionSummary is one line of the sessions page.
type SessionSummary struct {
	ID      string
	Name    string
	Notes   string // an excerpt of the latest revision's notes
	Rev     int    // the latest revision
	Updated string // when the latest revision was saved, as shown
	Deleted string // when it was deleted, as shown; "" for a live session
	// RestoreUntil is the last moment a deleted session can be restored, as
	// shown; "" when it no longer can.
	RestoreUntil string
	// Damaged says why the session cannot be read; "" when it can.
	Damaged string
}

// Shown returns p's value v as a designer reads it (engine.Param.Show): in
// the display unit with its unit ("120 ms", "3.5 %", "0.2 ms"), else its
// text form ("pareto", "epic,buffer", "true").
func Shown(p *engine.Param, v float64) string { return p.Show(v) }

// CompareURL is the comparison page's address for the given variant refs.
func CompareURL(refs ...string) string {
	var b strings.Builder
	b.WriteString("/compare")
	for i, r := range refs {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString("v=")
		b.WriteString(url.QueryEscape(r))
	}
	return b.String()
}

// compareChoice is one checkbox of the lab page's comparison picker.
type compareChoice struct {
	Ref, Label string
	Checked    bool
}

// compareChoices returns the variants the lab page offers to compare the
// current settings with: on a session page the session's revisions, then
// the presets. The session's shown revision is checked, else the page's
// preset, else the first preset.
func compareChoices(v PageView) []compareChoice {
	var out []compareChoice
	checked := false
	if s := v.Session; s != nil {
		for _, r := range s.Revisions {
			c := compareChoice{Ref: "session:" + s.ID + "@" + strconv.Itoa(r.Rev),
				Label: "rev " + strconv.Itoa(r.Rev) + " · " + r.Name + " · " + r.Time, Checked: r.Rev == s.Rev}
			checked = checked || c.Checked
			out = append(out, c)
		}
	}
	presets := len(out)
	for _, p := range v.Presets {
		c := compareChoice{Ref: "preset:" + p.Name, Label: p.Title, Checked: !checked && p.Name == v.Preset}
		checked = checked || c.Checked
		out = append(out, c)
	}
	if !checked && presets < len(out) {
		out[presets].Checked = true
	}
	return out
}

// compareHref is the comparison of the current settings with the checked
// choices.
func compareHref(v PageView) string {
	refs := []string{"q:" + v.Query}
	for _, c := range compareChoices(v) {
		if c.Checked {
			refs = append(refs, c.Ref)
		}
	}
	return CompareURL(refs...)
}

// pageTitle is the lab page's title: the session's name first when there is one.
func pageTitle(v PageView) string {
	if v.Session != nil {
		return v.Session.Name + " · Interp Lab"
	}
	return "Interp Lab"
}
