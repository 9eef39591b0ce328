// Package claimcheck moves message bodies that are too large for one NATS message through a
// JetStream Object Store bucket. The message then carries an empty body and a Claim-Check header
// naming the object; the receiver resolves it. Both the worker and the Go client use it, in both
// directions (requests and replies).
//
// Objects expire with the bucket's TTL; a receiver that resolves a claim does not delete it, so a
// redelivered or replayed message can resolve it again until it expires.
package claimcheck

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentworks/artifact-worker/contracts"
)

// ErrExpired means a Claim-Check header names an object that is not (or no longer) in the bucket.
var ErrExpired = errors.New("claim check: object not found or expired")

// ErrTooLarge means a Claim-Check header names an object larger than the receiver accepts; it was
// not downloaded.
var ErrTooLarge = errors.New("claim check: body too large")

// DefaultMaxBody is the largest claimed body Resolve downloads unless Limit says otherwise.
const DefaultMaxBody = 64 << 20

// headroom is kept free for headers and protocol overhead when deciding whether a body fits.
const headroom = 16 * 1024

// DefaultTTL is how long claimed bodies are kept.
const DefaultTTL = time.Hour

// Store offloads and resolves claim-checked bodies. It is safe for concurrent use.
type Store struct {
	obj        jetstream.ObjectStore
	maxPayload int64
	maxBody    int64
}

// Config tunes the claim-check bucket. Zero fields take their defaults.
type Config struct {
	// TTL is how long claimed bodies are kept (default DefaultTTL).
	TTL time.Duration
	// Replicas of the bucket in a NATS cluster (default 1).
	Replicas int
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
	obj, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket:      contracts.ClaimCheckBucket,
		Description: "bodies of worker requests and replies too large for one NATS message",
		TTL:         cfg.TTL,
		Storage:     jetstream.FileStorage,
		Replicas:    cfg.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("claim check bucket %s: %w", contracts.ClaimCheckBucket, err)
	}
	return &Store{obj: obj, maxPayload: maxPayload, maxBody: DefaultMaxBody}, nil
}

// Bind returns a Store on the existing claim-check bucket without changing its settings (for clients:
// the worker owns the bucket's TTL). When the bucket does not exist yet it is created with DefaultTTL.
func Bind(ctx context.Context, js jetstream.JetStream, maxPayload int64) (*Store, error) {
	obj, err := js.ObjectStore(ctx, contracts.ClaimCheckBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return Ensure(ctx, js, DefaultTTL, maxPayload)
	}
	if err != nil {
		return nil, fmt.Errorf("claim check bucket %s: %w", contracts.ClaimCheckBucket, err)
	}
	return &Store{obj: obj, maxPayload: maxPayload, maxBody: DefaultMaxBody}, nil
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
	_, err = s.obj.Put(ctx, jetstream.ObjectMeta{Name: name}, io.MultiReader(readers...))
	end(err)
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
