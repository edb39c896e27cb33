package live

import (
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// viewer reads a session's messages until its connection ends, keeping the
// latest seed it was told of and how its connection ended.
type viewer struct {
	conn *websocket.Conn
	seed atomic.Int64
	code atomic.Int64 // close code once closed; 0 while open
	done chan struct{}
}

func watch(t *testing.T, url string) *viewer {
	t.Helper()
	v := &viewer{conn: dial(t, url), done: make(chan struct{})}
	v.seed.Store(-1)
	go func() {
		defer close(v.done)
		for {
			v.conn.SetReadDeadline(time.Now().Add(time.Minute))
			_, data, err := v.conn.ReadMessage()
			if err != nil {
				code := int64(-1)
				if ce, ok := errors.AsType[*websocket.CloseError](err); ok {
					code = int64(ce.Code)
				}
				v.code.Store(code)
				return
			}
			var m testMsg
			if json.Unmarshal(data, &m) == nil && m.Type == "config" {
				v.seed.Store(int64(m.Config.Settings.Seed))
			}
		}
	}()
	return v
}

// One client flooding a session with changes is closed with 1008 when it
// runs over its budget; the session's 500 viewers keep their connections
// and every one of them gets the next legitimate change. (Before the
// budget, the flood filled every viewer's queue and the hub dropped them
// all as too slow within ~120 ms.)
func TestFloodDropsOnlyTheFlooder(t *testing.T) {
	eachBus(t, func(t *testing.T, bus Bus) {
		n := 500
		if testing.Short() {
			n = 100
		}
		_, ws := hubServerWith(t, bus)
		viewers := make([]*viewer, n)
		for i := range viewers {
			viewers[i] = watch(t, ws+testID)
		}
		flooder := dial(t, ws+testID)
		floodEnded := make(chan int, 1)
		go func() {
			code := -1
			for {
				flooder.SetReadDeadline(time.Now().Add(30 * time.Second))
				if _, _, err := flooder.ReadMessage(); err != nil {
					if ce, ok := errors.AsType[*websocket.CloseError](err); ok {
						code = ce.Code
					}
					floodEnded <- code
					return
				}
			}
		}()
		for i := range 20 * SetBurst {
			msg := `{"type":"set","name":"seed","value":` + strconv.Itoa(i) + `}`
			if flooder.WriteMessage(websocket.TextMessage, []byte(msg)) != nil {
				break // closed for running over its budget
			}
		}
		select {
		case code := <-floodEnded:
			if code != websocket.ClosePolicyViolation {
				t.Errorf("the flooder's connection ended with close code %d, want %d", code, websocket.ClosePolicyViolation)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the flooder was never closed")
		}

		designer := dial(t, ws+testID)
		const final = 424242
		if err := designer.WriteMessage(websocket.TextMessage, []byte(`{"type":"set","name":"seed","value":424242}`)); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for i, v := range viewers {
			for v.seed.Load() != final && v.code.Load() == 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
			if code := v.code.Load(); code != 0 {
				t.Fatalf("viewer %d was disconnected (close code %d)", i, code)
			}
			if got := v.seed.Load(); got != final {
				t.Fatalf("viewer %d: latest seed %d, want the designer's %d", i, got, final)
			}
		}
	})
}

// A frame over MaxMessageSize is closed with 1009, invalid UTF-8 with
// 1007; the other clients stay.
func TestFrameBudgets(t *testing.T) {
	eachBus(t, func(t *testing.T, bus Bus) {
		_, ws := hubServerWith(t, bus)
		other := watch(t, ws+testID)
		tests := []struct {
			name  string
			frame []byte
			code  int
		}{
			{"oversize", append(append([]byte(`{"type":"set","name":"seed","value":1,"pad":"`), make([]byte, MaxMessageSize)...), '"', '}'), websocket.CloseMessageTooBig},
			{"invalid UTF-8", []byte("{\"type\":\"set\",\"name\":\"seed\xff\",\"value\":1}"), websocket.CloseInvalidFramePayloadData},
			{"invalid UTF-8 in a value", []byte("{\"type\":\"set\",\"name\":\"jitterDist\",\"value\":\"par\xc3eto\"}"), websocket.CloseInvalidFramePayloadData},
		}
		for _, tt := range tests {
			c := dial(t, ws+testID)
			if err := c.WriteMessage(websocket.TextMessage, tt.frame); err != nil {
				t.Fatal(err)
			}
			code := -1
			for {
				c.SetReadDeadline(time.Now().Add(5 * time.Second))
				if _, _, err := c.ReadMessage(); err != nil {
					if ce, ok := errors.AsType[*websocket.CloseError](err); ok {
						code = ce.Code
					}
					break
				}
			}
			if code != tt.code {
				t.Errorf("%s: close code %d, want %d", tt.name, code, tt.code)
			}
		}
		if code := other.code.Load(); code != 0 {
			t.Errorf("a bystander was disconnected (close code %d)", code)
		}
	})
}

// A viewer that stops reading never delays the others: the hub never
// waits for a client.
func TestStuckViewerDoesNotDelayOthers(t *testing.T) {
	eachBus(t, func(t *testing.T, bus Bus) {
		_, ws := hubServerWith(t, bus)
		stuck := dial(t, ws+testID) // never read again
		_ = stuck
		fast := watch(t, ws+testID)
		designer := dial(t, ws+testID)
		// Two bursts of configs of a few KiB each: more than the stuck
		// viewer's socket buffers hold, so its writer blocks.
		const changes = 2 * SetBurst
		for i := range changes {
			msg := `{"type":"set","name":"seed","value":` + strconv.Itoa(i) + `}`
			if err := designer.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
				t.Fatal(err)
			}
			if i == SetBurst-1 {
				time.Sleep(time.Second * SetBurst / SetRate) // stay within the budget
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for fast.seed.Load() != changes-1 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if got := fast.seed.Load(); got != changes-1 {
			t.Errorf("a reading viewer's latest seed = %d, want %d", got, changes-1)
		}
	})
}
