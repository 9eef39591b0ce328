package messaging_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/messaging"
)

// Handlers that outlive AckWait (they ignore their deadline) must not let a replica take more work:
// a slot pulls its next message only when its handler returned, so at most Concurrency requests per
// subject run at once, and every request is still answered. Each attempt's deadline lies inside
// AckWait of its delivery.
func TestConcurrencyHoldsWhenHandlersOutliveAckWait(t *testing.T) {
	const limit, requests = 2, 5
	const ackWait = time.Second
	var running, peak, lateDeadlines atomic.Int64
	r := newRig(t, messaging.Config{Concurrency: limit, Topology: messaging.Topology{AckWait: ackWait}},
		map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
			start := time.Now()
			if dl, ok := ctx.Deadline(); !ok || dl.Sub(start) > ackWait {
				lateDeadlines.Add(1)
			}
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(ackWait + ackWait/2) // ignores ctx
			return echo(ctx, req)
		}})
	for i := range requests {
		sub := r.send(subj, fmt.Sprintf(`{"request_id":"slow-%d"}`, i), nil)
		defer func() {
			if rep := r.reply(sub); !rep.OK {
				t.Errorf("reply %d: %+v", i, rep.Error)
			}
		}()
	}
	waitFor(t, func() bool { return peak.Load() >= limit })
	time.Sleep(3 * ackWait) // redeliveries and pulls after AckWait would show here
	if p := peak.Load(); p != limit {
		t.Errorf("at most %d requests in flight, want exactly the limit %d", p, limit)
	}
	if n := lateDeadlines.Load(); n != 0 {
		t.Errorf("%d attempts had no deadline inside AckWait", n)
	}
}
