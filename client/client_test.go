package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
)

// A second request with the same request_id is de-duplicated by JetStream; the client says so at
// once instead of waiting for a reply that goes to the first sender.
func TestDuplicateRequestIDFailsFast(t *testing.T) {
	_, _, c := startStream(t)
	ctx := context.Background()
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	// No worker runs: the first call times out waiting, but its request is stored.
	if _, err := c.CallRaw(short, contracts.SubjectGetArtifact, []byte(`{"request_id":"same"}`)); !errors.Is(err, client.ErrNoReply) {
		t.Fatalf("first call: %v, want ErrNoReply", err)
	}
	start := time.Now()
	_, err := c.CallRaw(ctx, contracts.SubjectGetArtifact, []byte(`{"request_id":"same"}`))
	if !errors.Is(err, client.ErrDuplicate) {
		t.Fatalf("second call: %v, want ErrDuplicate", err)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("duplicate detection waited for a reply")
	}
}
