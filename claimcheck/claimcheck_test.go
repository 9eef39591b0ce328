package claimcheck_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

func newStore(t *testing.T, cfg claimcheck.Config) *claimcheck.Store {
	t.Helper()
	nc := natstest.Connect(t, natstest.Start(t))
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := claimcheck.EnsureConfig(context.Background(), js, cfg, nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A body over the max payload goes by claim check; Delete removes every byte of it (no delete
// marker), after which it resolves as expired; deleting it again is not an error.
func TestDeleteLeavesNothing(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, claimcheck.Config{})
	body := bytes.Repeat([]byte("claim "), 400_000) // 2.4 MB
	msg, err := s.Prepare(ctx, "reply.x", nil, body)
	if err != nil {
		t.Fatal(err)
	}
	name := msg.Header.Get(contracts.HeaderClaimCheck)
	if name == "" || len(msg.Data) != 0 {
		t.Fatalf("a %d-byte body was not claim-checked", len(body))
	}
	size, limit, err := s.Usage(ctx)
	if err != nil || size < uint64(len(body)) || limit != claimcheck.DefaultMaxBytes {
		t.Fatalf("usage with one claim: %d of %d (%v), want at least %d of %d", size, limit, err, len(body), claimcheck.DefaultMaxBytes)
	}
	got, err := s.Resolve(ctx, msg.Header, msg.Data)
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("resolve: %d bytes, %v", len(got), err)
	}
	if err := s.Delete(ctx, name); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := s.Usage(ctx); size != 0 {
		t.Errorf("bucket holds %d bytes after the only claim was deleted, want 0", size)
	}
	if _, err := s.Resolve(ctx, msg.Header, msg.Data); !errors.Is(err, claimcheck.ErrExpired) {
		t.Errorf("resolve after delete: %v, want ErrExpired", err)
	}
	if err := s.Delete(ctx, name); err != nil {
		t.Errorf("second delete: %v, want nil", err)
	}
}

// A body that does not fit the bucket's limit is ErrFull (still JetStream's 503 for retry logic),
// leaves nothing behind, and a body that fits is still stored.
func TestFullBucket(t *testing.T) {
	ctx := context.Background()
	s := newStore(t, claimcheck.Config{MaxBytes: 3 << 20})
	_, err := s.Prepare(ctx, "reply.x", nil, make([]byte, 4<<20))
	var api *jetstream.APIError
	if !errors.Is(err, claimcheck.ErrFull) || !errors.As(err, &api) || api.Code != 503 {
		t.Fatalf("4 MiB into a 3 MiB bucket: %v, want ErrFull wrapping a 503 API error", err)
	}
	if size, limit, _ := s.Usage(ctx); size > 4096 || limit != 3<<20 {
		t.Errorf("after the refused put the bucket holds %d bytes of %d, want its partial chunks gone", size, limit)
	}
	msg, err := s.Prepare(ctx, "reply.x", nil, make([]byte, 2<<20))
	if err != nil || msg.Header.Get(contracts.HeaderClaimCheck) == "" {
		t.Fatalf("2 MiB into the 3 MiB bucket: %v", err)
	}
}
