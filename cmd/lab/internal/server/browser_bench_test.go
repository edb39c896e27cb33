package server

import (
	"cmp"
	"flag"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/chromedp"
)

var (
	browserAgainst      = flag.String("browser.against", "", "BenchmarkBrowser: the base URL of another lab (lab serve -addr 127.0.0.1:PORT of another build) to measure alternately with this one")
	browserAgainstFirst = flag.Bool("browser.against.first", false, "BenchmarkBrowser: measure the -browser.against lab first (alternate runs with and without, so neither build always goes first)")
)

// BenchmarkBrowser measures the lab page in headless Chromium: the frame
// rate, the engine step time per animation frame and per engine frame
// (1/renderRate of simulated time; under load an animation frame steps up
// to 50 ms of simulated time, several engine frames), and the draw time,
// with every technique running. Run it with make bench-browser:
//
//	go test -run='^$' -bench=BenchmarkBrowser -benchtime=1x ./cmd/lab
//
// The frame budget: with 1,000 entities the page holds 60 fps; with 10,000
// the engine step stays under 8 ms a frame (goal 4 ms). With the A/B view
// open (entities=10000/ab) the pinned simulation steps in a worker, on
// another core: step-ms is the page's own, pinned-step-ms the worker's per
// step. alloc-KB/frame is what the page's JavaScript allocates per frame
// (Chromium's sampling heap profiler, collected objects included): garbage
// the collector clears mid-animation, whose pauses drop frames.
//
// main-cpu-ms/frame and worker-cpu-ms/frame are the CPU time of the page's
// main thread and of its workers (the A/B view's) per animation frame, from
// a trace of the measurement: wall times and the frame rate follow what
// else the machine runs, CPU time much less.
//
// With -args -browser.against=http://127.0.0.1:PORT (another build's lab
// serve, on loopback) every case is measured on that lab too, right after
// this tree's (before it with -browser.against.first), and reported with
// the prefix against-: a before/after in one run, under the same load. The
// page measured first is paused before the other is opened, so that it
// does not take the cores while the other is measured.
func BenchmarkBrowser(b *testing.B) {
	against := strings.TrimSuffix(*browserAgainst, "/")
	if against != "" && !strings.HasPrefix(against, "http://127.") && !strings.HasPrefix(against, "http://localhost:") {
		b.Fatalf("-browser.against=%s: only a loopback lab", against)
	}
	for _, bc := range []struct {
		name string
		link string
		ab   bool // with the A/B view open: a second run of the same settings pinned
	}{
		{"entities=1000", "/?entities=1000", false},
		{"entities=10000", "/?entities=10000", false},
		{"entities=10000/ab", "/?entities=10000", true},
	} {
		b.Run(bc.name, func(b *testing.B) {
			here := func() {
				tab := openLab(b, bc.link)
				measureLab(b, tab, bc.ab).report(b, "", bc.ab)
				tab.eval(`lab.pause()`, nil)
			}
			there := func() {
				tab := startChromium(b, against, browserTimeout)
				tab.navigate(bc.link)
				measureLab(b, tab, bc.ab).report(b, "against-", bc.ab)
				tab.eval(`lab.pause()`, nil)
			}
			switch {
			case against == "":
				here()
			case *browserAgainstFirst:
				there()
				here()
			default:
				here()
				there()
			}
			b.Logf("load average %s", loadAverage())
			b.ReportMetric(0, "ns/op") // the wall time of a measurement says nothing
		})
	}
}

// labFigures is what measureLab measures of one page.
type labFigures struct {
	FPS, StepMs, StepMsPerSimFrame, StepMaxMs, DrawMs, PinnedStepMs float64
	Frames, Entities, Techniques                                    int
	allocKB, mainCPU, workerCPU                                     float64 // per frame
}

func (m labFigures) report(b *testing.B, prefix string, ab bool) {
	b.ReportMetric(m.FPS, prefix+"fps")
	b.ReportMetric(m.StepMs, prefix+"step-ms/frame")
	b.ReportMetric(m.StepMsPerSimFrame, prefix+"step-ms/sim-frame")
	b.ReportMetric(m.StepMaxMs, prefix+"step-max-ms")
	b.ReportMetric(m.DrawMs, prefix+"draw-ms/frame")
	b.ReportMetric(m.allocKB, prefix+"alloc-KB/frame")
	if m.mainCPU >= 0 {
		b.ReportMetric(m.mainCPU, prefix+"main-cpu-ms/frame")
	}
	if ab {
		b.ReportMetric(m.PinnedStepMs, prefix+"pinned-step-ms")
		if m.workerCPU >= 0 {
			b.ReportMetric(m.workerCPU, prefix+"worker-cpu-ms/frame")
		}
	}
}

// measureLab measures the page in tab for 5 s (lab.measure), after
// pinning the A/B view if ab, with the heap profiler sampling and a trace
// running.
func measureLab(b *testing.B, tab *labTab, ab bool) labFigures {
	b.Helper()
	if ab {
		tab.eval(`document.getElementById('ab-pin').click()`, nil)
		if !tab.poll(`lab.ab().pinned && lab.ab().frames > 0`, 30*time.Second) {
			b.Fatal("the A/B view did not start within 30 s")
		}
	}
	// Warm up: the first frames compile and allocate.
	if !tab.poll(`lab.state().frames >= 60`, 30*time.Second) {
		b.Fatal("the page did not draw 60 frames within 30 s")
	}
	var m labFigures
	yes := true
	if _, err := chromedp.Call(tab.ctx, heapprofiler.StartSampling, heapprofiler.StartSamplingParams{
		SamplingInterval: 4096, IncludeObjectsCollectedByMajorGC: &yes, IncludeObjectsCollectedByMinorGC: &yes,
	}); err != nil {
		b.Fatal(err)
	}
	cpu := traceThreadCPU(b, tab, func() { tab.eval(`lab.measure(5)`, &m) })
	res, err := chromedp.Call(tab.ctx, heapprofiler.StopSampling, cdp.Empty{})
	if err != nil {
		b.Fatal(err)
	}
	if m.Entities == 0 || m.Techniques != 5 || m.Frames == 0 {
		b.Fatalf("measured %d entities × %d techniques over %d frames, want every technique", m.Entities, m.Techniques, m.Frames)
	}
	m.allocKB = heapBytes(res.Profile.Head) / 1024 / float64(m.Frames)
	m.mainCPU, m.workerCPU = -1, -1
	if cpu != nil {
		m.mainCPU = cpu["CrRendererMain"] / float64(m.Frames)
		m.workerCPU = cpu["DedicatedWorker thread"] / float64(m.Frames)
	}
	return m
}

// traceThreadCPU traces the page while during runs and returns the CPU
// time, ms, of the top-level tasks of each thread of the renderer whose
// main thread used the most, by thread name (threads of one name summed);
// nil when the trace does not tell.
func traceThreadCPU(b *testing.B, tab *labTab, during func()) map[string]float64 {
	b.Helper()
	tr, err := startTrace(tab.ctx, []string{"toplevel"}, false)
	if err != nil {
		b.Fatal(err)
	}
	during()
	if err := tr.stop(tab.ctx); err != nil {
		b.Fatal(err)
	}
	var cpu map[string]float64
	n := tr.wait(tab.ctx, func(events []traceEvent) bool {
		cpu = threadCPU(events)
		return cpu != nil
	})
	if cpu == nil {
		b.Logf("the trace (%d events) names no renderer main thread: no CPU times", n)
	}
	return cpu
}

// threadCPU sums, per thread name, the CPU time (ms) of the top-level
// complete events of the process whose CrRendererMain used the most.
func threadCPU(events []traceEvent) map[string]float64 {
	type key struct{ pid, tid int }
	names := map[key]string{}
	for _, e := range events {
		if e.Ph == "M" && e.Name == "thread_name" {
			names[key{e.Pid, e.Tid}] = e.Args.Name
		}
	}
	byThread := map[key][]traceEvent{}
	for _, e := range events {
		if e.Ph == "X" && e.Tdur > 0 {
			k := key{e.Pid, e.Tid}
			byThread[k] = append(byThread[k], e)
		}
	}
	sums := map[key]float64{}
	for k, es := range byThread {
		slices.SortFunc(es, func(a, b traceEvent) int {
			if c := cmp.Compare(a.Ts, b.Ts); c != 0 {
				return c
			}
			return cmp.Compare(b.Dur, a.Dur) // the enclosing task first
		})
		var end float64
		for _, e := range es {
			if e.Ts >= end { // top level: not inside the task before
				sums[k] += e.Tdur / 1000
				end = e.Ts + e.Dur
			}
		}
	}
	pid, most := -1, -1.0
	for k, ms := range sums {
		if names[k] == "CrRendererMain" && ms > most {
			pid, most = k.pid, ms
		}
	}
	if pid < 0 {
		return nil
	}
	out := map[string]float64{}
	for k, ms := range sums {
		if k.pid == pid {
			out[names[k]] += ms
		}
	}
	return out
}

// heapBytes sums the sampled allocations under n.
func heapBytes(n *heapprofiler.SamplingHeapProfileNode) float64 {
	sum := n.SelfSize
	for _, c := range n.Children {
		sum += heapBytes(c)
	}
	return sum
}
