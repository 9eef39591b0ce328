package messaging

import (
	"context"
	"testing"
	"time"
)

// The reply's context ignores the attempt's cancellation but ends at the delivery's deadline, where
// the heartbeat stops and JetStream may redeliver.
func TestReplyDeadlineIsTheDeliveryDeadline(t *testing.T) {
	for _, handlerTimeout := range []time.Duration{time.Second, 20 * time.Second, 10 * time.Minute} {
		by := time.Now().Add(DeliveryBudget(handlerTimeout))
		msgCtx, cancel := context.WithDeadline(context.WithValue(context.Background(), settleByKey{}, by), by)
		attempt, cancelAttempt := context.WithTimeout(msgCtx, time.Millisecond)
		cancelAttempt() // the attempt is over: its timeout must not cut the reply short
		rctx, cancelReply := replyContext(attempt)
		dl, ok := rctx.Deadline()
		if err := rctx.Err(); !ok || err != nil || !dl.Equal(by) {
			t.Errorf("HandlerTimeout %s: reply context deadline %v (ok=%v, err=%v), want the delivery's %v", handlerTimeout, dl, ok, err, by)
		}
		if DeliveryBudget(handlerTimeout) < 2*handlerTimeout+handlerTimeout/2 {
			t.Errorf("HandlerTimeout %s: budget %s leaves the reply under half a handler timeout after two attempts", handlerTimeout, DeliveryBudget(handlerTimeout))
		}
		cancelReply()
		cancel()
	}
	// Outside the pipeline (worker replay) a reply still has a bound.
	rctx, cancel := replyContext(context.Background())
	defer cancel()
	if _, ok := rctx.Deadline(); !ok {
		t.Error("reply context without a deadline")
	}
}
