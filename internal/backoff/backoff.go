// Package backoff is the worker's one back-off: exponential delays from an initial wait, doubled per
// attempt up to a cap, optionally with full jitter. The start-up wait for dependencies, the pull
// loop's rebinding, dead-letter publishing and the workspace metadata's optimistic retries use it.
// (The in-process retries of a handler are Watermill's Retry middleware, configured with the same
// shape.)
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Policy is an exponential back-off. The zero value never waits.
type Policy struct {
	// Initial is the wait before the first retry (attempt 0).
	Initial time.Duration
	// Max caps every wait.
	Max time.Duration
	// Jitter makes each wait random in (0, d] (full jitter) instead of d, so that many clients
	// retrying the same conflict spread out.
	Jitter bool
}

// Delay returns the wait before retry number attempt (0 for the first): Initial x 2^attempt, at
// most Max, or a random wait up to that with Jitter.
func (p Policy) Delay(attempt int) time.Duration {
	d := p.Max
	if attempt < 32 && p.Initial<<attempt > 0 && p.Initial<<attempt < p.Max {
		d = p.Initial << attempt
	}
	if p.Jitter && d > 0 {
		return rand.N(d) + 1
	}
	return d
}

// Sleep waits Delay(attempt), or returns ctx.Err() when ctx ends first.
func (p Policy) Sleep(ctx context.Context, attempt int) error {
	return Sleep(ctx, p.Delay(attempt))
}

// Sleep waits d, or returns ctx.Err() when ctx ends first.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
