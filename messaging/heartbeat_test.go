package messaging_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

// A handler that works longer than AckWait (within its HandlerTimeout) is not redelivered: the
// heartbeat keeps the message with its replica.
func TestHandlerLongerThanAckWaitIsNotRedelivered(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a handler outlives ACK_WAIT on purpose (seconds)")
	}
	const ackWait = time.Second
	var calls atomic.Int64
	r := newRig(t, messaging.Config{Concurrency: 2, HandlerTimeout: 5 * ackWait, Topology: messaging.Topology{AckWait: ackWait}},
		map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
			calls.Add(1)
			select {
			case <-time.After(3 * ackWait):
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return map[string]uint64{"delivery": req.Delivery}, nil
		}})
	rep := r.reply(r.send(subj, `{"request_id":"long"}`, nil))
	var res struct{ Delivery uint64 }
	_ = json.Unmarshal(rep.Result, &res)
	if !rep.OK || res.Delivery != 1 {
		t.Fatalf("reply %+v (delivery %d), want ok on the first delivery", rep.Error, res.Delivery)
	}
	time.Sleep(ackWait) // a redelivery would start a second call
	if n := calls.Load(); n != 1 {
		t.Fatalf("handler called %d times, want once", n)
	}
}

// A replica that dies mid-request (its connections gone without an ack, as on SIGKILL) stops its
// heartbeats; another replica answers the request AckWait later, long before the dead handler's own
// deadline.
func TestDeadReplicasRequestIsAnsweredByAnotherAfterAckWait(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for ACK_WAIT after a replica dies (seconds)")
	}
	const ackWait, handlerTimeout = 2 * time.Second, 30 * time.Second
	cfg := messaging.Config{Concurrency: 1, HandlerTimeout: handlerTimeout, Topology: messaging.Topology{AckWait: ackWait}}
	started := make(chan struct{}, 1)
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	r := newRig(t, cfg, map[string]messaging.Handler{subj: echo})
	// Only the victim runs while the request arrives.
	if err := r.pipeline.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	claims, err := claimcheck.Ensure(ctx, r.js, time.Hour, r.nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	sub, pub := natstest.Connect(t, r.server), natstest.Connect(t, r.server)
	victim, err := messaging.New(cfg, messaging.Deps{SubConn: sub, PubConn: pub, Claims: claims, MapError: mapError,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
			started <- struct{}{}
			<-hang // never answers
			return nil, ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = victim.Run(context.Background()) }()
	<-victim.Running()
	replies := r.send(subj, `{"request_id":"victim"}`, nil)
	<-started
	time.Sleep(2 * ackWait) // the heartbeat keeps it meanwhile
	sub.Close()             // the replica dies: no ack, no nak, no heartbeat
	pub.Close()
	died := time.Now()
	r.startPipeline(cfg, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		return map[string]uint64{"delivery": req.Delivery}, nil
	}})
	rep := r.reply(replies)
	took := time.Since(died)
	t.Logf("answered by the other replica %s after the first one died (AckWait %s, HandlerTimeout %s)", took.Round(time.Millisecond), ackWait, handlerTimeout)
	var res struct{ Delivery uint64 }
	_ = json.Unmarshal(rep.Result, &res)
	if !rep.OK || res.Delivery != 2 {
		t.Fatalf("reply %+v (delivery %d), want ok on the second delivery", rep.Error, res.Delivery)
	}
	if took >= handlerTimeout {
		t.Fatalf("answered %s after the replica died: it waited for the dead handler's deadline, not AckWait", took)
	}
}
