package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"interplab/cmd/lab/internal/export"
	"interplab/cmd/lab/internal/jsonapi"
	"interplab/engine"
)

// exportOrigin reads the from= of an export link, where the settings come
// from, for the export's heading:
//
//	session:ID@REV   a session's revision (the session page's links): the
//	                 heading names it, and says so when the settings have
//	                 changed since (unsaved edits)
//	tune:ID          a tuning's recommendation (the tuning page's links)
//
// Without from= the heading names the preset, or the lab's defaults when
// the settings are the defaults.
func (s *Server) exportOrigin(preset string, settings engine.Settings, from []string) (export.Origin, error) {
	o := export.Origin{Preset: preset}
	if len(from) == 0 {
		return o, nil
	}
	bad := func(msg string) error {
		return &jsonapi.Error{Status: http.StatusBadRequest, Field: "from", Msg: fmt.Sprintf("from = %q: %s", jsonapi.Clip(strings.Join(from, ","), 60), msg)}
	}
	const want = "want session:ID@REV or tune:ID"
	if len(from) > 1 {
		return o, bad("one value: " + want)
	}
	kind, ref, _ := strings.Cut(from[0], ":")
	switch kind {
	case "session":
		id, revText, ok := strings.Cut(ref, "@")
		rev, err := strconv.Atoi(revText)
		if !ok || err != nil || rev < 1 {
			return o, bad(want)
		}
		r, err := s.store.Revision(id, rev)
		if err != nil {
			return o, bad("no such saved revision")
		}
		o.From = "session " + strconv.Quote(r.Name) + " rev " + strconv.Itoa(rev)
		if len(engine.Diff(r.Settings, settings)) > 0 {
			o.From += ", with unsaved changes"
		}
	case "tune":
		if ref == "" || len(ref) > 64 || strings.ContainsFunc(ref, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9') }) {
			return o, bad("a tuning's id is letters a-z and digits")
		}
		o.From = "tuned: tuning " + ref
		if preset != "" {
			o.From += ", from preset " + strconv.Quote(preset)
		}
	default:
		return o, bad(want)
	}
	return o, nil
}
