package messaging

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// A reply whose publish the server cannot confirm (its connection is reconnecting to a server that
// is gone) fails within seconds, so the in-process retry answers the request, instead of holding the
// delivery, heartbeats and all, until the end of its budget.
func TestReplyNotConfirmedFailsFast(t *testing.T) {
	s := natstest.Start(t)
	nc := natstest.Connect(t, s)
	js, _ := jetstream.New(nc)
	claims, err := claimcheck.Ensure(context.Background(), js, time.Hour, nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	pub := natstest.Connect(t, s, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	p := &Pipeline{deps: Deps{PubConn: pub, Claims: claims}}
	s.Shutdown()
	deadline := time.Now().Add(5 * time.Second)
	for pub.Status() != nats.RECONNECTING {
		if time.Now().After(deadline) {
			t.Fatalf("publish connection still %v after its server stopped", pub.Status())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The delivery's budget: a minute, as with the default HandlerTimeout.
	by := time.Now().Add(DeliveryBudget(DefaultHandlerTimeout))
	ctx, cancel := context.WithDeadline(context.WithValue(context.Background(), settleByKey{}, by), by)
	defer cancel()
	rctx, cancelReply := replyContext(ctx)
	defer cancelReply()
	start := time.Now()
	_, _, err = p.reply(rctx, "_INBOX.caller", contracts.Reply{RequestID: "r1", OK: true}, nil)
	took := time.Since(start)
	if err == nil {
		t.Fatal("reply reported sent while no server could confirm it")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("reply error %v: want a deadline error (transient: retried)", err)
	}
	// Well under the budget: the in-process retry must have time to answer.
	if took > 10*time.Second {
		t.Errorf("unconfirmed reply failed after %s, want about %s (the delivery's budget is %s)", took, replyConfirmTimeout, DeliveryBudget(DefaultHandlerTimeout))
	}
}
