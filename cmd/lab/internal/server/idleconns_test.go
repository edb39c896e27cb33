package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Sixteen addresses holding 64 idle keep-alive connections each (1,024,
// the lab's cap) lock nobody out: the idle connections are the first to
// go when the cap is near, and a person's request is served within a
// second. (The probe: another client's request timed out three
// times at 30 s.) The attackers are loopback addresses other than
// 127.0.0.1, the victim 127.0.0.1.
func TestIdleConnectionsDoNotLockOthersOut(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 1,024 connections")
	}
	addr := limitedServer(t, DefaultLimits)
	held := 0
	for a := range 16 {
		ip := fmt.Sprintf("127.0.0.%d", a+2)
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 2 * time.Second}
		for range 64 {
			c, err := d.Dial("tcp", addr)
			if err != nil {
				t.Skipf("cannot connect from %s: %v", ip, err)
			}
			t.Cleanup(func() { c.Close() })
			// One request, its answer read, then idle on a keep-alive
			// connection.
			fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				continue // its slot taken back already, or not accepted yet: it holds one or waits for one
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			held++
		}
	}
	t.Logf("%d of 1,024 idle connections answered", held)
	for i := range 3 {
		start := time.Now()
		if err := paramsWithin(addr, time.Second); err != nil {
			t.Fatalf("request %d with 16 × 64 idle connections held: %v after %v, want an answer within 1 s", i+1, err, time.Since(start).Round(time.Millisecond))
		}
	}
}
