package handlers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/workspace"
)

// failingBlobs is a store whose writes fail with err: storage failures that a real MinIO cannot be
// made to produce on demand in a test running as root.
type failingBlobs struct{ err error }

func (f failingBlobs) Stat(context.Context, string) (objectstore.Info, error) {
	return objectstore.Info{}, f.err
}
func (f failingBlobs) Put(context.Context, string, io.Reader, int64, string, map[string]string) (objectstore.Info, error) {
	return objectstore.Info{}, f.err
}
func (f failingBlobs) Delete(context.Context, string) error { return f.err }

type noFiles struct{}

func (noFiles) Reserve(context.Context, string, string, int64) (func(), error) { return func() {}, nil }

func (noFiles) RecordStored(context.Context, string, string, string, int64, contracts.Modification) (workspace.FileMeta, error) {
	return workspace.FileMeta{}, nil
}

func (noFiles) Get(context.Context, string, string) (workspace.FileMeta, error) {
	return workspace.FileMeta{}, workspace.ErrNotFound
}

// Storage errors on write map to the contract's codes (write_failed, unavailable); transient ones stay transient (retried).
func TestFileWrittenStorageErrors(t *testing.T) {
	cases := []struct {
		err       error
		code      string
		transient bool
	}{
		{fmt.Errorf("put: %w", objectstore.ErrPermission), contracts.CodePermissionDenied, false},
		{errors.New("disk quota exceeded"), contracts.CodeWriteFailed, false},
		{fmt.Errorf("put: %w", objectstore.ErrUnavailable), contracts.CodeUnavailable, true},
	}
	for _, c := range cases {
		h := &FileWritten{Blobs: failingBlobs{c.err}, Files: noFiles{}, MaxSize: 1 << 20}
		_, err := h.Handle(context.Background(), handling.Request{Body: []byte(`{"request_id":"r","workspace_id":"w","path":"a.txt","mime_type":"text/plain","content":"x"}`)})
		wire, transient := MapError(err)
		if wire.Code != c.code || transient != c.transient {
			t.Errorf("%v: code %s transient %v, want %s %v", c.err, wire.Code, transient, c.code, c.transient)
		}
		if c.code == contracts.CodeWriteFailed && wire.Message != "write_failed: "+c.err.Error() {
			t.Errorf("message = %q, want the contract's write_failed: <reason>", wire.Message)
		}
	}
}

// Inline content over the size limit is refused before anything is written.
func TestFileWrittenInlineContentOverTheLimit(t *testing.T) {
	h := &FileWritten{Blobs: failingBlobs{errors.New("must not be called")}, Files: noFiles{}, MaxSize: 8}
	for _, body := range []string{
		`{"request_id":"r","workspace_id":"w","path":"a.txt","mime_type":"text/plain","content":"123456789"}`,
		`{"request_id":"r","workspace_id":"w","path":"a.txt","mime_type":"text/plain","content_base64":"MTIzNDU2Nzg5MDEyMzQ1Ng=="}`,
		`{"request_id":"r","workspace_id":"w","path":"a.txt","mime_type":"text/plain","content_base64":"MTIzNDU2Nzg5"}`, // 9 bytes, within the encoded-length slack
	} {
		_, err := h.Handle(context.Background(), handling.Request{Body: []byte(body)})
		if wire, _ := MapError(err); wire.Code != contracts.CodePayloadTooLarge {
			t.Errorf("%s: %+v", body, wire)
		}
	}
}
