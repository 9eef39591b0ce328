// Package claimcheck moves message bodies that are too large for one NATS message through a
// JetStream Object Store bucket. The message then carries an empty body and a Claim-Check header
// naming the object; the receiver resolves it. Both the worker and the Go client use it, in both
// directions (requests and replies).
//
// A claim is deleted once its reader has it (Delete): the worker deletes a request's body after its
// reply was published and the request's ack confirmed, a client a reply's body after reading it.
// The bucket's TTL is only the safety net for claims nobody deletes (a caller that gave up, a
// dead-lettered request kept for inspection). The bucket has a size limit (Config.MaxBytes); a body
// that does not fit is ErrFull.
package claimcheck

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/internal/objput"
)

// ErrExpired means a Claim-Check header names an object that is not (or no longer) in the bucket.
var ErrExpired = errors.New("claim check: object not found or expired")

// ErrTooLarge means a Claim-Check header names an object larger than the receiver accepts; it was
// not downloaded.
var ErrTooLarge = errors.New("claim check: body too large")

// ErrFull means the claim-check bucket has reached its size limit (Config.MaxBytes): the body was not
// stored. It also matches the JetStream error (a 503 API error), so callers that retry JetStream
// unavailability retry it: claims are deleted as they are read, and space comes back.
var ErrFull = errors.New("claim check: bucket " + contracts.ClaimCheckBucket + " is full (its size limit is reached)")

// DefaultMaxBody is the largest claimed body Resolve downloads unless Limit says otherwise.
const DefaultMaxBody = 64 << 20

// headroom is kept free for headers and protocol overhead when deciding whether a body fits.
const headroom = contracts.Headroom

// DefaultTTL is how long claimed bodies nobody deletes are kept.
const DefaultTTL = time.Hour

// DefaultMaxBytes is the default size limit of the bucket: 1 GiB.
const DefaultMaxBytes = 1 << 30

// Store offloads, resolves and deletes claim-checked bodies. It is safe for concurrent use.
type Store struct {
	bucket     string
	obj        jetstream.ObjectStore
	stream     jetstream.Stream // the bucket's backing stream, for Delete and Usage
	put        *objput.Putter
	maxPayload int64
	maxBody    int64
}

// Config tunes the claim-check bucket. Zero fields take their defaults.
type Config struct {
	// TTL is how long claimed bodies nobody deletes are kept (default DefaultTTL).
	TTL time.Duration
	// MaxBytes limits the bucket's size (default DefaultMaxBytes); a body that does not fit is
	// ErrFull. -1 means no limit.
	MaxBytes int64
	// Replicas of the bucket in a NATS cluster (default 1).
	Replicas int
	// Bucket is the bucket's name (default contracts.ClaimCheckBucket; a tenant's is
	// contracts.TenantClaimCheckBucket).
	Bucket string
}

// Ensure creates or updates the claim-check bucket with TTL ttl and one replica; see EnsureConfig.
func Ensure(ctx context.Context, js jetstream.JetStream, ttl time.Duration, maxPayload int64) (*Store, error) {
	return EnsureConfig(ctx, js, Config{TTL: ttl}, maxPayload)
}

// EnsureConfig creates or updates the claim-check bucket (idempotent; safe when replicas start at
// once) and returns a Store that offloads bodies larger than maxPayload minus a headroom for headers.
func EnsureConfig(ctx context.Context, js jetstream.JetStream, cfg Config, maxPayload int64) (*Store, error) {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultTTL
	}
	if cfg.Replicas <= 0 {
		cfg.Replicas = 1
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	bucket := cmp.Or(cfg.Bucket, contracts.ClaimCheckBucket)
	obj, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket:      bucket,
		Description: "bodies of worker requests and replies too large for one NATS message",
		TTL:         cfg.TTL,
		MaxBytes:    cfg.MaxBytes,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("claim check bucket %s: %w", bucket, err)
	}
	return newStore(ctx, js, bucket, obj, maxPayload)
}

func newStore(ctx context.Context, js jetstream.JetStream, bucket string, obj jetstream.ObjectStore, maxPayload int64) (*Store, error) {
	stream, err := js.Stream(ctx, "OBJ_"+bucket)
	if err != nil {
		return nil, fmt.Errorf("claim check bucket %s: %w", bucket, err)
	}
	// Objects are written by objput, not ObjectStore.Put, which leaks goroutines (see objput).
	put, err := objput.New(ctx, js.Conn(), bucket)
	if err != nil {
		return nil, fmt.Errorf("claim check bucket %s: %w", contracts.ClaimCheckBucket, err)
	}
	return &Store{bucket: bucket, obj: obj, stream: stream, put: put, maxPayload: maxPayload, maxBody: DefaultMaxBody}, nil
}

// Bind returns a Store on the existing claim-check bucket without changing its settings (for clients:
// the worker owns the bucket's TTL). When the bucket does not exist yet it is created with DefaultTTL.
func Bind(ctx context.Context, js jetstream.JetStream, maxPayload int64) (*Store, error) {
	return BindBucket(ctx, js, contracts.ClaimCheckBucket, maxPayload)
}

// BindBucket is Bind on the claim-check bucket named bucket (a tenant's,
// contracts.TenantClaimCheckBucket).
func BindBucket(ctx context.Context, js jetstream.JetStream, bucket string, maxPayload int64) (*Store, error) {
	obj, err := js.ObjectStore(ctx, bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return EnsureConfig(ctx, js, Config{TTL: DefaultTTL, Bucket: bucket}, maxPayload)
	}
	if err != nil {
		return nil, fmt.Errorf("claim check bucket %s: %w", bucket, err)
	}
	return newStore(ctx, js, bucket, obj, maxPayload)
}

// Limit returns a Store that refuses to download claimed bodies larger than n bytes.
func (s *Store) Limit(n int64) *Store {
	c := *s
	c.maxBody = n
	return &c
}

// Fits reports whether a body of n bytes can travel inline.
func (s *Store) Fits(n int) bool { return int64(n) <= s.maxPayload-headroom }

// Prepare returns the message to publish for subject with body: the body itself when it fits, or an
// empty body with a Claim-Check header after storing the body in the bucket. hdr may be nil; it is
// copied, not modified.
func (s *Store) Prepare(ctx context.Context, subject string, hdr nats.Header, body []byte) (*nats.Msg, error) {
	return s.PrepareParts(ctx, subject, hdr, body)
}

// PrepareParts is Prepare for a body given as consecutive parts: a large body is streamed into the
// bucket part by part, never joined in memory.
func (s *Store) PrepareParts(ctx context.Context, subject string, hdr nats.Header, parts ...[]byte) (*nats.Msg, error) {
	msg := &nats.Msg{Subject: subject, Header: nats.Header{}}
	for k, v := range hdr {
		msg.Header[k] = append([]string(nil), v...)
	}
	size := 0
	for _, p := range parts {
		size += len(p)
	}
	if s.Fits(size) {
		if len(parts) == 1 {
			msg.Data = parts[0]
			return msg, nil
		}
		msg.Data = make([]byte, 0, size)
		for _, p := range parts {
			msg.Data = append(msg.Data, p...)
		}
		return msg, nil
	}
	name, err := newName()
	if err != nil {
		return nil, err
	}
	readers := make([]io.Reader, len(parts))
	for i, p := range parts {
		readers[i] = bytes.NewReader(p)
	}
	ctx, end := span(ctx, "put", name, int64(size))
	_, err = s.put.Put(ctx, jetstream.ObjectMeta{Name: name}, io.MultiReader(readers...))
	end(err)
	if isFull(err) {
		return nil, fmt.Errorf("%w: %d bytes not stored: %w", ErrFull, size, err)
	}
	if err != nil {
		return nil, fmt.Errorf("claim check: store %d bytes: %w", size, err)
	}
	msg.Header.Set(contracts.HeaderClaimCheck, name)
	return msg, nil
}

// Resolve returns the real body of a message: data itself without a Claim-Check header, else the
// claimed object. A missing object is ErrExpired; one over the limit is ErrTooLarge.
func (s *Store) Resolve(ctx context.Context, hdr nats.Header, data []byte) (body []byte, err error) {
	name := hdr.Get(contracts.HeaderClaimCheck)
	if name == "" {
		return data, nil
	}
	ctx, end := span(ctx, "get", name, -1)
	defer func() { end(err) }()
	info, err := s.obj.GetInfo(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrExpired, name)
	}
	if err != nil {
		return nil, fmt.Errorf("claim check: look up %s: %w", name, err)
	}
	if int64(info.Size) > s.maxBody {
		return nil, fmt.Errorf("%w: %s is %d bytes, over the %d-byte limit", ErrTooLarge, name, info.Size, s.maxBody)
	}
	// A request in the pipeline is charged for the body before it is downloaded (internal/membudget).
	if err := membudget.Reserve(ctx, membudget.BodyFactor*int64(info.Size)); err != nil {
		return nil, fmt.Errorf("claim check: waiting for memory to fetch %s (%d bytes): %w", name, info.Size, err)
	}
	r, err := s.obj.Get(ctx, name)
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil, fmt.Errorf("%w: %s", ErrExpired, name)
	}
	if err != nil {
		return nil, fmt.Errorf("claim check: fetch %s: %w", name, err)
	}
	defer r.Close()
	// The object may have been replaced since GetInfo: read at most the limit regardless.
	body, err = io.ReadAll(io.LimitReader(r, min(s.maxBody, math.MaxInt64-1)+1))
	if err != nil {
		return nil, fmt.Errorf("claim check: fetch %s: %w", name, err)
	}
	if int64(len(body)) > s.maxBody {
		return nil, fmt.Errorf("%w: %s is over the %d-byte limit", ErrTooLarge, name, s.maxBody)
	}
	return body, nil
}

// Delete removes the claim name (a Claim-Check header's value) from the bucket, chunks and
// metadata, leaving nothing behind (nats.go's ObjectStore.Delete keeps a delete marker until the
// TTL). Call it once the body is no longer needed: its reader has it and will not read it again.
// A claim that is already gone is not an error.
func (s *Store) Delete(ctx context.Context, name string) (err error) {
	ctx, end := span(ctx, "delete", name, -1)
	defer func() { end(err) }()
	info, err := s.obj.GetInfo(ctx, name, jetstream.GetObjectInfoShowDeleted())
	if errors.Is(err, jetstream.ErrObjectNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("claim check: delete %s: %w", name, err)
	}
	if info.NUID != "" {
		if err := s.stream.Purge(ctx, jetstream.WithPurgeSubject("$O."+s.bucket+".C."+info.NUID)); err != nil {
			return fmt.Errorf("claim check: delete %s: %w", name, err)
		}
	}
	if err := s.stream.Purge(ctx, jetstream.WithPurgeSubject("$O."+s.bucket+".M."+base64.URLEncoding.EncodeToString([]byte(name)))); err != nil {
		return fmt.Errorf("claim check: delete %s: %w", name, err)
	}
	return nil
}

// Usage returns the bucket's size in bytes and its limit (-1: none).
func (s *Store) Usage(ctx context.Context) (size uint64, limit int64, err error) {
	info, err := s.stream.Info(ctx)
	if err != nil {
		return 0, 0, fmt.Errorf("claim check bucket %s: %w", s.bucket, err)
	}
	return info.State.Bytes, info.Config.MaxBytes, nil
}

// errCodeStoreFailed is nats-server's JSStreamStoreFailedF, the error code of a write the stream's
// store refused ("maximum bytes exceeded" when a limit is reached).
const errCodeStoreFailed jetstream.ErrorCode = 10077

// isFull reports whether err is JetStream refusing a write because the stream is at its byte limit.
func isFull(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == errCodeStoreFailed && strings.Contains(api.Description, "maximum bytes")
}

// span starts a client span for an object-store call on the bucket (a child of the span in ctx; the
// global tracer provider, a no-op unless the program installed one) and returns its end.
func span(ctx context.Context, op, name string, size int64) (context.Context, func(error)) {
	attrs := []attribute.KeyValue{attribute.String("worker.claim_check", name)}
	if size >= 0 {
		attrs = append(attrs, attribute.Int64("worker.object_size", size))
	}
	ctx, sp := otel.Tracer("artifact-worker").Start(ctx, "objectstore "+contracts.ClaimCheckBucket+" "+op,
		trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			sp.RecordError(err)
			sp.SetStatus(codes.Error, err.Error())
		}
		sp.End()
	}
}

func newName() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("claim check: name: %w", err)
	}
	return "claim_" + hex.EncodeToString(b[:]), nil
}
