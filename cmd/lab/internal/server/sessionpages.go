package server

import (
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"interplab/cmd/lab/internal/access"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/link"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
	"interplab/templates"
)

// Limits of the session pages.
const (
	sessionsPageMax     = 200 // sessions listed on the sessions page; search finds the others
	sessionNotesExcerpt = 140 // characters of notes shown in the list
	sessionTimeLayout   = "2006-01-02 15:04 UTC"
)

// The pages of saved sessions (routes.go):
//
//	GET /sessions?q=          the list, newest first, searched by name; deleted ones below
//	GET /s/{id}               the lab on the session's live state (its latest revision
//	                          when no tab has it open), following it over /ws/sessions/{id}
//	GET /s/{id}/r/{rev}       the lab on one revision, not live
//	GET /s/{id}/history       every revision and the settings it changed
//
// A session page's query (the share link the page keeps in the address bar)
// is not read: the session is the state. An unknown or malformed id or
// revision is a 404 page, a deleted session a 410 page.

// noSessionPage answers /s/ paths no session page takes.
func (s *Server) noSessionPage(w http.ResponseWriter, r *http.Request) {
	sessionPageFail(w, r, store.ErrSessionNotFound)
}

func (s *Server) sessionsPage(w http.ResponseWriter, r *http.Request) {
	v := templates.SessionsView{Query: r.URL.Query().Get("q")}
	status := http.StatusOK
	if n := utf8.RuneCountInString(v.Query); n > store.MaxNameRunes {
		v.Error = fmt.Sprintf("the search is %d characters long: a name has at most %d", n, store.MaxNameRunes)
		v.Query = jsonapi.Clip(v.Query, store.MaxNameRunes)
		status = http.StatusBadRequest
	}
	list, err := s.store.List(v.Query, true)
	if err != nil {
		sessionPageFail(w, r, err)
		return
	}
	// Damaged revisions, by SQLite's JSON check of the sessions shown: the
	// latest is also checked whole below.
	var shown []string
	for _, sum := range list {
		if sum.Deleted.IsZero() && len(shown) < sessionsPageMax {
			shown = append(shown, sum.ID)
		}
	}
	damaged, err := s.store.DamagedRevisions(shown)
	if err != nil {
		log.Printf("lab: sessions page: %v", err) // the list goes on without the marks
	}
	now := s.now()
	for _, sum := range list {
		line := templates.SessionSummary{ID: sum.ID, Name: sum.Name, Rev: sum.Rev, Updated: sum.Updated.Format(sessionTimeLayout)}
		if !sum.Deleted.IsZero() {
			line.Deleted = sum.Deleted.Format(sessionTimeLayout)
			if until := sum.Deleted.Add(store.RestoreWindow); now.Before(until) {
				line.RestoreUntil = until.Format(sessionTimeLayout)
			}
			v.Deleted = append(v.Deleted, line)
			continue
		}
		if len(v.Live) == sessionsPageMax {
			v.More++
			continue
		}
		rev, err := s.store.Latest(sum.ID)
		switch {
		case err == nil:
			line.Notes = notesExcerpt(rev.Notes)
			bad := damaged[sum.ID]
			if rev.Rev != sum.Rev && !slices.Contains(bad, sum.Rev) {
				bad = append(bad, sum.Rev) // damaged in a way only decoding shows
			}
			if len(bad) > 0 {
				line.Damaged = damagedLine(bad, rev.Rev, sum.Rev)
			}
		case errors.Is(err, store.ErrSessionDeleted), errors.Is(err, store.ErrSessionNotFound):
			// Deleted or purged since the list was read.
		default:
			// One session that cannot be read is listed as damaged; the
			// others are not its hostages.
			log.Printf("lab: sessions page: %v", err)
			line.Damaged = "damaged: no revision can be read"
		}
		v.Live = append(v.Live, line)
	}
	templates.Render(w, r, status, templates.Sessions(v))
}

// damagedLine is the sessions page's mark of a session whose revisions bad
// cannot be read, which opens at revision opens of latest.
func damagedLine(bad []int, opens, latest int) string {
	which := revisionList(bad)
	if opens != latest {
		return fmt.Sprintf("damaged: %s cannot be read; it opens at revision %d", which, opens)
	}
	return "damaged: " + which + " cannot be read (see its history)"
}

// session loads session id for a page, or answers with the error page (404
// unknown, 410 deleted) and reports false.
func (s *Server) session(w http.ResponseWriter, r *http.Request, id string) (store.Session, bool) {
	sess, err := s.store.Get(id)
	if err == nil && !sess.Deleted.IsZero() {
		err = store.ErrSessionDeleted
	}
	if err != nil {
		sessionPageFail(w, r, err)
		return store.Session{}, false
	}
	return sess, true
}

// open serves the lab page on a session: its live state, or one revision.
func (s *Server) sessionPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	sess, ok := s.session(w, r, id)
	if !ok {
		return
	}
	view := &templates.SessionView{ID: id, Rev: sess.Rev, Latest: sess.Latest, Name: sess.Name, Notes: sess.Notes,
		Notice: damageNotice(sess)}
	settings := sess.Settings
	saved := sess.Settings
	if text := r.PathValue("rev"); text != "" {
		rev, err := parseRevText(text)
		if err == nil {
			var got store.Revision
			got, err = s.store.Revision(id, rev)
			view.Rev, view.Name, view.Notes, settings = got.Rev, got.Name, got.Notes, got.Settings
			saved = got.Settings
		}
		if err != nil {
			sessionPageFail(w, r, err)
			return
		}
	} else {
		view.Live = true
		if live, ok := s.hub.Live(id); ok {
			settings = live
		}
	}
	for i := len(sess.History) - 1; i >= 0; i-- {
		h := sess.History[i]
		view.Revisions = append(view.Revisions, templates.RevisionView{Rev: h.Rev, Name: h.Name, Time: h.Time.Format(sessionTimeLayout), Damaged: h.Damaged})
	}
	// The plain lab page's view, with no link to read, then the session's state.
	plain := r.Clone(r.Context())
	plain.URL.RawQuery = ""
	v := s.pageView(plain)
	v.Settings = settings
	v.Preset = s.nearestPreset(saved)
	setQuery(&v, link.Query(v.Preset, settings))
	view.Saved = link.Query("", saved)
	// ParseQuery keeps the pairs it could read and says what it could not:
	// both reach the designer, as on the lab page.
	q, qerr := url.ParseQuery(r.URL.RawQuery)
	view.Edits, v.Errors = sessionQueryEdits(q, settings)
	if qerr != nil {
		v.Errors = append([]string{"malformed link: " + qerr.Error()}, v.Errors...)
	}
	v.Session = view
	templates.Render(w, r, http.StatusOK, templates.Page(v))
}

// nearestPreset is the built-in preset a session's settings s differ
// least from (the fewest settings), "" when none is nearer than the
// defaults: what the session was saved from, as far as its settings tell,
// for the page's preset picker. The page's address does not carry it: a
// session's address holds only its unsaved changes.
func (s *Server) nearestPreset(settings engine.Settings) string {
	best, fewest := "", len(engine.Diff(engine.Defaults(), settings))
	for _, p := range s.presets {
		if n := len(engine.Diff(p.Settings, settings)); n < fewest {
			best, fewest = p.Name, n
		}
	}
	return best
}

// sessionQueryEdits reads the query of a session page (/s/ID?loss=20) as
// edits on top of the settings shown: the ones the engine takes, in
// parameter-table order as "name=text&...", then the custom scenario's
// text (scenarioText, as a share link carries it), and an error for each it
// refuses (an unknown name with the closest ones, a value out of range in
// the unit typed). The page applies the edits as unsaved changes. Such a
// query is what "Copy link with my unsaved changes" makes: the session's
// own links (/s/ID, /s/ID/r/N) carry none. A preset is not an edit: the
// page names the preset the session was saved from itself (nearestPreset),
// so a query naming one is refused with where a preset's link opens.
func sessionQueryEdits(q url.Values, settings engine.Settings) (string, []string) {
	var errs []string
	s := settings
	for name, vals := range q {
		if name == link.ScenarioTextKey {
			continue
		}
		if name == link.PresetKey {
			errs = append(errs, (&engine.FieldError{Field: name, Value: strings.Join(vals, ","),
				Allowed: "no preset on a session's link, which carries only unsaved changes (a preset opens at /?preset=NAME)"}).Error())
			continue
		}
		if _, ok := engine.Lookup(name); !ok {
			errs = append(errs, engine.UnknownParamError(name, strings.Join(vals, ",")).Error())
		}
	}
	slices.Sort(errs)
	edits := url.Values{}
	var order []string
	for _, p := range engine.Params() {
		vals, ok := q[p.Name]
		if !ok {
			continue
		}
		if len(vals) != 1 {
			errs = append(errs, (&engine.FieldError{Field: p.Name, Value: strings.Join(vals, ","), Allowed: "one value"}).Error())
			continue
		}
		before := s.Text(p.Name)
		if err := s.SetText(p.Name, vals[0]); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if s.Text(p.Name) == before {
			continue // the page's own address mirrors its state: no edit
		}
		edits.Set(p.Name, s.Text(p.Name))
		order = append(order, p.Name)
	}
	var parts []string
	for _, name := range order {
		parts = append(parts, url.QueryEscape(name)+"="+url.QueryEscape(edits.Get(name)))
	}
	switch vals := q[link.ScenarioTextKey]; {
	case len(vals) > 1:
		errs = append(errs, (&engine.FieldError{Field: link.ScenarioTextKey, Value: strings.Join(vals, ","), Allowed: "one value"}).Error())
	case len(vals) == 1 && vals[0] != settings.ScenarioText:
		parts = append(parts, link.ScenarioTextKey+"="+url.QueryEscape(vals[0]))
	}
	return strings.Join(parts, "&"), errs
}

// history serves the list of a session's revisions with what each changed.
func (s *Server) historyPage(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	sess, ok := s.session(w, r, id)
	if !ok {
		return
	}
	view := templates.SessionView{ID: id, Rev: sess.Rev, Latest: sess.Latest, Name: sess.Name, Notes: sess.Notes,
		Notice: damageNotice(sess)}
	var prev engine.Settings
	revs := make([]templates.RevisionView, 0, len(sess.History))
	for _, h := range sess.History {
		if h.Damaged != "" {
			revs = append(revs, templates.RevisionView{Rev: h.Rev, Name: h.Name, Time: h.Time.Format(sessionTimeLayout), Damaged: h.Damaged})
			continue
		}
		rev, err := s.store.Revision(id, h.Rev)
		if err != nil {
			sessionPageFail(w, r, err)
			return
		}
		rv := templates.RevisionView{Rev: h.Rev, Name: rev.Name, Notes: rev.Notes, Time: h.Time.Format(sessionTimeLayout)}
		if h.Rev > 1 {
			for _, name := range h.Changed {
				param, ok := engine.Lookup(name)
				if !ok {
					continue
				}
				rv.Changes = append(rv.Changes, templates.ChangeView{Name: name,
					Old: templates.Shown(param, param.Get(&prev)), New: templates.Shown(param, param.Get(&rev.Settings))})
			}
		}
		prev = rev.Settings
		revs = append(revs, rv)
	}
	for i := len(revs) - 1; i >= 0; i-- {
		view.Revisions = append(view.Revisions, revs[i])
	}
	templates.Render(w, r, http.StatusOK, templates.History(view))
}

// parseRevText reads a revision number as written in a URL: 1, 2, ... with
// no sign or leading zero.
func parseRevText(text string) (int, error) {
	rev, err := strconv.Atoi(text)
	if err != nil || rev < 1 || strconv.Itoa(rev) != text {
		return 0, store.ErrRevNotFound
	}
	return rev, nil
}

// notesExcerpt is the start of notes, on one line.
func notesExcerpt(notes string) string {
	return jsonapi.Clip(strings.Join(strings.Fields(notes), " "), sessionNotesExcerpt)
}

// sessionPageFail answers err with an error page: 404 for an unknown or
// malformed id or revision, 410 for a deleted session, 503 for an
// unreachable database, 500 for the server's own failures (the causes of
// both logged).
func sessionPageFail(w http.ResponseWriter, r *http.Request, err error) {
	v := templates.ErrorView{Status: http.StatusNotFound, Title: "No such session",
		Message: "There is no saved session at " + r.URL.Path + "."}
	var fe *engine.FieldError
	switch {
	case errors.As(err, &fe) && fe.Field == "id":
		v.Message = "“" + jsonapi.Clip(r.PathValue("id"), 40) + "” is not a session id: ids are " +
			strconv.Itoa(store.SessionIDLen) + " characters of a-z and 2-7."
	case errors.Is(err, store.ErrSessionNotFound):
	case errors.Is(err, store.ErrRevNotFound):
		v.Title = "No such revision"
		v.Message = "Session " + r.PathValue("id") + " has no revision “" + jsonapi.Clip(r.PathValue("rev"), 20) + "”."
	case store.Unreachable(err):
		log.Printf("lab: session pages: %v", err)
		v = access.OutageView(r.URL.Path)
		jsonapi.SetRetryAfter(w, store.UnreachableRetry)
	case errors.Is(err, store.ErrDamaged):
		log.Printf("lab: session pages: %v", err)
		v.Status, v.Title, v.Message = http.StatusInternalServerError, "Damaged session", err.Error()+"."
	case errors.Is(err, store.ErrSessionDeleted):
		v.Status, v.Title = http.StatusGone, "Session deleted"
		v.Message = fmt.Sprintf("This session was deleted. It can be restored from the sessions page for %d days after its deletion.",
			int(store.RestoreWindow.Hours()/24))
	default:
		log.Printf("lab: session pages: %v", err)
		v.Status, v.Title, v.Message = http.StatusInternalServerError, "Server error", "The sessions could not be read. The server's log says why."
	}
	writeErrorPage(w, r, v)
}
