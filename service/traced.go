package service

import (
	"context"
	"io"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/workspace"
)

// The decorators below give every storage, KV and object-store call a client span, a child of the
// request's span (the context the handlers pass on). Methods they do not list pass through untraced.

// span starts a client span named name with attrs and returns the function that ends it with err.
func span(ctx context.Context, t trace.Tracer, name string, attrs ...attribute.KeyValue) (context.Context, func(error)) {
	ctx, sp := t.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			sp.RecordError(err)
			sp.SetStatus(codes.Error, err.Error())
		}
		sp.End()
	}
}

// tracedStore traces the object store (S3/MinIO or the local directory).
type tracedStore struct {
	Store
	tracer trace.Tracer
}

func objectKey(key string) attribute.KeyValue { return attribute.String("worker.object_key", key) }

func (s tracedStore) ReadAll(ctx context.Context, key string, max int64) (b []byte, info objectstore.Info, err error) {
	ctx, end := span(ctx, s.tracer, "objectstore read", objectKey(key))
	defer func() { end(err) }()
	return s.Store.ReadAll(ctx, key, max)
}

func (s tracedStore) Stat(ctx context.Context, key string) (info objectstore.Info, err error) {
	ctx, end := span(ctx, s.tracer, "objectstore stat", objectKey(key))
	defer func() { end(err) }()
	return s.Store.Stat(ctx, key)
}

// Open's span covers opening the object, not reading it.
func (s tracedStore) Open(ctx context.Context, key string) (rc io.ReadCloser, info objectstore.Info, err error) {
	ctx, end := span(ctx, s.tracer, "objectstore open", objectKey(key))
	defer func() { end(err) }()
	return s.Store.Open(ctx, key)
}

func (s tracedStore) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string, meta map[string]string) (info objectstore.Info, err error) {
	ctx, end := span(ctx, s.tracer, "objectstore put", objectKey(key), attribute.Int64("worker.object_size", size))
	defer func() { end(err) }()
	return s.Store.Put(ctx, key, r, size, contentType, meta)
}

// tracedFiles traces the workspace metadata KV.
type tracedFiles struct {
	*workspace.MetaStore
	tracer trace.Tracer
}

func fileAttrs(workspaceID, cleanPath string) []attribute.KeyValue {
	return []attribute.KeyValue{attribute.String("worker.workspace_id", workspaceID), attribute.String("worker.path", cleanPath)}
}

func (f tracedFiles) RecordStored(ctx context.Context, workspaceID, cleanPath, mimeType string, size int64, mod contracts.Modification) (m workspace.FileMeta, err error) {
	ctx, end := span(ctx, f.tracer, "kv "+workspace.DefaultMetaBucket+" record_write", fileAttrs(workspaceID, cleanPath)...)
	defer func() { end(err) }()
	return f.MetaStore.RecordStored(ctx, workspaceID, cleanPath, mimeType, size, mod)
}

func (f tracedFiles) Get(ctx context.Context, workspaceID, cleanPath string) (m workspace.FileMeta, err error) {
	ctx, end := span(ctx, f.tracer, "kv "+workspace.DefaultMetaBucket+" get", fileAttrs(workspaceID, cleanPath)...)
	defer func() { end(err) }()
	return f.MetaStore.Get(ctx, workspaceID, cleanPath)
}

// tracedHistory traces the history image cache (a KV bucket and an object store).
type tracedHistory struct {
	*historyimage.Cache
	tracer trace.Tracer
}

func (h tracedHistory) Put(ctx context.Context, md5 string, img historyimage.Image) (err error) {
	ctx, end := span(ctx, h.tracer, "kv "+historyimage.DefaultKVBucket+" put", attribute.String("worker.image_id", md5))
	defer func() { end(err) }()
	return h.Cache.Put(ctx, md5, img)
}

func (h tracedHistory) PutRaw(ctx context.Context, md5 string, data []byte, img historyimage.Image) (err error) {
	ctx, end := span(ctx, h.tracer, "kv "+historyimage.DefaultKVBucket+" put", attribute.String("worker.image_id", md5))
	defer func() { end(err) }()
	return h.Cache.PutRaw(ctx, md5, data, img)
}

func (h tracedHistory) Get(ctx context.Context, md5 string) (img historyimage.Image, err error) {
	ctx, end := span(ctx, h.tracer, "kv "+historyimage.DefaultKVBucket+" get", attribute.String("worker.image_id", md5))
	defer func() { end(err) }()
	return h.Cache.Get(ctx, md5)
}
