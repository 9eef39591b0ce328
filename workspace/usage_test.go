package workspace

import (
	"errors"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// waitUsed polls s until ok holds for the bytes it accounts.
func waitUsed(t *testing.T, s *MetaStore, ok func(used int64) bool) int64 {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		used, _ := s.Used()
		if ok(used) {
			return used
		}
		if time.Now().After(deadline) {
			t.Fatalf("usage %d never met the condition", used)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestReserveHoldsTheLimit: with MaxBytes, Reserve refuses content that would bring the recorded
// content plus metadata plus the writes still in flight over the limit, counts an overwritten
// file's content once, and a store opened again (a replica restart) accounts the same bytes from
// the bucket. Without a limit nothing is refused.
func TestReserveHoldsTheLimit(t *testing.T) {
	t.Parallel()
	ns := natstest.Start(t)
	ctx := testContext(t)
	const limit = 16 << 10
	s := newStore(t, natstest.Connect(t, ns), MetaConfig{Bucket: "WS_LIMITED", MaxBytes: limit})

	release, err := s.Reserve(ctx, "team", "a.bin", 4096)
	if err != nil {
		t.Fatalf("the first 4 KiB: %v", err)
	}
	if _, err := s.RecordStored(ctx, "team", "a.bin", "application/octet-stream", 4096, mod("agent", 1)); err != nil {
		t.Fatal(err)
	}
	release()
	used := waitUsed(t, s, func(u int64) bool { return u > 4096 })
	if _, l := s.Used(); l != limit {
		t.Errorf("limit %d, want %d", l, limit)
	}

	if _, err := s.Reserve(ctx, "team", "b.bin", 12000); !errors.Is(err, ErrOverLimit) {
		t.Fatalf("12000 more bytes with %d used of %d: %v, want ErrOverLimit", used, limit, err)
	}
	// Overwriting a.bin replaces its 4 KiB: it fits where 4 KiB more would not count twice.
	if r, err := s.Reserve(ctx, "team", "a.bin", limit-used-recordAllowance); err != nil {
		t.Errorf("overwriting a.bin with %d bytes: %v", limit-used-recordAllowance, err)
	} else {
		r()
	}

	// A reservation in flight counts until it is released.
	held, err := s.Reserve(ctx, "team", "c.bin", 6000)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reserve(ctx, "team", "d.bin", 6000); !errors.Is(err, ErrOverLimit) {
		t.Errorf("6000 bytes while 6000 are in flight: %v, want ErrOverLimit", err)
	}
	held()
	held() // twice is harmless
	if r, err := s.Reserve(ctx, "team", "d.bin", 6000); err != nil {
		t.Errorf("6000 bytes once the other write is released: %v", err)
	} else {
		r()
	}

	// A restarted replica reads the usage from the bucket.
	again := newStore(t, natstest.Connect(t, ns), MetaConfig{Bucket: "WS_LIMITED", MaxBytes: limit})
	if _, err := again.Reserve(ctx, "team", "b.bin", 12000); !errors.Is(err, ErrOverLimit) {
		t.Errorf("after a restart, 12000 more bytes: %v, want ErrOverLimit", err)
	}
	if u, _ := again.Used(); u != used {
		t.Errorf("after a restart %d bytes used, before %d", u, used)
	}

	// A later write whose content the runtime stored leaves none of the worker's.
	if _, err := s.RecordWrite(ctx, "team", "a.bin", "application/octet-stream", mod("agent", 2)); err != nil {
		t.Fatal(err)
	}
	waitUsed(t, again, func(u int64) bool { return u < 4096 })

	free := newStore(t, natstest.Connect(t, ns), MetaConfig{Bucket: "WS_FREE"})
	if r, err := free.Reserve(ctx, "team", "big.bin", 1<<40); err != nil {
		t.Errorf("without a limit: %v", err)
	} else {
		r()
	}
	if u, l := free.Used(); u != 0 || l != 0 {
		t.Errorf("without a limit Used() = %d, %d", u, l)
	}
}
