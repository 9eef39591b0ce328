package handlers_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
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

// A new file whose content was stored but whose metadata the full bucket refused (a write that got
// past the workspace's limit while other replicas' writes filled it) leaves no object behind: the
// content is deleted again and the write answered payload_too_large, nothing stored.
func TestFileWrittenFullBucketLeavesNoObject(t *testing.T) {
	ctx := context.Background()
	js, _ := jetstream.New(natstest.Connect(t, natstest.Start(t)))
	files, err := workspace.NewMetaStore(ctx, js, workspace.MetaConfig{Bucket: "WS_SMALL"})
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, "KV_WS_SMALL")
	if err != nil {
		t.Fatal(err)
	}
	cfg := s.CachedInfo().Config
	cfg.MaxBytes = 600 // one record fits, a second does not
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	store, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	h := &handlers.FileWritten{Blobs: store, Files: files, MaxSize: 1 << 20}
	write := func(reqID, path string) error {
		body := `{"request_id":"` + reqID + `","workspace_id":"w","path":"` + path + `","mime_type":"text/plain","content":"text"}`
		_, err := h.Handle(ctx, handling.Request{RequestID: reqID, Body: []byte(body)})
		return err
	}
	if err := write("r1", "a.txt"); err != nil {
		t.Fatal(err)
	}
	err = write("r2", "b.txt")
	var ce *contracts.Error
	if !errors.As(err, &ce) || ce.Code != contracts.CodePayloadTooLarge || !strings.Contains(ce.Message, "nothing was stored") {
		t.Fatalf("a new file over the full bucket: %v", err)
	}
	if _, err := store.Stat(ctx, objectstore.WorkspaceKey("w", "b.txt")); !errors.Is(err, objectstore.ErrNotFound) {
		t.Errorf("the refused file's object: %v, want not found", err)
	}
	if _, err := store.Stat(ctx, objectstore.WorkspaceKey("w", "a.txt")); err != nil {
		t.Errorf("the recorded file's object: %v", err)
	}
}
