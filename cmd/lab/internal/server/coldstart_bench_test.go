package server

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/tracing"
	"github.com/chromedp/chromedp"
)

var coldAgainst = flag.String("cold.against", "", "BenchmarkBrowserColdStart: the base URL of another lab (lab serve -addr 127.0.0.1:PORT of another build) to time alternately with this one")

var coldTrace = flag.String("cold.trace", "", "BenchmarkBrowserColdStart: a directory to write each start's full Chromium trace to (coldstart-T-N.json, T the target: 0 this tree's lab, 1 -cold.against's), for DevTools' Performance panel; the extra trace categories slow the start a little")

// BenchmarkBrowserColdStart times the lab's cold start in Chromium: each
// iteration starts a new browser with a new profile and its cache
// disabled, opens /?preset=lan at 1440×900 and reads the page's
// lab-first-frame mark, the time from navigation to the first simulated
// frame, and, from a trace, the CPU time of the page's main thread until
// then: on a loaded machine the first frame waits mostly for a core, and
// the CPU time says what the page itself costs. It reports the medians
// over the iterations, so run it with -benchtime=10x or more:
//
//	go test -run='^$' -bench=BenchmarkBrowserColdStart -benchtime=10x ./cmd/lab/internal/server
//
// With -args -cold.against=http://127.0.0.1:PORT (another build's lab
// serve, on loopback) it alternates between that lab and this tree's, who
// goes first swapping each iteration, and reports both medians and their
// ratio: a before/after in one run, under the same load.
func BenchmarkBrowserColdStart(b *testing.B) {
	browserInstalled(b)
	targets := []string{newLoopbackServer(b, newBrowserServer(b))}
	if *coldAgainst != "" {
		if !strings.HasPrefix(*coldAgainst, "http://127.") && !strings.HasPrefix(*coldAgainst, "http://localhost:") {
			b.Fatalf("-cold.against=%s: only a loopback lab", *coldAgainst)
		}
		targets = append(targets, strings.TrimSuffix(*coldAgainst, "/"))
	}
	times, painted, cpus := coldRounds(b, len(targets), func(t, i int) (ms, paint, cpu float64) {
		trace := ""
		if *coldTrace != "" {
			trace = filepath.Join(*coldTrace, fmt.Sprintf("coldstart-%d-%d.json", t, i))
		}
		return coldStart(b, targets[t]+"/?preset=lan", trace)
	})
	b.ReportMetric(coldMedian(times[0]), "first-frame-ms")
	b.ReportMetric(coldMedian(painted[0]), "first-painted-ms")
	b.ReportMetric(coldMedian(cpus[0]), "main-cpu-ms")
	if len(targets) > 1 {
		b.ReportMetric(coldMedian(times[1]), "against-first-frame-ms")
		b.ReportMetric(coldMedian(cpus[1]), "against-main-cpu-ms")
		b.ReportMetric(coldMedian(times[0])/coldMedian(times[1]), "first-frame-ratio")
		b.ReportMetric(coldMedian(cpus[0])/coldMedian(cpus[1]), "main-cpu-ratio")
		if len(painted[1]) > 0 {
			b.ReportMetric(coldMedian(painted[1]), "against-first-painted-ms")
		}
	}
	b.Logf("load average %s; first frame, ms: %.0f; painted, ms: %.0f; main thread CPU, ms: %.0f", loadAverage(), times, painted, cpus)
	b.ReportMetric(0, "ns/op")
}

// coldStart opens url in a new Chromium with an empty profile and its
// cache disabled, at 1440×900, and returns the page's lab-first-frame
// mark, ms after navigation, its lab-first-frame-painted mark (set by a
// task the first frame's callback posts, which runs once the browser has
// styled, laid out and painted that frame; -1 for a page without it: an
// older build), and the CPU time of the page's main thread until the
// first mark, ms (-1 when the trace does not tell). With a trace path it
// traces more (the network, V8's compilation, the wasm's) and writes the
// whole trace there.
func coldStart(b *testing.B, url, trace string) (ms, painted, cpu float64) {
	b.Helper()
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), chromiumOptions(b.TempDir())...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx); err != nil {
		b.Fatalf("start chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		b.Fatal(err)
	}
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{Width: 1440, Height: 900, DeviceScaleFactor: 1}); err != nil {
		b.Fatal(err)
	}
	categories := []string{"toplevel", "blink.user_timing", "devtools.timeline"}
	if trace != "" {
		categories = append(categories, "disabled-by-default-devtools.timeline", "disabled-by-default-devtools.timeline.stack", "loading", "netlog", "devtools.timeline.async",
			"v8", "v8.wasm", "disabled-by-default-v8.wasm.detailed", "v8.execute", "blink", "blink.resource", "navigation", "benchmark", "rail")
	}
	tr, err := startTrace(ctx, categories, trace != "")
	if err != nil {
		b.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		b.Fatalf("navigate %s: %v", url, err)
	}
	const mark = `performance.getEntriesByName('lab-first-frame')`
	if !waitFor(ctx, func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](mark+`.length > 0`))
		return err == nil && ok
	}, 30*time.Second) {
		b.Fatalf("%s: no simulated frame within 30 s", url)
	}
	ms, err = chromedp.Run(ctx, chromedp.Evaluate[float64](mark+`[0].startTime`))
	if err != nil {
		b.Fatal(err)
	}
	const paint = `performance.getEntriesByName('lab-first-frame-painted')`
	painted = -1
	if waitFor(ctx, func() bool {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](paint+`.length > 0`))
		return err == nil && ok
	}, 5*time.Second) {
		if painted, err = chromedp.Run(ctx, chromedp.Evaluate[float64](paint+`[0].startTime`)); err != nil {
			b.Fatal(err)
		}
	}
	if err := tr.stop(ctx); err != nil {
		b.Fatal(err)
	}
	var ok bool
	n := tr.wait(ctx, func(events []traceEvent) bool {
		cpu, ok = mainThreadCPU(events)
		return ok
	})
	if trace != "" {
		if err := tr.write(trace); err != nil {
			b.Fatalf("write the trace: %v", err)
		}
	}
	if !ok {
		// Now and then a trace misses the renderer's thread names: the
		// start still counts, its CPU time does not.
		b.Logf("%s: the trace (%d events) has no main thread with the lab-first-frame mark: no CPU time for this start", url, n)
		return ms, painted, -1
	}
	return ms, painted, cpu
}

// traceEvent is what mainThreadCPU reads of a Chromium trace event.
type traceEvent struct {
	Name string  `json:"name"`
	Ph   string  `json:"ph"`
	Pid  int     `json:"pid"`
	Tid  int     `json:"tid"`
	Ts   float64 `json:"ts"`   // µs
	Dur  float64 `json:"dur"`  // µs
	Tdur float64 `json:"tdur"` // µs of the thread's CPU
	Args struct {
		Name string `json:"name"`
	} `json:"args"`
}

// chromeTrace records a Chromium trace of one tab: every event as a
// traceEvent and, when asked, as Chromium sent it (for a file DevTools
// opens).
type chromeTrace struct {
	mu      sync.Mutex
	events  []traceEvent
	raw     []json.RawMessage
	keepRaw bool
	done    chan struct{} // closed at tracingComplete
}

// startTrace starts tracing categories in ctx's tab, its readers listening
// before the trace begins.
func startTrace(ctx context.Context, categories []string, keepRaw bool) (*chromeTrace, error) {
	tr := &chromeTrace{keepRaw: keepRaw, done: make(chan struct{})}
	go func() {
		for ev, err := range chromedp.Events(ctx, tracing.DataCollected) {
			if err != nil {
				return
			}
			tr.mu.Lock()
			for _, v := range ev.Value {
				var e traceEvent
				if json.Unmarshal(v, &e) == nil {
					tr.events = append(tr.events, e)
				}
				if tr.keepRaw {
					tr.raw = append(tr.raw, json.RawMessage(v))
				}
			}
			tr.mu.Unlock()
		}
	}()
	go func() {
		for range chromedp.Events(ctx, tracing.TracingComplete) {
			close(tr.done)
			return
		}
	}()
	_, err := chromedp.Call(ctx, tracing.Start, tracing.StartParams{
		TransferMode: tracing.StartTransferModeReportEvents,
		TraceConfig:  &tracing.TraceConfig{IncludedCategories: categories},
	})
	return tr, err
}

// stop ends the trace and waits for Chromium to say it is complete.
func (tr *chromeTrace) stop(ctx context.Context) error {
	if _, err := chromedp.Call(ctx, tracing.End, cdp.Empty{}); err != nil {
		return err
	}
	select {
	case <-tr.done:
		return nil
	case <-ctx.Done():
		return errors.New("the trace did not complete")
	}
}

// wait gives read the events gathered so far until it is satisfied or 5 s
// have passed (the last dataCollected events may still be on their way to
// their reader when tracingComplete has come to its own), and returns how
// many events it last read.
func (tr *chromeTrace) wait(ctx context.Context, read func([]traceEvent) bool) int {
	var n int
	waitFor(ctx, func() bool {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		n = len(tr.events)
		return read(tr.events)
	}, 5*time.Second)
	return n
}

// write saves the events as Chromium sent them to name, as DevTools opens a
// trace.
func (tr *chromeTrace) write(name string) error {
	tr.mu.Lock()
	body, err := json.Marshal(map[string]any{"traceEvents": tr.raw})
	tr.mu.Unlock()
	if err != nil {
		return err
	}
	return os.WriteFile(name, body, 0o644)
}

// mainThreadCPU sums the CPU time of the top-level tasks of the renderer
// main thread that set the lab-first-frame mark, from its navigationStart
// to the mark, in ms.
func mainThreadCPU(events []traceEvent) (float64, bool) {
	var mark, nav *traceEvent
	for i := range events {
		if events[i].Name == "lab-first-frame" {
			mark = &events[i]
		}
	}
	if mark == nil {
		return 0, false
	}
	mainTid := -1
	for i, e := range events {
		if e.Pid != mark.Pid {
			continue
		}
		if e.Ph == "M" && e.Name == "thread_name" && e.Args.Name == "CrRendererMain" {
			mainTid = e.Tid
		}
		if e.Name == "navigationStart" && e.Ts <= mark.Ts && (nav == nil || e.Ts > nav.Ts) {
			nav = &events[i]
		}
	}
	if mainTid < 0 || nav == nil {
		return 0, false
	}
	var tasks []traceEvent
	for _, e := range events {
		if e.Pid == mark.Pid && e.Tid == mainTid && e.Ph == "X" && e.Tdur > 0 && e.Ts >= nav.Ts && e.Ts <= mark.Ts {
			tasks = append(tasks, e)
		}
	}
	slices.SortFunc(tasks, func(a, b traceEvent) int {
		if c := cmp.Compare(a.Ts, b.Ts); c != 0 {
			return c
		}
		return cmp.Compare(b.Dur, a.Dur) // the enclosing task first
	})
	var cpu, end float64
	for _, e := range tasks {
		if e.Ts >= end { // top level: not inside the task before
			cpu += e.Tdur
			end = e.Ts + e.Dur
		}
	}
	return cpu / 1000, true
}

// coldRounds runs n cold starts an iteration of b's loop, the one
// start(t, i) makes for each t from 0 to n−1 in iteration i, who goes first
// turning each iteration, and returns each t's first frames, the first
// frames painted where the page marks them and the CPU times the traces
// told (start returns painted or cpu < 0 where one did not).
func coldRounds(b *testing.B, n int, start func(t, i int) (ms, painted, cpu float64)) (times, painted, cpus [][]float64) {
	times, painted, cpus = make([][]float64, n), make([][]float64, n), make([][]float64, n)
	i := 0
	for b.Loop() {
		for k := range n {
			t := (k + i) % n
			ms, paint, cpu := start(t, i)
			times[t] = append(times[t], ms)
			if paint >= 0 {
				painted[t] = append(painted[t], paint)
			}
			if cpu >= 0 {
				cpus[t] = append(cpus[t], cpu)
			}
		}
		i++
	}
	return times, painted, cpus
}

// loadAverage returns the machine's load averages over 1, 5 and 15
// minutes, as /proc/loadavg gives them ("unknown" where it cannot be read),
// which a benchmark logs beside figures that follow the load.
func loadAverage() string {
	la, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(la)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// coldMedian returns the median of v (0 for none).
func coldMedian(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(v))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}
