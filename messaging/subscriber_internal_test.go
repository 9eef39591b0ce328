package messaging

import (
	"context"
	"testing"
	"time"
)

// The reply's context ignores the attempt's cancellation but ends at the message's settle deadline,
// inside AckWait, so the ack still reaches JetStream before it redelivers.
func TestReplyDeadlineIsInsideAckWait(t *testing.T) {
	for _, ackWait := range []time.Duration{time.Second, 30 * time.Second, 60 * time.Second, 10 * time.Minute} {
		delivered := time.Now()
		by := delivered.Add(ackWait - settleMargin(ackWait))
		msgCtx, cancel := context.WithDeadline(context.WithValue(context.Background(), settleByKey{}, by), by)
		attempt, cancelAttempt := context.WithTimeout(msgCtx, time.Millisecond)
		cancelAttempt() // the attempt is over: its timeout must not cut the reply short
		rctx, cancelReply := replyContext(attempt)
		dl, ok := rctx.Deadline()
		// The reply context ends only at the settle deadline (750ms away for AckWait 1s: a loaded
		// machine may pass it before this check, which is no error).
		if err := rctx.Err(); !ok || (err != nil && time.Now().Before(by)) {
			t.Fatalf("AckWait %s: reply context ok=%v err=%v before the settle deadline", ackWait, ok, err)
		}
		if left := delivered.Add(ackWait).Sub(dl); left < 250*time.Millisecond || left > 5*time.Second {
			t.Errorf("AckWait %s: the reply ends %s before AckWait, want 250ms..5s", ackWait, left)
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
