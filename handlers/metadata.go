package handlers

import (
	"bytes"
	"context"
	"io"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/routing"
)

// ArtifactBlobs is the storage the metadata and content lookups need.
type ArtifactBlobs interface {
	Blobs
	Open(ctx context.Context, key string) (io.ReadCloser, objectstore.Info, error)
}

// Artifacts answers metadata and content of regular and workspace artifacts, for artifact.metadata
// and the HTTP endpoints of the chat panel. What a file is (mimeType, type) is decided as
// tool.get_artifact decides it (routing.DetectArtifact on the same bytes, up to the same MaxSize):
// bytes that contradict the declared type are reported, and served, as what they are. An artifact
// over MaxSize is not downloaded to describe it, as by tool.get_artifact: its declared type stands.
type Artifacts struct {
	Blobs ArtifactBlobs
	// Files is optional; without it workspace files have no modifiedBy history.
	Files FileMetas
	// MaxSize is tool.get_artifact's MaxSize: artifacts up to this size are read to detect their
	// type (and the content endpoint serves them from that read).
	MaxSize int64
}

// Info returns the design's metadata shape for an artifact id ("artifact:{id}", a bare id or "ws:...").
// An id outside ctx's scope (scope.With) is answered as one that does not exist; so is Open's.
func (a *Artifacts) Info(ctx context.Context, id string) (contracts.ArtifactInfo, error) {
	t, err := resolveRef(id)
	if err != nil {
		return contracts.ArtifactInfo{}, withRef(id, err)
	}
	if err := inScope(ctx, t, id); err != nil {
		return contracts.ArtifactInfo{}, err
	}
	l, err := load(ctx, a.Blobs, a.Files, t, id, a.MaxSize)
	if err != nil {
		return contracts.ArtifactInfo{}, err
	}
	return describe(l), nil
}

// Open returns an artifact's content and its metadata; the caller closes the reader. The reader
// holds ArtifactInfo.Size bytes.
func (a *Artifacts) Open(ctx context.Context, id string) (io.ReadCloser, contracts.ArtifactInfo, error) {
	t, err := resolveRef(id)
	if err != nil {
		return nil, contracts.ArtifactInfo{}, withRef(id, err)
	}
	if err := inScope(ctx, t, id); err != nil {
		return nil, contracts.ArtifactInfo{}, err
	}
	l, err := load(ctx, a.Blobs, a.Files, t, id, a.MaxSize)
	if err != nil {
		return nil, contracts.ArtifactInfo{}, err
	}
	ai := describe(l)
	if !l.tooLarge {
		ai.Size = int64(len(l.data))
		return io.NopCloser(bytes.NewReader(l.data)), ai, nil
	}
	rc, info, err := a.Blobs.Open(ctx, t.key)
	if err != nil {
		return nil, contracts.ArtifactInfo{}, withRef(id, err)
	}
	ai.Size = info.Size
	return rc, ai, nil
}

// describe builds the metadata of a loaded artifact.
func describe(l loaded) contracts.ArtifactInfo {
	in := l.input()
	d := routing.DetectArtifact(in)
	ai := contracts.ArtifactInfo{
		ID:        l.target.id,
		Name:      in.Filename,
		CreatedAt: in.CreatedAt,
		UpdatedAt: l.updatedAt(),
		// The workspace-ID design: type is the MIME type ("type": "text/javascript"), the same as mimeType.
		Type:     d.MIME,
		MimeType: d.MIME,
		Size:     l.info.Size,
		Meta:     contracts.ArtifactMeta{Filename: in.Filename, WorkspaceID: l.target.workspaceID, RelativePath: l.target.relPath},
	}
	if l.meta != nil {
		ai.Meta.ModifiedBy = l.meta.ModifiedBy
	}
	return ai
}

// Metadata handles artifact.metadata.
type Metadata struct {
	Artifacts *Artifacts
}

// Handle implements handling.Handler.
func (h *Metadata) Handle(ctx context.Context, req handling.Request) (any, error) {
	var r contracts.MetadataRequest
	if err := decode(contracts.SubjectMetadata, req.Body, &r); err != nil {
		return nil, err
	}
	if r.ID == "" {
		return nil, invalid("id", "id is required")
	}
	return h.Artifacts.Info(ctx, r.ID)
}
