package workspace_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/workspace"
)

// A redelivered file_written event (same request id) is recorded once.
func TestRecordWriteIsIdempotentPerRequestID(t *testing.T) {
	s := natstest.Start(t)
	js, _ := jetstream.New(natstest.Connect(t, s))
	ctx := context.Background()
	store, err := workspace.NewMetaStore(ctx, js, workspace.MetaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	for i, mod := range []contracts.Modification{
		{AgentID: "a", Timestamp: t0, RequestID: "req-1"},
		{AgentID: "a", Timestamp: t0.Add(time.Second), RequestID: "req-1"}, // redelivery
		{AgentID: "b", Timestamp: t0.Add(2 * time.Second), RequestID: "req-2"},
	} {
		if _, err := store.RecordWrite(ctx, "ws1", "a.txt", "text/plain", mod); err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
	}
	meta, err := store.Get(ctx, "ws1", "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.ModifiedBy) != 2 || meta.ModifiedBy[0].RequestID != "req-1" || meta.ModifiedBy[1].RequestID != "req-2" {
		t.Fatalf("modifiedBy = %+v, want req-1 then req-2 once each", meta.ModifiedBy)
	}
}
