package server

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"
	"time"
)

// stallFlat sends GET /api/traces/big/flat to the lab at base from the
// loopback address ip, uncompressed, and never reads the answer: a client
// that holds a heavy read's slot as long as the lab lets it. The
// connection closes when the test ends.
func stallFlat(t *testing.T, base, ip string) {
	t.Helper()
	u, _ := url.Parse(base)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Control: func(_, _ string, c syscall.RawConn) error {
		// A small receive window: the lab's writes stall sooner.
		return c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Skipf("cannot connect from %s: %v", ip, err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET /api/traces/big/flat HTTP/1.1\r\nHost: %s\r\nAccept-Encoding: identity\r\n\r\n", u.Host)
}

// timedGet is the status of GET url, and how long it took.
func timedGet(t *testing.T, url string) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	resp, _ := get(t, url)
	return resp.StatusCode, time.Since(start)
}

// One client with four stalled reads of a trace's packets holds its share
// of the heavy reads' slots, not all of them: another client's replay, its
// /flat and its comparison are served. (The probe: four /flat
// requests that stop reading held every slot until their stream deadline,
// about 100 s, and everyone else got 503.)
func TestStalledReadsLeaveOthersTheirSlots(t *testing.T) {
	_, base, _, _ := heavyServer(t)
	for range 4 {
		stallFlat(t, base, "127.0.0.2")
	}
	time.Sleep(500 * time.Millisecond) // the stalled reads take their slots
	cmp := "/compare.csv?" + url.Values{"chart": {"metrics"}, "v": {"trace:big@q:duration=2&techniques=buffer", "preset:lan"}}.Encode()
	for _, path := range []string{"/?trace=big", "/api/traces/big/flat", cmp} {
		if status, took := timedGet(t, base+path); status != http.StatusOK || took > 2*time.Second {
			t.Errorf("GET %s while one client stalls four /flat = %d after %v, want 200 at once", path, status, took.Round(time.Millisecond))
		}
	}
}

// A reader that stops reading loses its slot within seconds of the
// network's buffers filling, not at its whole answer's deadline: with
// four clients stalled on every slot, a read is served again soon.
func TestStalledReaderLosesItsSlot(t *testing.T) {
	_, base, _, _ := heavyServer(t)
	start := time.Now()
	for _, ip := range []string{"127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5"} {
		stallFlat(t, base, ip)
	}
	time.Sleep(500 * time.Millisecond)
	for {
		status, _ := timedGet(t, base+"/api/traces/big/flat")
		if status == http.StatusOK {
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("20 s after four clients stalled on every slot, GET /flat = %d, want a slot freed (streamStall %v)", status, streamStall)
		}
	}
	t.Logf("a slot freed %v after four clients stalled on every slot", time.Since(start).Round(100*time.Millisecond))
}
