package messaging_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/messaging"
)

// Handlers that outlive their deadline (they ignore it) must not let a replica take more work: a slot
// pulls its next message only when its handler returned, so at most Concurrency requests per subject
// run at once, and every request is still answered. Each attempt's deadline is HandlerTimeout.
func TestConcurrencyHoldsWhenHandlersOutliveTheirDeadline(t *testing.T) {
	const limit, requests = 2, 3
	const ackWait, handlerTimeout = time.Second, 200 * time.Millisecond
	var running, peak, lateDeadlines atomic.Int64
	r := newRig(t, messaging.Config{Concurrency: limit, HandlerTimeout: handlerTimeout, Topology: messaging.Topology{AckWait: ackWait}},
		map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
			start := time.Now()
			if dl, ok := ctx.Deadline(); !ok || dl.Sub(start) > handlerTimeout {
				lateDeadlines.Add(1)
			}
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			// Ignores ctx, past the delivery's budget and AckWait after it.
			time.Sleep(messaging.DeliveryBudget(handlerTimeout) + ackWait + ackWait/2)
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
		t.Errorf("%d attempts had a deadline past HandlerTimeout", n)
	}
}
