package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// The sessions API (routes.go):
//
//	POST   /api/sessions                      create: {"name","notes","settings":{...}} → 201, the revision
//	GET    /api/sessions?q=&deleted=1         list, newest first; q searches names; deleted=1 includes deleted ones
//	GET    /api/sessions/{id}                 the latest revision, with the history and what each revision changed
//	GET    /api/sessions/{id}/revisions/{rev} one revision
//	PUT    /api/sessions/{id}                 save a new revision of rev (or If-Match: "rev")
//	DELETE /api/sessions/{id}                 delete (restorable for 30 days)
//	POST   /api/sessions/{id}/restore         restore a deleted session
//	GET    /ws/sessions/{id}                  live sync (package live)
//
// Create starts the settings from engine.Defaults. A save names the
// revision it edits, as "rev" in the body or If-Match: "N" (GET gives it as
// the ETag), and starts every field it leaves out from that revision, so
// {"rev": 3, "name": "x"} renames; settings come from nowhere else (not
// from the live state of the session's clients). When the session has moved
// on since that revision, the save is refused with 409 Conflict, its body
// holding the latest revision as "current", and nothing is written: the
// client shows the conflict and saves again over the latest revision, or
// takes it. A save that names no revision is a 428. A save that changes
// nothing makes no revision: it answers 200 with the revision it edited and
// "unchanged": true. The session's live
// clients are then told what the save changed, and keep their other live
// changes. Settings keys are the vocabulary. Errors are the API's (api.go):
// 400 for bad input, 404 for an unknown or malformed session id or an
// unknown revision, 410 for a deleted session, 409 and 428 as above, and
// the route table's 403, 413 and 415.

// sessionRequest is the body of a create or a save. Pointers and the raw
// settings tell a field left out from one set to its zero value.
type sessionRequest struct {
	Rev      *int            `json:"rev"` // a save's: the revision it edits
	Name     *string         `json:"name"`
	Notes    *string         `json:"notes"`
	Settings json.RawMessage `json:"settings"`
}

// sessionRevisionJSON is a revision in the API.
type sessionRevisionJSON struct {
	ID       string          `json:"id"`
	Rev      int             `json:"rev"`
	Name     string          `json:"name"`
	Notes    string          `json:"notes"`
	Time     time.Time       `json:"time"`
	Settings engine.Settings `json:"settings"`
	// Unchanged is set on the answer to a save that changed nothing, and
	// so made no revision: this is the revision it edited.
	Unchanged bool `json:"unchanged,omitempty"`
}

// sessionJSON is a session in the API: its latest revision that can be
// read, and its history. When a revision is damaged, notice says what that
// costs and the revision is marked in the history; when it is the latest,
// rev is the latest readable one and latest says which is the latest.
type sessionJSON struct {
	sessionRevisionJSON
	Latest    int                   `json:"latest"`
	Notice    string                `json:"notice,omitempty"`
	Created   time.Time             `json:"created"`
	Deleted   *time.Time            `json:"deleted,omitempty"`
	Revisions []sessionRevisionInfo `json:"revisions"` // oldest first
}

type sessionRevisionInfo struct {
	Rev     int       `json:"rev"`
	Name    string    `json:"name"`
	Time    time.Time `json:"time"`
	Changed []string  `json:"changed"`           // vocabulary names changed since the previous readable revision
	Damaged string    `json:"damaged,omitempty"` // why it cannot be read
}

type sessionSummaryJSON struct {
	ID      string     `json:"id"`
	Name    string     `json:"name"`
	Rev     int        `json:"rev"`
	Created time.Time  `json:"created"`
	Updated time.Time  `json:"updated"`
	Deleted *time.Time `json:"deleted,omitempty"`
}

func toRevisionJSON(r store.Revision) sessionRevisionJSON {
	return sessionRevisionJSON{ID: r.ID, Rev: r.Rev, Name: r.Name, Notes: r.Notes, Time: r.Time, Settings: r.Settings}
}

func toSessionJSON(s store.Session) sessionJSON {
	out := sessionJSON{sessionRevisionJSON: toRevisionJSON(s.Revision), Latest: s.Latest, Notice: damageNotice(s),
		Created: s.Created, Revisions: make([]sessionRevisionInfo, len(s.History))}
	if !s.Deleted.IsZero() {
		out.Deleted = &s.Deleted
	}
	for i, h := range s.History {
		out.Revisions[i] = sessionRevisionInfo(h)
	}
	return out
}

// damageNotice says what the damaged revisions of s cost, for the API's
// notice and the session page's banner; "" when none is damaged.
func damageNotice(s store.Session) string {
	var bad []int
	for _, h := range s.History {
		if h.Damaged != "" {
			bad = append(bad, h.Rev)
		}
	}
	if len(bad) == 0 {
		return ""
	}
	which := revisionList(bad)
	if s.Rev != s.Latest {
		return fmt.Sprintf("%s of this session cannot be read (its stored settings are damaged): this is revision %d, the latest that can; "+
			"a save makes revision %d from what you save. The history marks what cannot be read.", which, s.Rev, s.Latest+1)
	}
	return fmt.Sprintf("%s of this session cannot be read (its stored settings are damaged); the latest revision is whole. The history marks what cannot be read.", which)
}

// revisionList names revisions revs (at least one) in words: "revision 3",
// "revisions 3, 5".
func revisionList(revs []int) string {
	if len(revs) == 1 {
		return "revision " + strconv.Itoa(revs[0])
	}
	nums := make([]string, len(revs))
	for i, r := range revs {
		nums[i] = strconv.Itoa(r)
	}
	return "revisions " + strings.Join(nums, ", ")
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	req, err := readSessionRequest(r)
	if err != nil {
		fail(w, err)
		return
	}
	d := store.Draft{Settings: engine.Defaults()}
	if req.Name != nil {
		d.Name = *req.Name
	}
	if req.Notes != nil {
		d.Notes = *req.Notes
	}
	if err := decodeSessionSettings(req.Settings, &d.Settings); err != nil {
		fail(w, err)
		return
	}
	rev, err := s.store.Create(d, s.now())
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/sessions/"+rev.ID)
	jsonapi.WriteJSON(w, http.StatusCreated, toRevisionJSON(rev))
}

func (s *Server) saveSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := store.CheckSessionID(id); err != nil {
		fail(w, err)
		return
	}
	req, err := readSessionRequest(r)
	if err != nil {
		fail(w, err)
		return
	}
	base, err := editedRevision(r, req.Rev)
	if err != nil {
		fail(w, err)
		return
	}
	var prev store.Revision
	rev, err := s.store.Update(id, s.now(), func(latest store.Revision) (store.Draft, error) {
		prev = latest
		if latest.Rev != base {
			return store.Draft{}, &jsonapi.Error{Status: http.StatusConflict, Field: "rev", Current: toRevisionJSON(latest),
				Msg: fmt.Sprintf("the session has moved on: you edited revision %d, the latest is %d (%s); save over it or take it", base, latest.Rev, latest.Name)}
		}
		d := store.Draft{Name: latest.Name, Notes: latest.Notes, Settings: latest.Settings}
		if req.Name != nil {
			d.Name = *req.Name
		}
		if req.Notes != nil {
			d.Notes = *req.Notes
		}
		return d, decodeSessionSettings(req.Settings, &d.Settings)
	})
	if err != nil {
		fail(w, err)
		return
	}
	out := toRevisionJSON(rev)
	if rev.Rev == prev.Rev {
		out.Unchanged = true // the store kept the revision: nothing to tell the live clients
	} else {
		s.hub.Saved(prev, rev)
	}
	w.Header().Set("ETag", revisionETag(rev.Rev))
	jsonapi.WriteJSON(w, http.StatusOK, out)
}

// revisionETag is a revision's entity tag: "N".
func revisionETag(rev int) string { return `"` + strconv.Itoa(rev) + `"` }

// editedRevision is the revision a save edits: rev from its body, or its
// If-Match header ("N", or W/"N"); one of them, and the same if both.
func editedRevision(r *http.Request, rev *int) (int, error) {
	fromHeader := 0
	if m := strings.TrimSpace(r.Header.Get("If-Match")); m != "" {
		n, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(m, "W/"), `"`))
		if err != nil || n < 1 {
			return 0, jsonapi.BadRequest("rev", "If-Match "+strconv.Quote(jsonapi.Clip(m, 20))+": want the revision you edit, as \"N\"")
		}
		fromHeader = n
	}
	switch {
	case rev == nil && fromHeader == 0:
		return 0, &jsonapi.Error{Status: http.StatusPreconditionRequired, Field: "rev",
			Msg: "a save must name the revision it edits: \"rev\": N in the body, or If-Match: \"N\" (GET gives it)"}
	case rev == nil:
		return fromHeader, nil
	case *rev < 1:
		return 0, jsonapi.BadRequest("rev", fmt.Sprintf("rev %d: want the revision you edit, 1 or more", *rev))
	case fromHeader != 0 && fromHeader != *rev:
		return 0, jsonapi.BadRequest("rev", fmt.Sprintf("rev %d and If-Match %d disagree", *rev, fromHeader))
	}
	return *rev, nil
}

func (s *Server) listSessions(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	search := q.Get("q")
	if n := utf8.RuneCountInString(search); n > store.MaxNameRunes {
		fail(w, jsonapi.BadRequest("q", fmt.Sprintf("q is %d characters long: want at most %d", n, store.MaxNameRunes)))
		return
	}
	withDeleted := false
	if v := q.Get("deleted"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			fail(w, jsonapi.BadRequest("deleted", "deleted = "+strconv.Quote(jsonapi.Clip(v, 20))+": want 1 or 0"))
			return
		}
		withDeleted = b
	}
	list, err := s.store.List(search, withDeleted)
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]sessionSummaryJSON, len(list))
	for i, s := range list {
		out[i] = sessionSummaryJSON{ID: s.ID, Name: s.Name, Rev: s.Rev, Created: s.Created, Updated: s.Updated}
		if !s.Deleted.IsZero() {
			out[i].Deleted = &list[i].Deleted
		}
	}
	jsonapi.WriteJSON(w, http.StatusOK, struct {
		Sessions []sessionSummaryJSON `json:"sessions"`
	}{out})
}

func (s *Server) getSession(w http.ResponseWriter, r *http.Request) {
	sess, err := s.store.Get(r.PathValue("id"))
	if err == nil && !sess.Deleted.IsZero() {
		err = store.ErrSessionDeleted
	}
	if err != nil {
		fail(w, err)
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, toSessionJSON(sess))
}

func (s *Server) sessionRevision(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := store.CheckSessionID(id); err != nil {
		fail(w, err)
		return
	}
	text := r.PathValue("rev")
	rev, err := strconv.Atoi(text)
	if err != nil || rev < 1 || strconv.Itoa(rev) != text {
		fail(w, jsonapi.BadRequest("rev", "rev = "+strconv.Quote(jsonapi.Clip(text, 20))+": want a revision number from 1"))
		return
	}
	got, err := s.store.Revision(id, rev)
	if err != nil {
		fail(w, err)
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, toRevisionJSON(got))
}

func (s *Server) deleteSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	now := s.now()
	if err := s.store.Delete(id, now); err != nil {
		fail(w, err)
		return
	}
	s.hub.Gone(id)
	sess, err := s.store.Get(id)
	if err != nil {
		fail(w, err)
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, struct {
		ID           string    `json:"id"`
		Deleted      time.Time `json:"deleted"`
		RestoreUntil time.Time `json:"restoreUntil"`
	}{id, sess.Deleted, sess.Deleted.Add(store.RestoreWindow)})
}

func (s *Server) restoreSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := s.store.Restore(id, s.now()); err != nil {
		fail(w, err)
		return
	}
	sess, err := s.store.Get(id)
	if err != nil {
		fail(w, err)
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, toSessionJSON(sess))
}

func (s *Server) sessionWS(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := s.store.Latest(id); err != nil {
		fail(w, err)
		return
	}
	ident, err := identity(r)
	if err != nil {
		fail(w, err)
		return
	}
	s.hub.ServeIdentified(w, r, id, ident)
}

// readSessionRequest reads a create or save body: no unknown keys.
func readSessionRequest(r *http.Request) (sessionRequest, error) {
	var req sessionRequest
	err := jsonapi.Decode(r, &req)
	return req, err
}

// decodeSessionSettings decodes vocabulary keys onto s; absent (or null)
// raw leaves s as it is. The caller validates.
func decodeSessionSettings(raw json.RawMessage, s *engine.Settings) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	return jsonapi.Unmarshal(raw, s, "settings")
}
