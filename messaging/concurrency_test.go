package messaging_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/messaging"
)

// Handlers that outlive their deadline (they ignore it) must not let a replica take more work: a slot
// pulls its next message only when its handler returned, so at most Concurrency requests per subject
// run at once, and every request is still answered. Each attempt's deadline is HandlerTimeout.
func TestConcurrencyHoldsWhenHandlersOutliveTheirDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits out ACK_WAIT redeliveries of handlers past their deadline (~15 s)")
	}
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

// The memory budget, not the slot count, bounds large requests: with 8 slots, requests that each
// reserve 60 of a 100-byte budget run one at a time, while requests reserving 10 run 8 at once.
// Every request is answered, and everything reserved is given back.
func TestMemoryBudgetBoundsLargeRequests(t *testing.T) {
	for _, tc := range []struct {
		name    string
		reserve int64
		want    int64
	}{{"large", 60, 1}, {"small", 10, 8}} {
		t.Run(tc.name, func(t *testing.T) {
			const slots = 8
			budget := membudget.New(100)
			var running, peak atomic.Int64
			r := newRigWith(t, messaging.Config{Concurrency: slots}, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
				if err := membudget.Reserve(ctx, tc.reserve); err != nil {
					return nil, err
				}
				n := running.Add(1)
				defer running.Add(-1)
				for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
				}
				// Hold the reservation 300 ms, and on until as many run at once as the budget
				// allows (bounded: a broken budget shows in peak, a slow machine in nothing).
				time.Sleep(300 * time.Millisecond)
				for end := time.Now().Add(20 * time.Second); peak.Load() < tc.want && time.Now().Before(end); {
					time.Sleep(10 * time.Millisecond)
				}
				return echo(ctx, req)
			}}, &rig{budget: budget})
			var subs []func()
			for i := range slots {
				sub := r.send(subj, fmt.Sprintf(`{"request_id":"%s-%d"}`, tc.name, i), nil)
				subs = append(subs, func() {
					if rep := r.reply(sub); !rep.OK {
						t.Errorf("reply %d: %+v", i, rep.Error)
					}
				})
			}
			for _, wait := range subs {
				wait()
			}
			if p := peak.Load(); p != tc.want {
				t.Errorf("%d requests reserving %d of 100 bytes ran at once, want %d", p, tc.reserve, tc.want)
			}
			waitFor(t, func() bool { return budget.Used() == 0 })
		})
	}
}
