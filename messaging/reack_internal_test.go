package messaging

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// An ack lost on its way (sent through a server cut off from its cluster) leaves the request
// pending until AckWait; the subscriber sends its recent acks again once its connection
// reconnects, so the consumer counts the request answered at once, not after AckWait.
func TestAcksAreSentAgainAfterAReconnect(t *testing.T) {
	t.Parallel()
	s := natstest.Start(t)
	nc := natstest.Connect(t, s, nats.ReconnectWait(50*time.Millisecond))
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "REACK", Subjects: []string{"reack"}}); err != nil {
		t.Fatal(err)
	}
	const ackWait = 30 * time.Second
	cons, err := js.CreateConsumer(ctx, "REACK", jetstream.ConsumerConfig{Durable: "c", AckPolicy: jetstream.AckExplicitPolicy, AckWait: ackWait})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "reack", []byte("request")); err != nil {
		t.Fatal(err)
	}
	batch, err := cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var msg jetstream.Msg
	for m := range batch.Messages() {
		msg = m
	}
	if msg == nil {
		t.Fatal("no message fetched")
	}
	sub := newSubscriber(js, "REACK", ackWait, time.Minute, nil, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer sub.Close()
	sub.acks.sent(msg.Reply(), time.Now()) // the ack that was sent and lost
	ackFloor := func() uint64 {
		info, err := cons.Info(ctx)
		if err != nil {
			return 0
		}
		return info.AckFloor.Stream
	}
	if got := ackFloor(); got != 0 {
		t.Fatalf("ack floor %d before any ack reached the server", got)
	}
	if err := nc.ForceReconnect(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ackFloor() < 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("ack floor %d 10 s after the reconnect, want 1: the lost ack was not sent again", ackFloor())
		}
	}
}

// The acks remembered are those of the last window, at most maxRecentAcks.
func TestRecentAcksKeepTheWindow(t *testing.T) {
	r := recentAcks{window: 10 * time.Second}
	t0 := time.Now()
	r.sent("old", t0)
	r.sent("", t0) // a message without a reply subject: nothing to send again
	r.sent("new", t0.Add(8*time.Second))
	if got := r.since(t0.Add(12 * time.Second)); len(got) != 1 || got[0] != "new" {
		t.Errorf("acks of the last 10 s at +12 s: %q, want [new]", got)
	}
	for i := range maxRecentAcks + 10 {
		r.sent("many", t0.Add(12*time.Second+time.Duration(i)))
	}
	if got := len(r.since(t0.Add(13 * time.Second))); got != maxRecentAcks {
		t.Errorf("%d acks remembered, want the bound %d", got, maxRecentAcks)
	}
}
