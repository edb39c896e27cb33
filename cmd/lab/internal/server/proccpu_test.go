package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the unit of /proc/PID/stat's CPU times: USER_HZ, 100 a
// second on every Linux this runs on.
const clockTick = 10 * time.Millisecond

// childrenCPU returns the CPU time (user and system, all threads) that the
// live processes started by this test process, and theirs, have used: the
// browser under test, its driver and its display. Other work on the
// machine is not in it, so a figure made from two readings follows the
// browser's own work where a frame rate follows the machine's load too.
// It reads /proc, so it works on Linux only.
func childrenCPU() (time.Duration, error) {
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil {
		return 0, err
	}
	type proc struct {
		parent int
		ticks  int64
	}
	procs := map[int]proc{}
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // gone since the listing
		}
		pid, err := strconv.Atoi(filepath.Base(filepath.Dir(path)))
		if err != nil {
			continue
		}
		// After the command's name (in parentheses, which may hold
		// spaces): state, ppid, …, utime (the 12th), stime (the 13th).
		s := string(raw)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 13 {
			return 0, fmt.Errorf("%s: %d fields after the name", path, len(f))
		}
		parent, err1 := strconv.Atoi(f[1])
		user, err2 := strconv.ParseInt(f[11], 10, 64)
		sys, err3 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return 0, fmt.Errorf("%s: unreadable fields %q", path, f[:13])
		}
		procs[pid] = proc{parent, user + sys}
	}
	me := os.Getpid()
	var ticks int64
	for _, p := range procs {
		for anc, hops := p.parent, 0; anc > 1 && hops < 64; anc, hops = procs[anc].parent, hops+1 {
			if anc == me {
				ticks += p.ticks
				break
			}
		}
	}
	return time.Duration(ticks) * clockTick, nil
}
