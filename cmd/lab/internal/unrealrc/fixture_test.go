package unrealrc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// rcEditor is a fixture of an Unreal Editor's Remote Control HTTP server,
// written from Epic's "Remote Control API HTTP Reference": PUT
// /remote/object/property with a JSON body naming objectPath, access
// (READ_ACCESS, WRITE_ACCESS, WRITE_TRANSACTION_ACCESS), propertyName and,
// for a write, propertyValue, an object holding the property under its own
// name; answered 200 (a read with {propertyName: value}) or, when the call
// cannot be done, an error status with {"errorMessage": "..."}. Its objects
// are CharacterMovementComponents holding the five smoothing properties,
// an enum by its value's name and floats as numbers. No Unreal runs here.
type rcEditor struct {
	t   *testing.T
	srv *httptest.Server

	mu       sync.Mutex
	objects  map[string]map[string]any // object path -> property -> value
	readOnly map[string]bool           // property names a write is refused for
	fail     int                       // answer this many next requests 503
	bodies   []string                  // every write's body, as sent
}

// cmcDefaults are a UCharacterMovementComponent's values of the properties.
func cmcDefaults() map[string]any {
	return map[string]any{"NetworkSmoothingMode": "Exponential", "NetworkSimulatedSmoothLocationTime": 0.1,
		"NetworkSimulatedSmoothRotationTime": 0.05, "NetworkMaxSmoothUpdateDistance": 256.0, "NetworkNoSmoothUpdateDistance": 384.0}
}

func newRCEditor(t *testing.T, objects ...string) *rcEditor {
	e := &rcEditor{t: t, objects: map[string]map[string]any{}, readOnly: map[string]bool{}}
	for _, o := range objects {
		e.objects[o] = cmcDefaults()
	}
	e.srv = httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(e.srv.Close)
	return e
}

func rcError(w http.ResponseWriter, status int, format string, a ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"errorMessage": fmt.Sprintf(format, a...)})
}

func (e *rcEditor) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/remote/object/property" {
		rcError(w, http.StatusNotFound, "route %s not found", r.URL.Path)
		return
	}
	if r.Method != http.MethodPut {
		rcError(w, http.StatusMethodNotAllowed, "want PUT")
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		e.t.Errorf("Content-Type %q, want application/json", ct)
	}
	data, _ := io.ReadAll(r.Body)
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail > 0 {
		e.fail--
		rcError(w, http.StatusServiceUnavailable, "editor busy")
		return
	}
	var req struct {
		ObjectPath    string                     `json:"objectPath"`
		Access        string                     `json:"access"`
		PropertyName  string                     `json:"propertyName"`
		PropertyValue map[string]json.RawMessage `json:"propertyValue"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		e.t.Errorf("a body Remote Control does not take: %v: %s", err, data)
		rcError(w, http.StatusBadRequest, "bad request body: %v", err)
		return
	}
	obj, ok := e.objects[req.ObjectPath]
	if !ok {
		rcError(w, http.StatusBadRequest, "Object %s could not be resolved", req.ObjectPath)
		return
	}
	old, ok := obj[req.PropertyName]
	if !ok {
		rcError(w, http.StatusBadRequest, "Property %s could not be found on %s", req.PropertyName, req.ObjectPath)
		return
	}
	switch req.Access {
	case "READ_ACCESS":
		json.NewEncoder(w).Encode(map[string]any{req.PropertyName: old})
		return
	case "WRITE_ACCESS", "WRITE_TRANSACTION_ACCESS":
	default:
		e.t.Errorf("access %q: not one of Remote Control's", req.Access)
		rcError(w, http.StatusBadRequest, "bad access %q", req.Access)
		return
	}
	e.bodies = append(e.bodies, string(data))
	raw, ok := req.PropertyValue[req.PropertyName]
	if len(req.PropertyValue) != 1 || !ok {
		e.t.Errorf("propertyValue %s: want one member named %s", data, req.PropertyName)
		rcError(w, http.StatusBadRequest, "propertyValue does not hold %s", req.PropertyName)
		return
	}
	if e.readOnly[req.PropertyName] {
		rcError(w, http.StatusBadRequest, "Property %s is not writable through Remote Control", req.PropertyName)
		return
	}
	var v any
	if _, isEnum := old.(string); isEnum {
		var name string
		if json.Unmarshal(raw, &name) != nil || !slices.Contains([]string{"Disabled", "Linear", "Exponential"}, name) {
			e.t.Errorf("%s = %s: not an ENetworkSmoothingMode name", req.PropertyName, raw)
			rcError(w, http.StatusBadRequest, "cannot import %s", raw)
			return
		}
		v = name
	} else {
		var f float64
		if json.Unmarshal(raw, &f) != nil {
			e.t.Errorf("%s = %s: not a number", req.PropertyName, raw)
			rcError(w, http.StatusBadRequest, "cannot import %s", raw)
			return
		}
		v = f
	}
	obj[req.PropertyName] = v
	w.WriteHeader(http.StatusOK)
}

// value returns an object's property.
func (e *rcEditor) value(obj, prop string) any {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.objects[obj][prop]
}

// writes returns the bodies of the writes so far and forgets them.
func (e *rcEditor) writes() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	b := e.bodies
	e.bodies = nil
	return b
}

// count returns how many writes there are since writes last ran.
func (e *rcEditor) count() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.bodies)
}
