package handlers

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/workspace"
)

// WorkspaceBlobs is the storage workspace.file_written needs.
type WorkspaceBlobs interface {
	Stat(ctx context.Context, key string) (objectstore.Info, error)
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string, meta map[string]string) (objectstore.Info, error)
	Delete(ctx context.Context, key string) error
}

// FileRecorder records a write of a workspace file with optimistic concurrency and reads it back.
// Reserve checks that content of n bytes fits in the workspace's storage limit before it is stored
// (workspace.ErrOverLimit when not); RecordStored records the write with the size of the content
// stored (0: none), which the limit then accounts.
type FileRecorder interface {
	Reserve(ctx context.Context, workspaceID, cleanPath string, n int64) (release func(), err error)
	RecordStored(ctx context.Context, workspaceID, cleanPath, mimeType string, size int64, mod contracts.Modification) (workspace.FileMeta, error)
	FileMetas
}

// FileWritten handles workspace.file_written: it stores inline content (when given), records the
// write in the file's metadata and answers the file's stable artifact ID.
type FileWritten struct {
	Blobs WorkspaceBlobs
	Files FileRecorder
	// MaxSize bounds inline content.
	MaxSize int64
	// Now is the clock of modification timestamps (default time.Now).
	Now func() time.Time
}

// Handle implements handling.Handler.
func (h *FileWritten) Handle(ctx context.Context, req handling.Request) (any, error) {
	var r contracts.FileWrittenRequest
	if err := decode(contracts.SubjectFileWritten, req.Body, &r); err != nil {
		return nil, err
	}
	if err := workspace.ValidateWorkspaceID(r.WorkspaceID); err != nil {
		return nil, invalid("workspace_id", "%v", err)
	}
	if r.Path == "" {
		return nil, invalid("path", "path is required")
	}
	clean, err := workspace.CleanPath(r.Path)
	if err != nil {
		return nil, withRef(r.Path, err)
	}
	if r.MimeType == "" {
		return nil, &contracts.Error{Code: contracts.CodeMissingMimeType, Message: "mime_type is required", Field: "mime_type"}
	}
	for i := 0; i < len(r.MimeType); i++ {
		if c := r.MimeType[i]; c < 0x20 || c > 0x7e {
			return nil, invalid("mime_type", "mime_type %s is not a MIME type: only printable ASCII is allowed", quote(r.MimeType))
		}
	}
	id, err := workspace.EncodeID(r.WorkspaceID, clean)
	if err != nil {
		return nil, withRef(r.Path, err)
	}
	if err := writeInScope(ctx, r.WorkspaceID, id); err != nil {
		return nil, err
	}
	content, err := h.inline(r)
	if err != nil {
		return nil, err
	}
	result := contracts.FileWrittenResult{OK: true, ArtifactID: id, Path: clean}
	// A redelivered or replayed event whose write is already recorded must not put its (by now
	// possibly stale) content again.
	meta, err := h.Files.Get(ctx, r.WorkspaceID, clean)
	switch {
	case err == nil && meta.Recorded(r.RequestID):
		return result, nil
	case err != nil && !errors.Is(err, workspace.ErrNotFound):
		return nil, withRef(id, err)
	}
	isNew := err != nil
	key := objectstore.WorkspaceKey(r.WorkspaceID, clean)
	if content != nil {
		// The workspace's limit holds for what the worker stores: checked before the content is.
		release, err := h.Files.Reserve(ctx, r.WorkspaceID, clean, int64(len(content)))
		if errors.Is(err, workspace.ErrOverLimit) {
			return nil, overLimit(id, contentField(r), err)
		}
		if err != nil {
			return nil, withRef(id, err)
		}
		defer release()
		if _, err := h.Blobs.Put(ctx, key, bytes.NewReader(content), int64(len(content)), r.MimeType, nil); err != nil {
			return nil, writeFailed(id, err)
		}
	} else if _, err := h.Blobs.Stat(ctx, key); err != nil {
		if errors.Is(err, objectstore.ErrNotFound) {
			return nil, &contracts.Error{Code: contracts.CodeFileNotFound, Message: fmt.Sprintf("file_not_found: %s is not in workspace %s and the event carries no content", clean, r.WorkspaceID), Ref: id}
		}
		return nil, withRef(id, err)
	}
	now := time.Now
	if h.Now != nil {
		now = h.Now
	}
	mod := contracts.Modification{AgentID: r.AgentID, Timestamp: now(), MessageID: r.MessageID, RequestID: r.RequestID}
	if _, err := h.Files.RecordStored(ctx, r.WorkspaceID, clean, r.MimeType, int64(len(content)), mod); err != nil {
		if content != nil && isNew && errors.Is(err, workspace.ErrFull) && h.removeOrphan(ctx, r.WorkspaceID, clean, key) {
			return nil, overLimit(id, contentField(r), err)
		}
		return nil, notRecorded(id, clean, r.WorkspaceID, content != nil, err)
	}
	return result, nil
}

// removeOrphan deletes the content just stored for a new file whose metadata did not fit (a write
// that passed Reserve while other replicas' writes filled the bucket), unless a concurrent write
// of the same file has recorded it meanwhile. It reports whether the object is gone.
func (h *FileWritten) removeOrphan(ctx context.Context, workspaceID, clean, key string) bool {
	if _, err := h.Files.Get(ctx, workspaceID, clean); !errors.Is(err, workspace.ErrNotFound) {
		return false
	}
	return h.Blobs.Delete(ctx, key) == nil
}

// overLimit answers a write refused by the workspace's storage limit: payload_too_large, nothing
// stored.
func overLimit(id, field string, err error) error {
	return &contracts.Error{
		Code:    contracts.CodePayloadTooLarge,
		Message: fmt.Sprintf("payload_too_large: the workspace's storage is full, nothing was stored: %v", err),
		Field:   field,
		Ref:     id,
	}
}

// contentField names the field that carried a write's inline content.
func contentField(r contracts.FileWrittenRequest) string {
	if r.ContentBase64 != nil {
		return "content_base64"
	}
	return "content"
}

// notRecorded reports a metadata failure after the content was stored (or found in the store): the
// reply says exactly that, never internal_error. A transient failure stays transient (the whole
// event is retried; putting the same content again is harmless); a permanent one is
// metadata_not_recorded with the file's artifact id as ref.
func notRecorded(id, clean, workspaceID string, stored bool, err error) error {
	what := "is in the store"
	if stored {
		what = "was stored"
	}
	if isTransient(err) && !errors.Is(err, workspace.ErrFull) {
		return withRef(id, fmt.Errorf("the content of %s in workspace %s %s but its metadata was not recorded: %w", quote(clean), workspaceID, what, err))
	}
	return &contracts.Error{
		Code:    contracts.CodeMetadataNotRecorded,
		Message: fmt.Sprintf("metadata_not_recorded: the content of %s in workspace %s %s but its metadata was not recorded: %v", quote(clean), workspaceID, what, err),
		Ref:     id,
	}
}

// inline returns the event's inline content, nil when it carries none.
func (h *FileWritten) inline(r contracts.FileWrittenRequest) ([]byte, error) {
	switch {
	case r.Content != nil && r.ContentBase64 != nil:
		return nil, invalid("content_base64", "give content or content_base64, not both")
	case r.Content != nil:
		if int64(len(*r.Content)) > h.MaxSize {
			return nil, &contracts.Error{Code: contracts.CodePayloadTooLarge, Message: fmt.Sprintf("content is %d bytes, over the %d-byte limit", len(*r.Content), h.MaxSize), Field: "content"}
		}
		return []byte(*r.Content), nil
	case r.ContentBase64 != nil:
		if int64(base64.StdEncoding.DecodedLen(len(*r.ContentBase64))) > h.MaxSize+3 {
			return nil, &contracts.Error{Code: contracts.CodePayloadTooLarge, Message: fmt.Sprintf("content_base64 decodes to over the %d-byte limit", h.MaxSize), Field: "content_base64"}
		}
		data, err := base64.StdEncoding.DecodeString(*r.ContentBase64)
		if err != nil {
			return nil, invalid("content_base64", "content_base64 is not standard base64: %v", err)
		}
		if int64(len(data)) > h.MaxSize {
			return nil, &contracts.Error{Code: contracts.CodePayloadTooLarge, Message: fmt.Sprintf("content_base64 decodes to %d bytes, over the %d-byte limit", len(data), h.MaxSize), Field: "content_base64"}
		}
		return data, nil
	}
	return nil, nil
}

// writeFailed maps a storage write failure to the contract's codes (write_failed, unavailable: contracts/README.md); transient failures stay transient.
func writeFailed(id string, err error) error {
	switch {
	case isTransient(err):
		return withRef(id, err)
	case errors.Is(err, objectstore.ErrPermission):
		return &contracts.Error{Code: contracts.CodePermissionDenied, Message: "permission_denied: " + err.Error(), Ref: id}
	}
	return &contracts.Error{Code: contracts.CodeWriteFailed, Message: "write_failed: " + err.Error(), Ref: id}
}
