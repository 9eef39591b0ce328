package service

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// Memory is released once after a burst, when the worker has been idle long enough; never while
// requests are in flight or keep coming, and not again while it stays idle.
func TestReleaseWhenIdle(t *testing.T) {
	var inFlight atomic.Int64
	var taken atomic.Uint64
	var releases atomic.Int32
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go releaseWhenIdle(ctx, func() (int64, uint64) { return inFlight.Load(), taken.Load() }, time.Millisecond, 30*time.Millisecond, func() { releases.Add(1) })

	time.Sleep(100 * time.Millisecond)
	if n := releases.Load(); n != 0 {
		t.Fatalf("released %d times before any request", n)
	}
	// Busy: one request in flight for a long time, others keep arriving.
	inFlight.Store(1)
	for range 20 {
		taken.Add(1)
		time.Sleep(5 * time.Millisecond)
	}
	if n := releases.Load(); n != 0 {
		t.Fatalf("released %d times while busy", n)
	}
	inFlight.Store(0)
	deadline := time.Now().Add(5 * time.Second)
	for releases.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(150 * time.Millisecond)
	if n := releases.Load(); n != 1 {
		t.Fatalf("released %d times after the burst, want once", n)
	}
}
