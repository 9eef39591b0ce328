package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
)

// The client sends its context's deadline as Artifact-Worker-Deadline, and an expired reply is
// ErrExpired that still unwraps to the wire error.
func TestCallSendsDeadlineAndReportsExpired(t *testing.T) {
	nc, js, c := startStream(t)
	ctx := context.Background()
	cons, err := js.Consumer(ctx, messaging.DefaultStream, messaging.ConsumerName(contracts.SubjectMetadata))
	if err != nil {
		t.Fatal(err)
	}
	// A stand-in worker: reads the stored request's deadline and answers expired.
	got := make(chan string, 1)
	go func() {
		m, err := cons.Next(jetstream.FetchMaxWait(10 * time.Second))
		if err != nil {
			got <- "no request: " + err.Error()
			return
		}
		_ = m.Ack()
		got <- m.Headers().Get(contracts.HeaderDeadline)
		rep, _ := json.Marshal(contracts.Reply{RequestID: "d1", Error: &contracts.Error{Code: contracts.CodeExpired, Message: "too late"}})
		_ = nc.PublishMsg(&nats.Msg{Subject: m.Headers().Get(contracts.HeaderReplyTo), Data: rep})
	}()
	callCtx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	deadline, _ := callCtx.Deadline()
	err = c.Call(callCtx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "d1", ID: "x"}, nil)
	if h := <-got; h != contracts.FormatDeadline(deadline) {
		t.Errorf("stored %s %q, want %q", contracts.HeaderDeadline, h, contracts.FormatDeadline(deadline))
	}
	var wire *contracts.Error
	if !errors.Is(err, client.ErrExpired) || !errors.As(err, &wire) || wire.Code != contracts.CodeExpired {
		t.Fatalf("Call: %v, want ErrExpired wrapping the expired wire error", err)
	}
}

// A claim-checked request sent again with the same request_id is not stored again, and the body the
// second call put into the claim-check bucket is deleted; the first call's stays for the worker.
func TestDuplicateClaimCheckedRequestLeavesNoClaim(t *testing.T) {
	nc, js, c := startStream(t)
	ctx := context.Background()
	claims, err := claimcheck.Bind(ctx, js, nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"request_id":"big-dup","padding":"` + strings.Repeat("p", 2<<20) + `"}`)
	short, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	// No worker runs: the first call is stored and waits in vain (3 s: storing 2 MiB under -race on a
	// loaded machine took longer than a shorter deadline, which then failed at the store stage).
	if _, err := c.CallRaw(short, contracts.SubjectGetArtifact, body); !errors.Is(err, client.ErrNoReply) {
		t.Fatalf("first call: %v, want ErrNoReply", err)
	}
	first, _, err := claims.Usage(ctx)
	if err != nil || first < 2<<20 {
		t.Fatalf("after the first call the bucket holds %d bytes (%v), want its claim", first, err)
	}
	if _, err := c.CallRaw(ctx, contracts.SubjectGetArtifact, body); !errors.Is(err, client.ErrDuplicate) {
		t.Fatalf("second call: %v, want ErrDuplicate", err)
	}
	if after, _, _ := claims.Usage(ctx); after != first {
		t.Errorf("the bucket holds %d bytes after the duplicate, want the first call's %d", after, first)
	}
}
