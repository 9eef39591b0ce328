package handlers

import (
	"context"
	"errors"
	"io"
	"path"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/routing"
	"github.com/agentworks/artifact-worker/workspace"
)

// ArtifactBlobs is the storage the metadata and content lookups need.
type ArtifactBlobs interface {
	Stat(ctx context.Context, key string) (objectstore.Info, error)
	Open(ctx context.Context, key string) (io.ReadCloser, objectstore.Info, error)
}

// Artifacts answers metadata and content of regular and workspace artifacts, for artifact.metadata
// and the HTTP endpoints of the chat panel.
type Artifacts struct {
	Blobs ArtifactBlobs
	// Files is optional; without it workspace files have no modifiedBy history.
	Files FileMetas
}

// Info returns the seeds' metadata shape for an artifact id ("artifact:{id}", a bare id or "ws:...").
func (a *Artifacts) Info(ctx context.Context, id string) (contracts.ArtifactInfo, error) {
	t, err := resolveRef(id)
	if err != nil {
		return contracts.ArtifactInfo{}, withRef(id, err)
	}
	info, err := a.Blobs.Stat(ctx, t.key)
	if err != nil {
		return contracts.ArtifactInfo{}, withRef(id, err)
	}
	return a.describe(ctx, t, info)
}

// Open streams an artifact's content; the caller closes the reader.
func (a *Artifacts) Open(ctx context.Context, id string) (io.ReadCloser, contracts.ArtifactInfo, error) {
	t, err := resolveRef(id)
	if err != nil {
		return nil, contracts.ArtifactInfo{}, withRef(id, err)
	}
	rc, info, err := a.Blobs.Open(ctx, t.key)
	if err != nil {
		return nil, contracts.ArtifactInfo{}, withRef(id, err)
	}
	ai, err := a.describe(ctx, t, info)
	if err != nil {
		rc.Close()
		return nil, contracts.ArtifactInfo{}, err
	}
	return rc, ai, nil
}

func (a *Artifacts) describe(ctx context.Context, t target, info objectstore.Info) (contracts.ArtifactInfo, error) {
	ai := contracts.ArtifactInfo{
		ID:        t.id,
		Name:      t.filename(info),
		CreatedAt: info.LastModified,
		UpdatedAt: info.LastModified,
		MimeType:  info.ContentType,
		Size:      info.Size,
		Meta:      contracts.ArtifactMeta{Filename: t.filename(info), WorkspaceID: t.workspaceID, RelativePath: t.relPath},
	}
	if t.workspaceID != "" {
		ai.ID = t.id
		ai.Name = path.Base(t.relPath)
		if a.Files != nil {
			meta, err := a.Files.Get(ctx, t.workspaceID, t.relPath)
			switch {
			case err == nil:
				ai.MimeType = meta.MimeType
				ai.CreatedAt, ai.UpdatedAt = meta.CreatedAt, meta.UpdatedAt
				ai.Meta.ModifiedBy = meta.ModifiedBy
			case errors.Is(err, workspace.ErrNotFound):
			default:
				return contracts.ArtifactInfo{}, withRef(t.id, err)
			}
		}
	}
	d := routing.Detect(routing.DetectInput{Filename: ai.Name, DeclaredMIME: ai.MimeType, Size: ai.Size})
	if ai.MimeType == "" {
		ai.MimeType = d.MIME
	}
	// Design document 004: type is the MIME type ("type": "text/javascript"), the same as mimeType.
	ai.Type = ai.MimeType
	return ai, nil
}

// Metadata handles artifact.metadata.
type Metadata struct {
	Artifacts *Artifacts
}

// Handle implements messaging.Handler.
func (h *Metadata) Handle(ctx context.Context, req messaging.Request) (any, error) {
	var r contracts.MetadataRequest
	if err := decode(contracts.SubjectMetadata, req.Body, &r); err != nil {
		return nil, err
	}
	if r.ID == "" {
		return nil, invalid("id", "id is required")
	}
	return h.Artifacts.Info(ctx, r.ID)
}
