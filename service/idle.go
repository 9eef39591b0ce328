package service

import (
	"context"
	"runtime/debug"
	"time"
)

// idleRelease is how long the worker must have been idle after some work before releaseWhenIdle gives
// memory back: longer than the nats-server file store's block cache expiry (10 s), so that an
// embedded server's caches of the claim-check and request streams are free by then.
const idleRelease = 15 * time.Second

// freeMemory runs two collections and returns freed memory to the operating system: buffers parked
// in sync.Pools (the nats-server's block buffers) survive one cycle.
func freeMemory() {
	debug.FreeOSMemory()
	debug.FreeOSMemory()
}

// releaseWhenIdle calls release once the worker has been idle for idle after handling requests
// (checked every tick), and again only after more requests. Go collects garbage only when it allocates, so after a burst
// of large requests an idle worker would otherwise keep its peak heap (and RSS) until the runtime's
// two-minute forced collection. It runs until ctx ends; activity reports the requests in flight and
// the number taken so far.
func releaseWhenIdle(ctx context.Context, activity func() (int64, uint64), tick, idle time.Duration, release func()) {
	t := time.NewTicker(tick)
	defer t.Stop()
	var lastTaken uint64
	var idleFor time.Duration
	dirty := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		inFlight, taken := activity()
		if inFlight > 0 || taken != lastTaken {
			lastTaken, idleFor, dirty = taken, 0, true
			continue
		}
		idleFor += tick
		if dirty && idleFor >= idle {
			release()
			dirty = false
		}
	}
}
