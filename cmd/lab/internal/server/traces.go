package server

import (
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"time"

	"interplab/cmd/lab/internal/jsonapi"
	"interplab/cmd/lab/internal/live"
	"interplab/cmd/lab/internal/report"
	"interplab/cmd/lab/internal/store"
	"interplab/cmd/lab/internal/traceio"
	"interplab/engine"
)

// The traces API (routes.go):
//
//	POST   /api/traces?name=&format=     import a trace file → 201, the trace as GET gives it
//	GET    /api/traces                   list: the samples, then the stored traces, newest first
//	GET    /api/traces/{name}            the trace's metadata and the network derived from it
//	GET    /api/traces/{name}/flat       its packets for the page's wasm (see below)
//	DELETE /api/traces/{name}            delete a stored trace for good
//	POST   /api/sessions/{id}/trace      save a session's live trace: {"name":"..."} → 201
//
// An import is the file as the body (of one of traceUploadTypes), named by ?name= and
// read as ?format= (csv, jsonl or seed; detected when left out), or a
// multipart/form-data upload with the file in the part "file" and optional
// "name" and "format" fields; the name defaults to the file's name. Names
// are 1 to 64 characters of a-z, 0-9, '.', '_' and '-' (see traceio.CheckName);
// names starting with "sample-" are the built-in samples'. The file is
// spooled to a temporary file as it arrives, then parsed as a stream in
// one of a few parse slots (uploadSlots), so a slow client holds no slot
// and eight large uploads at once take the memory of two; it is saved in
// one transaction: a malformed file saves nothing.
//
// /flat answers application/octet-stream: engine.Trace.AppendFlat's numbers
// (engine.TraceFlatHeader, then engine.TraceFlatStride per packet) as
// little-endian float64s, ready for a Float64Array and engine.TraceFromFlat,
// streamed from the store as a heavy read (reads.go). GET /api/traces/{name}
// reads no packets: the store keeps the trace's measures.
//
// Errors are the API's (api.go), with "line" the file's line at fault
// (absent when the error is not about one line): 400 for a malformed file
// or bad name, 404 for an unknown trace or session, 409 for a name in use or
// a live trace with no packets, 403 for deleting a sample, 503 when the
// heavy reads' slots stay taken, 507 when the disk that spools uploads is
// full, and the route table's 403, 413 (over 32 MiB) and 415.

// traceUploadTypes are the Content-Types an import may declare: a form
// upload, or the file itself as CSV, JSON lines or text.
var traceUploadTypes = []string{"multipart/form-data", "text/csv", "application/x-ndjson", "application/jsonl",
	"application/json", "text/plain", "application/octet-stream"}

// uploadSlots is how many uploaded traces are parsed at once: parsing is
// CPU-bound, and each parse holds its rows (up to ~60 MiB for the largest
// trace), so more would only add memory.
const uploadSlots = 2

func (s *Server) uploadTrace(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, format := q.Get("name"), q.Get("format")
	spool, err := s.spool.Create()
	if err != nil {
		fail(w, spoolError(err))
		return
	}
	defer spool.Close()
	dst := &writeErr{w: spool}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" {
		name, format, err = readTraceMultipart(r, dst, name, format)
	} else {
		_, err = io.Copy(dst, r.Body)
		if err != nil {
			err = traceReadError(err)
		} else if name == "" {
			err = &traceio.InputError{Field: "name", Msg: "missing name: add ?name= (or upload a file as multipart/form-data)"}
		}
	}
	if dst.err != nil {
		err = spoolError(dst.err) // the spool's fault, not the client's
	}
	if err != nil {
		fail(w, err)
		return
	}
	if err := traceio.CheckName(name); err != nil {
		fail(w, err)
		return
	}
	if _, err := spool.Seek(0, io.SeekStart); err != nil {
		fail(w, fmt.Errorf("read the spooled upload: %w", err))
		return
	}
	select {
	case s.uploads <- struct{}{}:
	case <-r.Context().Done():
		return
	}
	tr, format, err := traceio.Parse(spool, format, name)
	<-s.uploads
	if err != nil {
		fail(w, err)
		return
	}
	info, err := s.store.SaveTrace(tr, format, s.now())
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/traces/"+info.Name)
	jsonapi.WriteJSON(w, http.StatusCreated, report.DescribeTrace(info, tr))
}

// readTraceMultipart reads a multipart upload: the part "file", copied to
// spool, and the optional fields "name" and "format", which override the
// query's. The name defaults to the file's name.
func readTraceMultipart(r *http.Request, spool io.Writer, name, format string) (_, _ string, err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", "", &traceio.InputError{Msg: "bad multipart body: " + err.Error()}
	}
	gotFile := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return "", "", traceReadError(err)
		}
		switch part.FormName() {
		case "file":
			if gotFile {
				return "", "", &traceio.InputError{Field: "file", Msg: "one file per upload"}
			}
			gotFile = true
			if _, err = io.Copy(spool, part); err != nil {
				return "", "", traceReadError(err)
			}
			if name == "" {
				name = traceio.NameFrom(part.FileName())
			}
		case "name", "format":
			v, err := io.ReadAll(io.LimitReader(part, 201))
			if err != nil {
				return "", "", traceReadError(err)
			}
			if len(v) > 200 {
				return "", "", &traceio.InputError{Field: part.FormName(), Msg: "over 200 bytes"}
			}
			if part.FormName() == "name" {
				name = strings.TrimSpace(string(v))
			} else {
				format = strings.TrimSpace(string(v))
			}
		default:
			return "", "", &traceio.InputError{Field: jsonapi.Clip(part.FormName(), 20),
				Msg: fmt.Sprintf("unknown form field %q: want file, name or format", jsonapi.Clip(part.FormName(), 20))}
		}
	}
	if !gotFile {
		return "", "", &traceio.InputError{Field: "file", Msg: "missing the part \"file\""}
	}
	return name, format, nil
}

// writeErr remembers its writer's error, to tell it from the reader's.
type writeErr struct {
	w   io.Writer
	err error
}

func (e *writeErr) Write(p []byte) (int, error) {
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, err
}

// spoolError is the answer to a spool that cannot take an upload: a 507
// when its disk is full, which names no path of the server's, else the
// server's own fault (a logged 500).
func spoolError(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		log.Printf("lab: spool an upload: %v", err)
		return &jsonapi.Error{Status: http.StatusInsufficientStorage,
			Msg: "the disk that holds uploads while they arrive is full: nothing was saved; free some space on the lab's machine and try again"}
	}
	return fmt.Errorf("spool the upload: %w", err)
}

// traceReadError turns an upload's read error into a 413 or a 400.
func traceReadError(err error) error {
	if mbe, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return jsonapi.TooLarge(mbe.Limit)
	}
	return &traceio.InputError{Msg: "read request body: " + err.Error()}
}

func (s *Server) listTraces(w http.ResponseWriter, r *http.Request) {
	list, err := s.store.ListTraces()
	if err != nil {
		fail(w, err)
		return
	}
	out := make([]report.TraceInfoJSON, len(list))
	for i, t := range list {
		out[i] = report.TraceInfoOf(t)
	}
	jsonapi.WriteJSON(w, http.StatusOK, struct {
		Traces []report.TraceInfoJSON `json:"traces"`
	}{out})
}

// getTrace answers a trace's description from what the store keeps of
// it: no packet is read. A trace the store could not measure (its packets
// are damaged) is loaded, as a heavy read, to say why.
func (s *Server) getTrace(w http.ResponseWriter, r *http.Request) {
	name, ok := traceName(w, r)
	if !ok {
		return
	}
	info, err := s.store.TraceInfo(name)
	if err != nil {
		fail(w, err)
		return
	}
	if info.Network.Sends == 0 { // not measured: a valid trace has a send
		release, ok := s.takeRead(w, r, false)
		if !ok {
			return
		}
		defer release()
		var tr *engine.Trace
		if info, tr, err = s.store.LoadTrace(name); err != nil {
			fail(w, err)
			return
		}
		info.Network, info.MaxSpeed = tr.Network(), tr.MaxSpeed()
	}
	jsonapi.WriteJSON(w, http.StatusOK, report.DescribeTraceInfo(info))
}

// traceFlat streams a trace's packets (see the top of the file) as the
// store reads them, a block at a time, in a heavy read's slot. A trace
// whose packets turn out damaged after the answer started is cut short
// (the connection is closed), never sent as if complete.
func (s *Server) traceFlat(w http.ResponseWriter, r *http.Request) {
	name, ok := traceName(w, r)
	if !ok {
		return
	}
	release, ok := s.takeRead(w, r, false)
	if !ok {
		return
	}
	defer release()
	info, flat, err := s.store.TraceFlat(name)
	if err != nil {
		fail(w, err)
		return
	}
	size := int64(8 * (engine.TraceFlatHeader + engine.TraceFlatStride*info.Packets))
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", strconv.FormatInt(size, 10)) // the gzip middleware drops it when it compresses
	w.Header().Set("Cache-Control", "no-cache")
	src := &readErr{r: flat}
	if _, err := io.Copy(streamWriter(w, size, time.Now()), src); err != nil && src.err != nil {
		log.Printf("lab: trace %s: %v", name, src.err)
		panic(http.ErrAbortHandler)
	}
}

// readErr remembers its reader's error, to tell it from the writer's.
type readErr struct {
	r   io.Reader
	err error
}

func (e *readErr) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		e.err = err
	}
	return n, err
}

func (s *Server) deleteTrace(w http.ResponseWriter, r *http.Request) {
	name, ok := traceName(w, r)
	if !ok {
		return
	}
	if err := s.store.DeleteTrace(name); err != nil {
		fail(w, err)
		return
	}
	jsonapi.WriteJSON(w, http.StatusOK, struct {
		Name    string `json:"name"`
		Deleted bool   `json:"deleted"`
	}{name, true})
}

// saveLive saves session id's live trace under the body's name.
func (s *Server) saveLiveTrace(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if err := store.CheckSessionID(id); err != nil {
		fail(w, err)
		return
	}
	var req struct {
		Name string `json:"name"`
	}
	if err := jsonapi.Decode(r, &req); err != nil {
		fail(w, err)
		return
	}
	if err := traceio.CheckName(req.Name); err != nil {
		fail(w, err)
		return
	}
	if _, err := s.store.Latest(id); err != nil {
		fail(w, err)
		return
	}
	rows, ok := s.hub.LiveTrace(id)
	if !ok {
		fail(w, &jsonapi.Error{Status: http.StatusConflict, Field: "id", Msg: "no live trace: no client is connected to the session"})
		return
	}
	tr, err := live.TraceFrom(rows, req.Name)
	if err != nil {
		fail(w, err)
		return
	}
	info, err := s.store.SaveTrace(tr, "live", s.now())
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Location", "/api/traces/"+info.Name)
	jsonapi.WriteJSON(w, http.StatusCreated, report.DescribeTrace(info, tr))
}

// traceName returns the request's {name}, answering 404 for one no trace
// can have.
func traceName(w http.ResponseWriter, r *http.Request) (string, bool) {
	name := r.PathValue("name")
	if err := traceio.CheckName(name); err != nil {
		fail(w, &jsonapi.Error{Status: http.StatusNotFound, Field: "name", Msg: "no such trace: " + err.Error()})
		return "", false
	}
	return name, true
}
