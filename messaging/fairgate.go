package messaging

import (
	"context"
	"errors"
	"slices"
	"sync"
)

// fairGate is the work slots one replica shares between groups of subjects (the tenants of a
// shared pool: Config.WorkSlots, Config.Group). A request takes a slot before it is worked on and
// gives it back once it is settled. When every slot is taken, requests wait per group, and a slot
// given back goes to the next group with a request waiting, in turn (round robin), never to the
// group that got the last one while another waits. So one group's flood fills at most the slots no
// other group asks for: a request of a quiet group waits for one running request to end, then
// shares the CPU with at most slots-1 of the flood's, while the per-subject consumer slots
// (Concurrency, SubjectConcurrency) still bound what each group has fetched.
type fairGate struct {
	mu      sync.Mutex
	free    int
	waiting map[string][]chan struct{} // FIFO per group; a channel is closed when granted
	groups  []string                   // groups in the order they first came: the turn order
	last    int                        // index in groups of the group granted last
	stopped bool
	stop    chan struct{}
}

// errGateStopped: the pipeline is shutting down; a request still waiting for a slot was never
// started and is handed back.
var errGateStopped = errors.New("messaging: work slots closed (shutting down)")

func newFairGate(slots int) *fairGate {
	return &fairGate{free: slots, waiting: map[string][]chan struct{}{}, last: -1, stop: make(chan struct{})}
}

// acquire takes a slot for a request of group, waiting its turn. It returns ctx's error, or
// errGateStopped once close was called, without a slot.
func (g *fairGate) acquire(ctx context.Context, group string) error {
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		return errGateStopped
	}
	k := g.turnOf(group)
	if g.free > 0 {
		// Slots are free only while nobody waits (release hands a slot straight to a waiter).
		g.free--
		g.last = k
		g.mu.Unlock()
		return nil
	}
	grant := make(chan struct{})
	g.waiting[group] = append(g.waiting[group], grant)
	g.mu.Unlock()

	var err error
	select {
	case <-grant:
		return nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-g.stop:
		err = errGateStopped
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	q := g.waiting[group]
	for i, c := range q {
		if c == grant {
			g.waiting[group] = append(q[:i:i], q[i+1:]...)
			return err
		}
	}
	// Granted meanwhile: the slot is given back.
	g.releaseLocked()
	return err
}

// turnOf returns group's place in the turn order, adding it at the end when new.
func (g *fairGate) turnOf(group string) int {
	if _, known := g.waiting[group]; !known {
		g.waiting[group] = nil
		g.groups = append(g.groups, group)
		return len(g.groups) - 1
	}
	return slices.Index(g.groups, group)
}

// release gives a slot back: to the next group in turn with a request waiting, else to the free
// slots.
func (g *fairGate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.releaseLocked()
}

func (g *fairGate) releaseLocked() {
	for i := 1; i <= len(g.groups); i++ {
		k := (g.last + i) % len(g.groups)
		q := g.waiting[g.groups[k]]
		if len(q) == 0 {
			continue
		}
		close(q[0])
		g.waiting[g.groups[k]] = q[1:]
		g.last = k
		return
	}
	g.free++
}

// close makes every request waiting for a slot, and every later one, give up with errGateStopped;
// requests holding a slot keep it until they end.
func (g *fairGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.stopped = true
		close(g.stop)
	}
}
