package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

// A call made while JetStream cannot store its request (here: no stream yet, as between two stream
// leaders) keeps trying under the same request_id until the caller's deadline: it succeeds once the
// stream answers, and the request is stored once.
func TestCallRetriesStoringUntilTheStreamAnswers(t *testing.T) {
	s := natstest.Start(t)
	nc := natstest.Connect(t, s)
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	c, err := client.New(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		done <- c.Call(cctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "through-failover", ID: "x"}, nil)
	}()
	time.Sleep(1500 * time.Millisecond) // several attempts fail meanwhile
	if _, err := messaging.EnsureTopology(ctx, js, messaging.Topology{}); err != nil {
		t.Fatal(err)
	}
	answer(t, js, nil, nil)
	if err := <-done; err != nil {
		t.Fatalf("call through the gap: %v", err)
	}
	st, err := js.Stream(ctx, messaging.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.CachedInfo().State.Msgs; n != 1 {
		t.Fatalf("%d requests stored, want 1", n)
	}
}

// Every way a call can fail without a reply says whether sending it again is safe.
func TestCallErrorsSayWhetherARetryIsSafe(t *testing.T) {
	s := natstest.Start(t)
	nc := natstest.Connect(t, s)
	ctx := context.Background()
	js, _ := jetstream.New(nc)
	c, err := client.New(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	var ce *client.CallError

	// Not stored: no stream answers before the deadline.
	short, cancel := context.WithTimeout(ctx, time.Second)
	_, err = c.CallRaw(short, contracts.SubjectMetadata, []byte(`{"request_id":"never-stored"}`))
	cancel()
	if !errors.As(err, &ce) || ce.Stage != client.StageStore || ce.Stored || ce.Attempts < 2 || !client.RetrySafe(err) || errors.Is(err, client.ErrNoReply) {
		t.Fatalf("not stored: %v (%+v), want a retry-safe store error after several attempts", err, ce)
	}

	// Stored, no worker: no reply before the deadline; a repeat would be dropped as a duplicate.
	if _, err := messaging.EnsureTopology(ctx, js, messaging.Topology{}); err != nil {
		t.Fatal(err)
	}
	short, cancel = context.WithTimeout(ctx, 500*time.Millisecond)
	_, err = c.CallRaw(short, contracts.SubjectMetadata, []byte(`{"request_id":"stored"}`))
	cancel()
	if !errors.As(err, &ce) || ce.Stage != client.StageReply || !ce.Stored || ce.StreamSeq != 1 || client.RetrySafe(err) || !errors.Is(err, client.ErrNoReply) {
		t.Fatalf("stored: %v (%+v), want a stored reply-stage error, not retry-safe", err, ce)
	}
	_, err = c.CallRaw(ctx, contracts.SubjectMetadata, []byte(`{"request_id":"stored"}`))
	if !errors.Is(err, client.ErrDuplicate) || client.RetrySafe(err) {
		t.Fatalf("repeat: %v, want ErrDuplicate, not retry-safe", err)
	}

	// Worker error replies: retry-safe only when marked retryable.
	for _, tt := range []struct {
		wire *contracts.Error
		safe bool
	}{
		{&contracts.Error{Code: contracts.CodeUnavailable, Retryable: true}, true},
		{&contracts.Error{Code: contracts.CodeArtifactNotFound}, false},
	} {
		if got := client.RetrySafe(tt.wire); got != tt.safe {
			t.Errorf("RetrySafe(%s) = %v, want %v", tt.wire.Code, got, tt.safe)
		}
	}
}

// A reply lost on its way (core NATS: a route between two servers breaking drops it, and the
// caller's connection never hears of it) is asked for again once it is overdue, under a new
// Nats-Msg-Id and the same request_id: the call gets the second answer.
func TestCallAsksAgainWhenTheReplyIsOverdue(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for a reply to be overdue (seconds)")
	}
	t.Parallel()
	_, js, c := startStream(t)
	seen := make(chan string, 10)
	// The first answer is lost; the one to the request asked again arrives.
	answer(t, js, func(msgID, requestID string) bool { return msgID == requestID }, seen)
	ctx := context.Background()
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := c.Call(cctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "lost-reply", ID: "x"}, nil); err != nil {
		t.Fatalf("call whose first reply is lost: %v", err)
	}
	if got := []string{<-seen, <-seen}; got[0] != "lost-reply" || got[1] != "lost-reply.again-1" {
		t.Errorf("stored %q, want the request and one asked again", got)
	}
}

// A request not answered yet (here a worker took it and is still working on it; one queued behind a
// backlog is the same) is not asked again when its reply is overdue: that would only add work.
func TestCallDoesNotAskAgainForARequestNotAnswered(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits past the overdue checks (~12 s)")
	}
	t.Parallel()
	_, js, c := startStream(t)
	cons, err := js.Consumer(context.Background(), messaging.DefaultStream, messaging.ConsumerName(contracts.SubjectMetadata))
	if err != nil {
		t.Fatal(err)
	}
	taken := make(chan struct{})
	go func() { // a worker that takes the request and never finishes it
		defer close(taken)
		_, _ = cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second))
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Second) // past two overdue checks
	defer cancel()
	if err := c.Call(ctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "queued", ID: "x"}, nil); !errors.Is(err, client.ErrNoReply) {
		t.Fatalf("call whose request is never answered: %v, want ErrNoReply", err)
	}
	<-taken
	st, err := js.Stream(context.Background(), messaging.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.CachedInfo().State.Msgs; n != 1 {
		t.Errorf("%d requests stored, want 1: a request not answered was asked again", n)
	}
}
