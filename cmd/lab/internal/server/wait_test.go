package server

import (
	"context"
	"time"

	"github.com/chromedp/chromedp"
)

// waitFor polls cond until it holds, and reports whether it did before
// timeout passed or ctx ended. Tests wait for a state this way, never for
// a fixed time.
func waitFor(ctx context.Context, cond func() bool, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			return cond()
		case <-tick.C:
		}
	}
	return true
}

// holds reports whether the JavaScript condition cond is true in b's tab
// now; an evaluation that fails (the page is loading) is false.
func (b *labTab) holds(cond string) bool {
	ctx, cancel := context.WithTimeout(b.ctx, time.Second)
	defer cancel()
	ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](cond))
	return err == nil && ok
}

// poll waits up to within for the JavaScript condition cond, through
// navigations; it reports whether the condition held.
func (b *labTab) poll(cond string, within time.Duration) bool {
	return waitFor(b.ctx, func() bool { return b.holds(cond) }, within)
}
