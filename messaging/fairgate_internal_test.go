package messaging

import (
	"context"
	"errors"
	"testing"
	"time"
)

// waiter starts acquire for group in a goroutine; its channel gets acquire's result.
func waiter(g *fairGate, ctx context.Context, group string) <-chan error {
	done := make(chan error, 1)
	go func() { done <- g.acquire(ctx, group) }()
	return done
}

// waitQueued polls until n requests of group wait in g.
func waitQueued(t *testing.T, g *fairGate, group string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		g.mu.Lock()
		got := 0
		if st := g.state[group]; st != nil {
			got = len(st.waiting)
		}
		g.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests of %q waiting, want %d", got, group, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFairGateQuietGroupGoesNext: a flooding group holds every slot and has requests waiting; a
// request of another group, arriving after them, gets the next slot given back, and the flood's
// waiters the one after.
func TestFairGateQuietGroupGoesNext(t *testing.T) {
	g := newFairGate(2)
	ctx := context.Background()
	for range 2 {
		if err := g.acquire(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
	}
	var flood []<-chan error
	for i := range 5 {
		flood = append(flood, waiter(g, ctx, "acme"))
		waitQueued(t, g, "acme", i+1)
	}
	g.release("acme") // ACME's own turn: nobody else waits
	waitQueued(t, g, "acme", 4)
	quiet := waiter(g, ctx, "globex")
	waitQueued(t, g, "globex", 1)
	g.release("acme")
	waitQueued(t, g, "globex", 0)
	if err := <-quiet; err != nil {
		t.Fatal(err)
	}
	waitQueued(t, g, "acme", 4) // none of ACME's waiters got that slot
	g.release("acme")
	waitQueued(t, g, "acme", 3)
	for i, c := range flood[:2] { // the first two in order; three still wait
		select {
		case err := <-c:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ACME's waiter %d not granted", i)
		}
	}
}

// TestFairGateTakesTurns: with two groups waiting, slots given back alternate between them, each
// group's requests in the order they came.
func TestFairGateTakesTurns(t *testing.T) {
	g := newFairGate(1)
	ctx := context.Background()
	if err := g.acquire(ctx, ""); err != nil {
		t.Fatal(err)
	}
	var a, b []<-chan error
	for i := range 3 {
		a = append(a, waiter(g, ctx, "a"))
		waitQueued(t, g, "a", i+1)
	}
	for i := range 3 {
		b = append(b, waiter(g, ctx, "b"))
		waitQueued(t, g, "b", i+1)
	}
	holder := ""
	for i := range 3 {
		for _, turn := range []struct {
			name string
			q    []<-chan error
		}{{"a", a}, {"b", b}} {
			g.release(holder)
			holder = turn.name
			waitQueued(t, g, turn.name, 2-i)
			select {
			case err := <-turn.q[i]:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("request %d of %s not granted in its turn", i, turn.name)
			}
		}
	}
	g.release(holder)
	if g.free != 1 {
		t.Fatalf("%d slots free at the end, want 1", g.free)
	}
}

// TestFairGateGivesUp: a request whose context ends stops waiting without a slot, and close ends
// every wait; the slots held are given back whole.
func TestFairGateGivesUp(t *testing.T) {
	g := newFairGate(1)
	if err := g.acquire(context.Background(), "a"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gone := waiter(g, ctx, "b")
	waitQueued(t, g, "b", 1)
	cancel()
	if err := <-gone; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled wait: %v", err)
	}
	waitQueued(t, g, "b", 0)
	stopped := waiter(g, context.Background(), "b")
	waitQueued(t, g, "b", 1)
	g.close()
	if err := <-stopped; !errors.Is(err, errGateStopped) {
		t.Fatalf("wait when closed: %v", err)
	}
	if err := g.acquire(context.Background(), "c"); !errors.Is(err, errGateStopped) {
		t.Fatalf("acquire after close: %v", err)
	}
	g.release("a")
	if g.free != 1 {
		t.Fatalf("%d slots free, want 1", g.free)
	}
}

// TestFairGateShare: while another group is active, a group holds at most its share of the slots
// (here 1 of 2), even with a slot free; once the other group's activity has lingered out, the free
// slot is its again.
func TestFairGateShare(t *testing.T) {
	g := newFairGate(2)
	ctx := context.Background()
	for range 2 {
		if err := g.acquire(ctx, "acme"); err != nil {
			t.Fatal(err)
		}
	}
	quiet := waiter(g, ctx, "globex")
	waitQueued(t, g, "globex", 1)
	g.release("acme")
	if err := <-quiet; err != nil {
		t.Fatal(err)
	}
	flood := waiter(g, ctx, "acme")
	waitQueued(t, g, "acme", 1)
	g.release("globex") // a slot free, but globex is still active: acme is at its share
	waitQueued(t, g, "acme", 1)
	start := time.Now()
	select {
	case err := <-flood:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the free slot never went to acme")
	}
	if waited := time.Since(start); waited < activeLinger/2 {
		t.Fatalf("acme got the slot after %s, before globex's activity lingered out", waited)
	}
	g.release("acme")
	g.release("acme")
	if g.free != 2 {
		t.Fatalf("%d slots free, want 2", g.free)
	}
}
