package handlers_test

import (
	"context"
	"io"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/workspace"
)

// A workspace.file_written event handled again (redelivery, replay) neither records a second write
// nor puts its content over a newer version of the file.
func TestFileWrittenAgainDoesNotOverwriteNewerContent(t *testing.T) {
	ctx := context.Background()
	js, _ := jetstream.New(natstest.Connect(t, natstest.Start(t)))
	files, err := workspace.NewMetaStore(ctx, js, workspace.MetaConfig{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &handlers.FileWritten{Blobs: store, Files: files, MaxSize: 1 << 20}
	write := func(reqID, content string) {
		t.Helper()
		body := `{"request_id":"` + reqID + `","workspace_id":"w","path":"a.txt","mime_type":"text/plain","agent_id":"x","content":"` + content + `"}`
		if _, err := h.Handle(ctx, handling.Request{RequestID: reqID, Body: []byte(body)}); err != nil {
			t.Fatal(err)
		}
	}
	write("first", "old")
	write("second", "new")
	write("first", "old") // the first event again
	rc, _, err := store.Open(ctx, objectstore.WorkspaceKey("w", "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(rc)
	rc.Close()
	if string(got) != "new" {
		t.Fatalf("content = %q, want the newer write to stand", got)
	}
	meta, err := files.Get(ctx, "w", "a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(meta.ModifiedBy) != 2 {
		t.Fatalf("modifiedBy = %d entries, want 2", len(meta.ModifiedBy))
	}
}
