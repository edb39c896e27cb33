package server

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// fanoutViewers is the number of WebSocket viewers in BenchmarkHubFanout.
const fanoutViewers = 200

// BenchmarkHubFanout measures live sync under load: fanoutViewers viewers on
// one session over loopback; each iteration is one slider change from one
// tab, timed until every viewer has the new config. It reports the p50 and
// p99 of that time and the server's heap in use with every viewer connected.
//
// The viewers run in a child process (the test binary again, see
// TestHubFanoutViewers) so that the heap measured is the server's alone; the
// child reports each completed change on a pipe, which adds a few
// microseconds to every figure.
//
//	go test -run='^$' -bench=HubFanout -benchtime=300x ./cmd/lab
func BenchmarkHubFanout(b *testing.B) {
	// The viewers are one client (one address): let it hold them all.
	l := DefaultLimits
	l.SocketsPerClient = fanoutViewers + 1
	e := &sessionsEnv{now: storeT0, step: time.Second}
	e.server, e.st = testServerLimits(b, testAssets(b, false), b.TempDir(), e.clock, l)
	e.srv = serve(b, e.server)
	b.Cleanup(e.close)
	id := e.create(b, "fanout", nil).ID
	tab, _ := e.dial(b, id)
	go func() { // the tab's own configs: read and drop
		for {
			if _, _, err := tab.ReadMessage(); err != nil {
				return
			}
		}
	}()
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)

	child := exec.Command(os.Args[0], "-test.run=^TestHubFanoutViewers$")
	child.Env = append(os.Environ(), "LAB_FANOUT_URL="+e.wsURL(id), "LAB_FANOUT_VIEWERS="+strconv.Itoa(fanoutViewers))
	stdin, err := child.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	child.Stderr = &stderr
	if err := child.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close() // the child exits at EOF
		done := make(chan error, 1)
		go func() { done <- child.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			child.Process.Kill()
			<-done
		}
	}()
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "fanout ") {
				lines <- strings.TrimPrefix(line, "fanout ")
			}
		}
		close(lines)
	}()
	next := func() string {
		select {
		case l, ok := <-lines:
			if !ok {
				b.Fatalf("viewer process ended: %s", stderr.String())
			}
			return l
		case <-time.After(30 * time.Second):
			b.Fatalf("viewer process silent for 30 s: %s", stderr.String())
		}
		return ""
	}
	if l := next(); l != "ready" {
		b.Fatalf("viewer process said %q, want ready", l)
	}

	var heap runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&heap)

	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := range b.N {
		v := float64(i%1000) / 1000 // a new displayBehind each time
		t0 := time.Now()
		if err := tab.WriteMessage(websocket.TextMessage,
			[]byte(`{"type":"set","name":"displayBehind","value":`+strconv.FormatFloat(v, 'g', -1, 64)+`}`)); err != nil {
			b.Fatal(err)
		}
		if got, want := next(), strconv.Itoa(i+1); got != want {
			b.Fatalf("viewers reported change %s, want %s", got, want)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	ms := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(float64(heap.HeapInuse)/(1<<20), "heap-MB")
	b.ReportMetric(float64(int64(heap.HeapInuse)-int64(before.HeapInuse))/fanoutViewers/1024, "heap-KB/viewer")
}

// TestHubFanoutViewers is BenchmarkHubFanout's viewer process; it does
// nothing unless started by the benchmark. It connects LAB_FANOUT_VIEWERS
// viewers to LAB_FANOUT_URL, says "fanout ready", then "fanout N" each time
// every viewer has received the config of the Nth change, until its stdin
// closes.
func TestHubFanoutViewers(t *testing.T) {
	url := os.Getenv("LAB_FANOUT_URL")
	if url == "" {
		t.Skip("the viewer process of BenchmarkHubFanout")
	}
	n, err := strconv.Atoi(os.Getenv("LAB_FANOUT_VIEWERS"))
	if err != nil || n < 1 {
		t.Fatalf("LAB_FANOUT_VIEWERS = %q", os.Getenv("LAB_FANOUT_VIEWERS"))
	}
	arrived := make(chan struct{}, n)
	for range n {
		c, _, err := websocket.DefaultDialer.Dial(url, nil)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		defer c.Close()
		if _, _, err := c.ReadMessage(); err != nil { // the config on connect
			t.Fatalf("first read: %v", err)
		}
		go func() {
			for {
				_, data, err := c.ReadMessage()
				if err != nil {
					return
				}
				// One config per change per viewer; set messages precede it.
				if bytes.HasPrefix(data, []byte(`{"type":"config"`)) {
					arrived <- struct{}{}
				}
			}
		}()
	}
	fmt.Println("fanout ready")
	go func() {
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0) // the benchmark is done
	}()
	for change := 1; ; change++ {
		for range n {
			select {
			case <-arrived:
			case <-time.After(time.Minute):
				t.Fatalf("change %d: not every viewer got it within a minute", change)
			}
		}
		fmt.Println("fanout", change)
	}
}
