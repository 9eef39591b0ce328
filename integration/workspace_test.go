package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/workspace"
)

// 100 concurrent workspace.file_written events for one file, handled by two worker processes, leave
// exactly 100 modifiedBy entries and the latest updatedAt (optimistic concurrency on JetStream KV).
func TestConcurrentFileWrittenFromTwoProcesses(t *testing.T) {
	e := newEnv(t, "CONCURRENCY=8")
	a := e.startWorker(t, "writer-a")
	b := e.startWorker(t, "writer-b")
	nc, err := nats.Connect(e.nats.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := client.New(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	const n = 100
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			content := fmt.Sprintf("line %d", i)
			req := contracts.FileWrittenRequest{RequestID: fmt.Sprintf("fw-%s-%03d", e.bucket, i), WorkspaceID: "team", Path: "notes/todo.md",
				MimeType: "text/markdown", AgentID: fmt.Sprintf("agent-%d", i%5), MessageID: fmt.Sprintf("m-%03d", i), Content: &content}
			if err := c.Call(ctx, contracts.SubjectFileWritten, req, nil); err != nil {
				t.Errorf("%s: %v", req.RequestID, err)
			}
		}()
	}
	wg.Wait()
	id, _ := workspace.EncodeID("team", "notes/todo.md")
	var info contracts.ArtifactInfo
	if err := c.Call(ctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "meta-" + e.bucket, ID: id}, &info); err != nil {
		t.Fatal(err)
	}
	latest := info.Meta.ModifiedBy[0].Timestamp
	ids := map[string]bool{}
	for _, m := range info.Meta.ModifiedBy {
		ids[m.MessageID] = true
		if m.Timestamp.After(latest) {
			latest = m.Timestamp
		}
	}
	t.Logf("FIGURES concurrent file_written: events=%d modifiedBy=%d distinct=%d time=%s; writer-a handled %v, writer-b handled %v",
		n, len(info.Meta.ModifiedBy), len(ids), time.Since(start).Round(time.Millisecond), a.handled(), b.handled())
	if len(info.Meta.ModifiedBy) != n || len(ids) != n {
		t.Fatalf("modifiedBy = %d entries (%d distinct), want %d", len(info.Meta.ModifiedBy), len(ids), n)
	}
	if !info.UpdatedAt.Equal(latest) {
		t.Fatalf("updatedAt %s, want the latest write %s", info.UpdatedAt, latest)
	}
	if a.handled()["ok"] == 0 || b.handled()["ok"] == 0 {
		t.Fatalf("both processes must handle events: a=%v b=%v", a.handled(), b.handled())
	}
}
