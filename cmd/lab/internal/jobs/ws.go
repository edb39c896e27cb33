package jobs

// A job's progress streams over a WebSocket, /ws/jobs/{id} on the lab's
// server (see ServeWS).
//
// The protocol is text frames holding one JSON object each.
//
// Server to client:
//
//	{"type":"progress","job":"a1b2c3d4e5f6a7b8","kind":"sweep","state":"running","done":12,"total":40,"items":[...]}
//
// Sent on connect (with every result finished so far) and whenever more
// have finished since the last message: items holds only the new ones, in
// the order they finished, each as the job's work reported it (the server's
// sweeps report an engine.SweepPoint, its tunings a candidate's number,
// cost, feasibility, added latency and aligned error). A slow client gets
// fewer, larger messages, never a gap.
//
//	{"type":"end","job":"...","kind":"sweep","state":"done","done":40,"total":40}
//
// The job ended: state is done, cancelled, failed (with "error") or
// interrupted (the lab stopped, with "error"). The server then closes the
// connection normally. A client that connects to an ended job gets its
// progress and its end at once.
//
// Client to server:
//
//	{"type":"cancel"}
//
// Cancel the job (as POST /api/jobs/{id}/cancel does). Anything else is
// ignored. When the last client watching a running job disconnects, the job
// is cancelled: nobody is left to see it.
//
// Close codes: 1000 after the end message, 1001 when the server shuts down,
// 1007 for a frame that is not UTF-8, 1009 for a message over
// maxMessageSize bytes.

import (
	"encoding/json"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/jsonapi"
)

// The progress WebSocket's timing and size limits.
const (
	writeWait      = 10 * time.Second  // time allowed to write a message to a client
	pongWait       = 60 * time.Second  // time allowed between pongs from a client
	pingPeriod     = pongWait * 9 / 10 // pings go out this often; less than pongWait
	maxMessageSize = 4096              // largest message a client may send, bytes
)

// newUpgrader returns the upgrader of the progress WebSockets. The route
// checks the Origin before ServeWS runs, against the server's allow-list
// too.
func newUpgrader() *websocket.Upgrader {
	return &websocket.Upgrader{
		ReadBufferSize:  1024,
		WriteBufferSize: 4096,
		CheckOrigin:     func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, _ *http.Request, status int, reason error) {
			w.Header().Set("Sec-Websocket-Version", "13")
			jsonapi.WriteError(w, &jsonapi.Error{Status: status, Msg: reason.Error()})
		},
	}
}

// ServeWS upgrades the request to the WebSocket of j's progress and
// streams it (see the protocol above). The caller has checked that the
// request's Origin may use it.
func (r *Runner) ServeWS(w http.ResponseWriter, req *http.Request, j *Job) {
	conn, err := r.upgrader.Upgrade(w, req, nil)
	if err != nil {
		return // the upgrader answered
	}
	notify := j.watch()
	left := make(chan struct{})
	go readPump(conn, j, left)
	go func() {
		writePump(conn, j, notify, left, r.base.Done())
		j.unwatch(notify)
	}()
}

// readPump reads the client's messages until the connection closes,
// then closes left. It is the connection's only reader.
func readPump(conn *websocket.Conn, j *Job, left chan<- struct{}) {
	defer close(left)
	conn.SetReadLimit(maxMessageSize)
	conn.SetReadDeadline(time.Now().Add(pongWait))
	conn.SetPongHandler(func(string) error { return conn.SetReadDeadline(time.Now().Add(pongWait)) })
	for {
		kind, data, err := conn.ReadMessage()
		if err != nil {
			return
		}
		if kind == websocket.TextMessage && !utf8.Valid(data) {
			conn.WriteControl(websocket.CloseMessage,
				websocket.FormatCloseMessage(websocket.CloseInvalidFramePayloadData, "not UTF-8 text"), time.Now().Add(writeWait))
			return
		}
		var msg struct {
			Type string `json:"type"`
		}
		if kind == websocket.TextMessage && json.Unmarshal(data, &msg) == nil && msg.Type == "cancel" {
			j.Cancel()
		}
	}
}

// writePump sends the job's progress as it comes, then its end, and
// pings meanwhile. It is the connection's only writer.
func writePump(conn *websocket.Conn, j *Job, notify <-chan struct{}, left <-chan struct{}, shutdown <-chan struct{}) {
	ticker := time.NewTicker(pingPeriod)
	defer func() {
		ticker.Stop()
		conn.Close()
	}()
	sent, sentDone := 0, -1
	write := func(v any) bool {
		conn.SetWriteDeadline(time.Now().Add(writeWait))
		return conn.WriteJSON(v) == nil
	}
	for {
		select {
		case <-notify:
			st := j.Since(sent)
			if len(st.Items) > 0 || st.Done != sentDone {
				st.Type = "progress"
				if !write(st) {
					return
				}
				sent += len(st.Items)
				sentDone = st.Done
			}
			if st.State != Running {
				st.Type, st.Items = "end", nil
				if write(st) {
					conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""),
						time.Now().Add(writeWait))
					// Let the client close its side before the TCP close.
					select {
					case <-left:
					case <-time.After(time.Second):
					}
				}
				return
			}
		case <-ticker.C:
			conn.SetWriteDeadline(time.Now().Add(writeWait))
			if conn.WriteMessage(websocket.PingMessage, nil) != nil {
				return
			}
		case <-left:
			return
		case <-shutdown:
			conn.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseGoingAway, "server shutting down"),
				time.Now().Add(writeWait))
			return
		}
	}
}
