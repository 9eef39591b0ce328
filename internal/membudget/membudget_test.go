package membudget_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/internal/membudget"
)

// reserveAsync starts a request that reserves n on b and reports when it got it.
func reserveAsync(t *testing.T, b *membudget.Budget, n int64) (got <-chan error, release func()) {
	t.Helper()
	ctx, rel := b.Attach(context.Background())
	ch := make(chan error, 1)
	go func() { ch <- membudget.Reserve(ctx, n) }()
	return ch, rel
}

func granted(ch <-chan error) bool {
	select {
	case err := <-ch:
		return err == nil
	case <-time.After(50 * time.Millisecond):
		return false
	}
}

func waitGranted(t *testing.T, ch <-chan error) {
	t.Helper()
	select {
	case err := <-ch:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("not granted after the budget had room")
	}
}

func TestFirstReservationWaitsInOrder(t *testing.T) {
	b := membudget.New(100)
	a, relA := reserveAsync(t, b, 60)
	waitGranted(t, a)
	big, relBig := reserveAsync(t, b, 50) // does not fit: waits
	if granted(big) {
		t.Fatal("60 + 50 granted on a 100-byte budget")
	}
	small, relSmall := reserveAsync(t, b, 10) // fits, but a request arrived before it
	if granted(small) {
		t.Fatal("a later small request overtook a waiting one")
	}
	if b.Waiting() != 2 {
		t.Fatalf("Waiting %d, want 2", b.Waiting())
	}
	relA()
	waitGranted(t, big)
	waitGranted(t, small)
	if b.Used() != 60 {
		t.Fatalf("Used %d, want 60", b.Used())
	}
	relBig()
	relSmall()
	if b.Used() != 0 {
		t.Fatalf("Used %d after every release, want 0", b.Used())
	}
}

func TestOversizeRunsAlone(t *testing.T) {
	b := membudget.New(100)
	a, relA := reserveAsync(t, b, 10)
	waitGranted(t, a)
	huge, relHuge := reserveAsync(t, b, 500)
	if granted(huge) {
		t.Fatal("a request over the budget ran next to another")
	}
	relA()
	waitGranted(t, huge)
	relHuge()
}

func TestLaterReservationsDoNotWait(t *testing.T) {
	b := membudget.New(100)
	ctx, release := b.Attach(context.Background())
	if err := membudget.Reserve(ctx, 80); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- membudget.Reserve(ctx, 80) }()
	if !granted(done) {
		t.Fatal("a request's second reservation waited (a request holding memory must never wait: deadlock)")
	}
	if b.Used() != 160 {
		t.Fatalf("Used %d, want 160 (overdrawn)", b.Used())
	}
	release()
	if b.Used() != 0 {
		t.Fatalf("Used %d after release, want 0", b.Used())
	}
}

func TestCancelledWaiterLeavesTheQueue(t *testing.T) {
	b := membudget.New(100)
	a, relA := reserveAsync(t, b, 90)
	waitGranted(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	wctx, relW := b.Attach(ctx)
	defer relW()
	if err := membudget.Reserve(wctx, 50); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Reserve: %v, want DeadlineExceeded", err)
	}
	small, relSmall := reserveAsync(t, b, 10) // the cancelled one no longer blocks the queue
	waitGranted(t, small)
	relA()
	relSmall()
	if b.Used() != 0 || b.Waiting() != 0 {
		t.Fatalf("Used %d Waiting %d, want 0 0", b.Used(), b.Waiting())
	}
}

func TestNoAccountReservesNothing(t *testing.T) {
	if err := membudget.Reserve(context.Background(), 1<<40); err != nil {
		t.Fatal(err)
	}
	var nilBudget *membudget.Budget
	ctx, release := nilBudget.Attach(context.Background())
	if err := membudget.Reserve(ctx, 1<<40); err != nil {
		t.Fatal(err)
	}
	release()
}
