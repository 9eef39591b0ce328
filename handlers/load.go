package handlers

import (
	"context"
	"errors"
	"time"

	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/routing"
	"github.com/agentworks/artifact-worker/workspace"
)

// loaded is an artifact as read for tool.get_artifact, artifact.metadata and the HTTP endpoints:
// the same read feeds the same detection (routing.DetectArtifact, which Route uses), so the three
// never disagree on what a file is.
type loaded struct {
	target target
	info   objectstore.Info
	// data is the whole content; nil when tooLarge.
	data     []byte
	tooLarge bool
	// meta is the workspace file's recorded metadata, when there is one.
	meta *workspace.FileMeta
}

// load reads the artifact t points to, up to max bytes (a larger one is not downloaded), and the
// workspace metadata of a ws: artifact when files is not nil. Errors are wrapped with ref.
func load(ctx context.Context, blobs Blobs, files FileMetas, t target, ref string, max int64) (loaded, error) {
	data, info, err := blobs.ReadAll(ctx, t.key, max)
	l := loaded{target: t, info: info, data: data, tooLarge: errors.Is(err, objectstore.ErrTooLarge)}
	if err != nil && !l.tooLarge {
		return loaded{}, withRef(ref, err)
	}
	if t.workspaceID != "" && files != nil {
		meta, err := files.Get(ctx, t.workspaceID, t.relPath)
		switch {
		case err == nil:
			l.meta = &meta
		case errors.Is(err, workspace.ErrNotFound):
			// Written by something that did not announce it: the object's Content-Type stands.
		default:
			return loaded{}, withRef(ref, err)
		}
	}
	return l, nil
}

// input is the artifact part of routing.Input.
func (l loaded) input() routing.Input {
	in := routing.Input{
		ID:           l.target.id,
		Filename:     l.target.filename(l.info),
		DeclaredMIME: l.info.ContentType,
		Size:         l.info.Size,
		CreatedAt:    l.info.LastModified,
		Content:      l.data,
		TooLarge:     l.tooLarge,
		// Fewer bytes than the object holds: the content exists but could not be read whole.
		Unreadable:   !l.tooLarge && int64(len(l.data)) < l.info.Size,
		WorkspaceID:  l.target.workspaceID,
		RelativePath: l.target.relPath,
	}
	if l.meta != nil {
		if l.meta.MimeType != "" {
			in.DeclaredMIME = l.meta.MimeType
		}
		if !l.meta.CreatedAt.IsZero() {
			in.CreatedAt = l.meta.CreatedAt
		}
	}
	return in
}

// updatedAt is when the artifact last changed.
func (l loaded) updatedAt() time.Time {
	if l.meta != nil && !l.meta.UpdatedAt.IsZero() {
		return l.meta.UpdatedAt
	}
	return l.info.LastModified
}
