package capture

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// Protocol is the version of the capture protocol this lab speaks.
const Protocol = 1

// Limits of the protocol (docs/capture-protocol.md).
const (
	MaxBatch         = 4096                                  // updates in a batch
	headerBytes      = 16                                    // a batch's header
	minUpdateBytes   = 4 + 1 + 8*5                           // id, flags, sent, arrive, position
	maxUpdateBytes   = minUpdateBytes + 8*3 + 8*4            // with a velocity and a rotation
	MaxBatchBytes    = headerBytes + MaxBatch*maxUpdateBytes // a batch's frame, bytes
	MaxTextBytes     = 4096                                  // a text message, bytes
	Window           = 8                                     // batches sent and not yet acknowledged
	DefaultRate      = 20000                                 // updates a second a client may send
	maxRate          = 1000                                  // largest capture rate and tick rate, Hz
	maxNameLen       = 32                                    // an engine's name
	maxVersionLen    = 64                                    // a version, a client's name
	rotTol           = 1e-6                                  // how far a rotation's squared norm may be from 1
	magic0, magic1   = 'i', 'l'
	magic2, magic3   = 'c', '1'
	flagVel, flagRot = store.CaptureVel, store.CaptureRot
)

// ProtocolError is a message the client is told before it is closed with
// Code: what was wrong, the field and the batch when they apply.
type ProtocolError struct {
	Code  int    // the close code
	Field string // the field at fault, if any
	Batch int    // the batch at fault, if any
	Msg   string
}

func (e *ProtocolError) Error() string { return e.Msg }

// Close codes beyond RFC 6455's (docs/capture-protocol.md).
const (
	CloseVersion  = 4000 // unknown protocol version
	CloseNotFound = 4404 // the session or the capture does not exist
	CloseConflict = 4409 // name taken, capture in use or saved, another engine or time base
	CloseQuota    = 4413 // over the capture's or the lab's quota
)

// hello is a client's first message.
type hello struct {
	Type     string   `json:"type"`
	Protocol *int     `json:"protocol"`
	Engine   string   `json:"engine"`
	Version  string   `json:"version"`
	Client   string   `json:"client,omitzero"`
	Rate     *float64 `json:"rate"`
	Name     string   `json:"name,omitzero"`
	Time     string   `json:"time,omitzero"`
	TickRate *float64 `json:"tickRate,omitzero"`
	Capture  string   `json:"capture,omitzero"`
}

// control is a text message after the hello: end is the only one.
type control struct {
	Type    string `json:"type"`
	Dropped *int   `json:"dropped,omitzero"`
}

// decodeJSON decodes one strict JSON object (no unknown or duplicate
// keys, UTF-8) into v; the error names the key.
func decodeJSON(data []byte, v any) error {
	err := jsonv2.Unmarshal(data, v, jsonv2.RejectUnknownMembers(true))
	if err == nil {
		return nil
	}
	bad := func(field, msg string) error {
		return &ProtocolError{Code: 1007, Field: field, Msg: msg}
	}
	if se, ok := errors.AsType[*jsontext.SyntacticError](err); ok {
		return bad(se.JSONPointer.LastToken(), "not valid JSON at byte "+strconv.FormatInt(se.ByteOffset, 10)+": "+se.Err.Error())
	}
	if se, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		name := se.JSONPointer.LastToken()
		if errors.Is(se.Err, jsonv2.ErrUnknownName) {
			return bad(name, fmt.Sprintf("unknown field %q", clip(name)))
		}
		return bad(name, fmt.Sprintf("%s: wrong type (%s)", name, se.JSONKind))
	}
	return bad("", err.Error())
}

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// parseHello checks a hello message.
func parseHello(data []byte) (hello, error) {
	var h hello
	if err := decodeJSON(data, &h); err != nil {
		return hello{}, err
	}
	bad := func(field, msg string) (hello, error) {
		return hello{}, &ProtocolError{Code: 1007, Field: field, Msg: field + ": " + msg}
	}
	switch {
	case h.Type != "hello":
		return hello{}, &ProtocolError{Code: 1002, Field: "type", Msg: fmt.Sprintf("type: the first message must be a hello, got %q", clip(h.Type))}
	case h.Protocol == nil:
		return bad("protocol", "missing: want 1")
	case *h.Protocol != Protocol:
		return hello{}, &ProtocolError{Code: CloseVersion, Field: "protocol",
			Msg: fmt.Sprintf("protocol: version %d is not spoken here: this lab speaks version %d", *h.Protocol, Protocol)}
	}
	if err := checkEngine(h.Engine); err != nil {
		return bad("engine", err.Error())
	}
	if err := checkText(h.Version, false); err != nil {
		return bad("version", err.Error())
	}
	if err := checkText(h.Client, true); err != nil {
		return bad("client", err.Error())
	}
	if h.Rate == nil || !(*h.Rate > 0 && *h.Rate <= maxRate) {
		return bad("rate", "want the capture rate in Hz, in (0, 1000]")
	}
	switch h.Time {
	case "", "seconds":
		h.Time = "seconds"
		if h.TickRate != nil {
			return bad("tickRate", `only with "time":"ticks"`)
		}
	case "ticks":
		if h.TickRate == nil || !(*h.TickRate > 0 && *h.TickRate <= maxRate) {
			return bad("tickRate", `want the sender's tick rate in Hz, in (0, 1000], with "time":"ticks"`)
		}
	default:
		return bad("time", fmt.Sprintf(`%q: want "seconds" or "ticks"`, clip(h.Time)))
	}
	return h, nil
}

// CheckEngine accepts an engine's name: 1 to 32 of a-z, 0-9, '.', '_'
// and '-'.
func checkEngine(s string) error {
	ok := s != "" && len(s) <= maxNameLen
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		ok = c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("%q: want 1 to %d of a-z, 0-9, '.', '_' and '-'", clip(s), maxNameLen)
	}
	return nil
}

// checkText accepts 1 to 64 printable ASCII characters ("" too if
// optional).
func checkText(s string, optional bool) error {
	ok := len(s) <= maxVersionLen && (optional || s != "")
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] >= 0x20 && s[i] < 0x7f
	}
	if !ok {
		return fmt.Errorf("%q: want 1 to %d printable ASCII characters", clip(s), maxVersionLen)
	}
	return nil
}

// CheckIdentity checks what a follower may say of itself on the
// settings socket (?engine=&version=&client=): the hello's rules, every
// one optional.
func CheckIdentity(engineName, version, client string) error {
	if engineName != "" {
		if err := checkEngine(engineName); err != nil {
			return fmt.Errorf("engine: %w", err)
		}
	}
	if err := checkText(version, true); err != nil {
		return fmt.Errorf("version: %w", err)
	}
	if err := checkText(client, true); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	return nil
}

// batch is a decoded batch frame.
type batch struct {
	n       int // batch number
	dropped int // the client's running total
	updates []store.CaptureUpdate
}

// decodeBatch decodes a batch frame into b, reusing b.updates. Every
// number is checked: finite, in the trace's bounds, a unit rotation.
func decodeBatch(data []byte, b *batch) error {
	if len(data) < headerBytes || data[0] != magic0 || data[1] != magic1 || data[2] != magic2 || data[3] != magic3 {
		return &ProtocolError{Code: 1007, Msg: "not a batch: a batch starts with the 4 bytes \"ilc1\" and a 16-byte header"}
	}
	num := binary.LittleEndian.Uint32(data[4:])
	n := binary.LittleEndian.Uint32(data[8:])
	b.n, b.dropped = int(num), int(binary.LittleEndian.Uint32(data[12:]))
	bad := func(i int, field, msg string) error {
		at := "batch " + strconv.FormatUint(uint64(num), 10) + ": "
		if i >= 0 {
			at += "update " + strconv.Itoa(i) + ": "
		}
		if field != "" {
			at += field + ": "
		}
		return &ProtocolError{Code: 1007, Field: field, Batch: int(num), Msg: at + msg}
	}
	if n < 1 || n > MaxBatch {
		return bad(-1, "n", fmt.Sprintf("%d updates: want 1 to %d", n, MaxBatch))
	}
	b.updates = b.updates[:0]
	p := data[headerBytes:]
	f64 := func() float64 {
		v := math.Float64frombits(binary.LittleEndian.Uint64(p))
		p = p[8:]
		return v
	}
	for i := range int(n) {
		if len(p) < minUpdateBytes {
			return bad(i, "", fmt.Sprintf("the frame ends inside the update (%d bytes for %d updates)", len(data), n))
		}
		var u store.CaptureUpdate
		u.ID, u.Flags = binary.LittleEndian.Uint32(p), p[4]
		p = p[5:]
		if u.Flags&^(flagVel|flagRot) != 0 {
			return bad(i, "flags", fmt.Sprintf("%d: want bit 0 (velocity) and bit 1 (rotation) only", u.Flags))
		}
		need := 8 * 5
		if u.Flags&flagVel != 0 {
			need += 8 * 3
		}
		if u.Flags&flagRot != 0 {
			need += 8 * 4
		}
		if len(p) < need {
			return bad(i, "", fmt.Sprintf("the frame ends inside the update (%d bytes for %d updates)", len(data), n))
		}
		u.Sent, u.Arrive = f64(), f64()
		for k := range 3 {
			u.Pos[k] = f64()
		}
		if u.Flags&flagVel != 0 {
			for k := range 3 {
				u.Vel[k] = f64()
			}
		}
		if u.Flags&flagRot != 0 {
			for k := range 4 {
				u.Rot[k] = f64()
			}
		}
		if field, msg := checkUpdate(&u); field != "" {
			return bad(i, field, msg)
		}
		b.updates = append(b.updates, u)
	}
	if len(p) != 0 {
		return bad(-1, "", fmt.Sprintf("%d bytes after the last of its %d updates", len(p), n))
	}
	return nil
}

// checkUpdate returns the field an update breaks a rule with, and why.
func checkUpdate(u *store.CaptureUpdate) (field, msg string) {
	finite := func(v, most float64) bool { return !math.IsNaN(v) && math.Abs(v) <= most }
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	if !finite(u.Sent, engine.TraceMaxTime) {
		return "sent", num(u.Sent) + ": want a finite time in seconds, at most 1e10 in absolute value"
	}
	if !finite(u.Arrive, engine.TraceMaxTime) {
		return "arrive", num(u.Arrive) + ": want a finite time in seconds, at most 1e10 in absolute value"
	}
	for k, name := range []string{"x", "y", "z"} {
		if !finite(u.Pos[k], engine.TraceMaxCoord) {
			return name, num(u.Pos[k]) + ": want a finite number, at most 1e7 in absolute value"
		}
	}
	for k, name := range []string{"vx", "vy", "vz"} {
		if !finite(u.Vel[k], engine.TraceMaxCoord) {
			return name, num(u.Vel[k]) + ": want a finite number, at most 1e7 in absolute value"
		}
	}
	if u.Flags&flagRot != 0 {
		var n2 float64
		for k, name := range []string{"qx", "qy", "qz", "qw"} {
			if !finite(u.Rot[k], 1+rotTol) {
				return name, num(u.Rot[k]) + ": want a unit quaternion's component"
			}
			n2 += u.Rot[k] * u.Rot[k]
		}
		if math.Abs(n2-1) > rotTol {
			return "qw", "the rotation's squared norm is " + num(n2) + ": want a unit quaternion (within 1e-6)"
		}
	}
	return "", ""
}

// AppendBatch appends the frame of batch number num with the running
// total dropped and updates us to dst: what a client sends (the tests and
// the benchmark use it; it is the reference encoder).
func AppendBatch(dst []byte, num, dropped int, us []store.CaptureUpdate) []byte {
	dst = append(dst, magic0, magic1, magic2, magic3)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(num))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(us)))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(dropped))
	f64 := func(v float64) { dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v)) }
	for _, u := range us {
		dst = binary.LittleEndian.AppendUint32(dst, u.ID)
		dst = append(dst, u.Flags)
		f64(u.Sent)
		f64(u.Arrive)
		for _, v := range u.Pos {
			f64(v)
		}
		if u.Flags&flagVel != 0 {
			for _, v := range u.Vel {
				f64(v)
			}
		}
		if u.Flags&flagRot != 0 {
			for _, v := range u.Rot {
				f64(v)
			}
		}
	}
	return dst
}
