package server

import (
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"interplab/cmd/lab/internal/capture"
	"interplab/cmd/lab/internal/store"
	"interplab/engine"
)

// BenchmarkCaptureThroughput: one lab takes captureGames game clients
// streaming captureRate updates a second each into one session while a
// designer drags a slider (a set every 50 ms) and a viewer's tab follows
// it; each op is one second of that. Run it for a match:
//
//	go test ./cmd/lab/internal/server -run '^$' -bench CaptureThroughput -benchtime 60x
//
// path=capture is the capture protocol (binary batches, written to the
// store as they come, acknowledged when durable); path=packets is the
// one-JSON-message-per-packet live trace it replaces, in the same run;
// path=none has the designer and the viewer alone, the set's latency on
// this machine with nothing streaming.
// Metrics: updates-kept/s (stored, or held in the live trace at the end),
// lost (made but not kept: 0 is the goal), held-by-window (updates a game
// kept in its buffer for a later batch while its window was full),
// set-p99-ms (designer's set to
// the viewer), live-heap-MB at a sixth of the run and at its end (after a
// GC: the heap in use does not grow with the capture's length).
func BenchmarkCaptureThroughput(b *testing.B) {
	for _, path := range []string{"none", "capture", "packets"} {
		b.Run("path="+path, func(b *testing.B) { benchThroughput(b, path) })
	}
}

const (
	captureGames = 8
	captureRate  = 4000 // updates a second per game
	captureTick  = 100 * time.Millisecond
	setEvery     = 50 * time.Millisecond
)

func benchThroughput(b *testing.B, path string) {
	s, st := testServer(b, testAssets(b, false), b.TempDir(), nil)
	ts := serve(b, s)
	rev, err := st.Create(store.Draft{Name: "match", Settings: engine.Defaults()}, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	ws := "ws" + strings.TrimPrefix(ts.URL, "http") + "/ws/sessions/" + rev.ID
	dial := func(url string) *websocket.Conn {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			b.Fatal(err)
		}
		return c
	}

	// The viewer measures how long the designer's sets take to reach it.
	viewer, designer := dial(ws), dial(ws)
	defer viewer.Close()
	defer designer.Close()
	var (
		setMu   sync.Mutex
		setSent = map[int]time.Time{}
		setLag  []float64
	)
	go func() {
		for {
			_, data, err := viewer.ReadMessage()
			if err != nil {
				return
			}
			if !strings.HasPrefix(string(data), `{"type":"set"`) {
				continue
			}
			var m struct {
				Name  string
				Value float64
			}
			json.Unmarshal(data, &m)
			setMu.Lock()
			if t0, ok := setSent[int(m.Value)]; ok {
				setLag = append(setLag, float64(time.Since(t0))/1e6)
			}
			setMu.Unlock()
		}
	}()
	go func() { // the designer reads its configs and drops them
		for {
			if _, _, err := designer.ReadMessage(); err != nil {
				return
			}
		}
	}()

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent, kept, held atomic.Int64
	games := make([]*benchGame, captureGames)
	if path == "none" {
		games = nil
	}
	for g := range games {
		games[g] = &benchGame{b: b, id: g, path: path}
		if path == "capture" {
			games[g].conn = dial(ws + "/capture")
		} else {
			games[g].conn = dial(ws)
		}
	}
	for _, g := range games {
		g.start()
	}

	heap := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	b.ResetTimer()
	start := time.Now()
	for _, g := range games {
		wg.Go(func() { g.stream(stop, &sent, &held) })
	}
	wg.Go(func() { // the designer's slider
		t := time.NewTicker(setEvery)
		defer t.Stop()
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			setMu.Lock()
			setSent[i] = time.Now()
			setMu.Unlock()
			designer.WriteMessage(websocket.TextMessage, []byte(`{"type":"set","name":"seed","value":`+strconv.Itoa(i)+`}`))
		}
	})
	var heapEarly float64
	early := max(1, b.N/6)
	for i := range b.N {
		time.Sleep(time.Until(start.Add(time.Duration(i+1) * time.Second)))
		if i+1 == early {
			heapEarly = heap()
		}
	}
	close(stop)
	wg.Wait()
	elapsed := time.Since(start)
	heapEnd := heap()
	b.StopTimer()

	if path == "capture" {
		for _, g := range games {
			kept.Add(int64(g.end()))
		}
	} else if path == "packets" {
		rows, _ := s.hub.LiveTrace(rev.ID)
		kept.Add(int64(len(rows)))
		for _, g := range games {
			g.conn.Close()
		}
	}
	setMu.Lock()
	slices.Sort(setLag)
	p99 := math.NaN()
	if len(setLag) > 0 {
		p99 = setLag[min(len(setLag)-1, len(setLag)*99/100)]
	}
	setMu.Unlock()
	b.ReportMetric(float64(kept.Load())/elapsed.Seconds(), "updates-kept/s")
	b.ReportMetric(float64(sent.Load()-kept.Load()), "lost")
	b.ReportMetric(float64(held.Load()), "held-by-window")
	b.ReportMetric(p99, "set-p99-ms")
	b.ReportMetric(heapEarly, "live-heap-MB-early")
	b.ReportMetric(heapEnd, "live-heap-MB-end")
}

// benchGame is one game client of the benchmark.
type benchGame struct {
	b    *testing.B
	id   int
	path string
	conn *websocket.Conn

	mu     sync.Mutex
	acked  int
	stored int
	saved  chan int

	batch   int                   // the next batch number; owned by stream, then end
	pending []store.CaptureUpdate // what stream left unsent
}

// start says hello (capture) and reads the lab's messages.
func (g *benchGame) start() {
	g.saved = make(chan int, 1)
	if g.path == "capture" {
		g.conn.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(
			`{"type":"hello","protocol":1,"engine":"bench","version":"1","rate":30,"name":"bench-%d"}`, g.id)))
	}
	go func() {
		for {
			_, data, err := g.conn.ReadMessage()
			if err != nil {
				return
			}
			var m struct {
				Type           string
				Batch, Updates int
				Error          string
			}
			if g.path == "packets" {
				continue // relayed packets, configs
			}
			json.Unmarshal(data, &m)
			switch m.Type {
			case "ack":
				g.mu.Lock()
				g.acked, g.stored = m.Batch, m.Updates
				g.mu.Unlock()
			case "saved":
				g.saved <- m.Updates
			case "error":
				g.b.Errorf("game %d: %s", g.id, m.Error)
			}
		}
	}()
}

// stream sends captureRate updates a second until stop.
func (g *benchGame) stream(stop <-chan struct{}, sent, held *atomic.Int64) {
	t := time.NewTicker(captureTick)
	defer t.Stop()
	per := int(float64(captureRate) * captureTick.Seconds())
	us := make([]store.CaptureUpdate, per)
	var pending []store.CaptureUpdate // what the window held back: the client's buffer
	var frame []byte
	step := 0
	g.batch = 1
	for {
		select {
		case <-stop:
			g.pending = pending
			return
		case <-t.C:
		}
		now := float64(time.Now().UnixNano()) / 1e9
		for i := range us {
			e := i % 64
			us[i] = store.CaptureUpdate{ID: uint32(e), Sent: now - 0.03, Arrive: now,
				Pos: [3]float64{float64(step), float64(e), 1}}
			if e == 63 {
				step++
				now += 1e-6 // the next send of every entity comes later
			}
		}
		sent.Add(int64(per))
		if g.path == "capture" {
			pending = append(pending, us...)
			g.mu.Lock()
			wait := g.batch-g.acked > capture.Window
			g.mu.Unlock()
			if wait {
				held.Add(int64(per)) // kept in the buffer for the next batch
				continue
			}
			n := min(len(pending), capture.MaxBatch)
			frame = capture.AppendBatch(frame[:0], g.batch, 0, pending[:n])
			pending = append(pending[:0], pending[n:]...)
			if err := g.conn.WriteMessage(websocket.BinaryMessage, frame); err != nil {
				return
			}
			g.batch++
		} else {
			for i, u := range us {
				msg := fmt.Sprintf(`{"type":"packet","entity":%d,"sent":%.6f,"pos":[%g,%g,%g],"vel":[0,0,0]}`,
					u.ID+uint32(64*g.id), u.Sent+float64(i)*1e-7, u.Pos[0], u.Pos[1], u.Pos[2])
				if err := g.conn.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
					return
				}
			}
		}
	}
}

// end sends what the client's buffer holds, ends the capture and returns
// the updates the lab saved.
func (g *benchGame) end() int {
	for len(g.pending) > 0 {
		g.mu.Lock()
		wait := g.batch-g.acked > capture.Window
		g.mu.Unlock()
		if wait {
			time.Sleep(time.Millisecond)
			continue
		}
		n := min(len(g.pending), capture.MaxBatch)
		g.conn.WriteMessage(websocket.BinaryMessage, capture.AppendBatch(nil, g.batch, 0, g.pending[:n]))
		g.pending = g.pending[n:]
		g.batch++
	}
	g.conn.WriteMessage(websocket.TextMessage, []byte(`{"type":"end"}`))
	defer g.conn.Close()
	select {
	case n := <-g.saved:
		return n
	case <-time.After(60 * time.Second):
		g.b.Errorf("game %d: no saved within 60 s", g.id)
		return 0
	}
}
