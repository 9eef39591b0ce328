package messaging

import (
	"context"
	"errors"
	"sync"
	"time"
)

// fairGate is the work slots one replica shares between groups of subjects (the tenants of a
// shared pool: Config.WorkSlots, Config.Group). A request takes a slot before it is worked on and
// gives it back once it is settled.
//
// Each group may hold at most its share of the slots: the slots divided by the groups active now
// (at least one), a group being active while it holds or waits for a slot and for activeLinger
// after its last request. Requests wait per group, in order; a free slot goes to the next group in
// turn (round robin) with a request waiting and fewer slots than its share. So one group's flood
// takes every slot only while nobody else asks: a request of a quiet group that calls one after
// the other finds its share free, and shares the CPU with at most slots-share of the flood's,
// while the per-subject consumer slots (Concurrency, SubjectConcurrency) still bound what each
// group has fetched. A slot left free because the groups waiting are at their share goes to them
// once another group's activity has lingered out.
type fairGate struct {
	mu      sync.Mutex
	slots   int
	free    int
	state   map[string]*gateGroup
	groups  []string // groups in the order they first came: the turn order
	last    int      // index in groups of the group granted last
	timer   *time.Timer
	linger  time.Duration
	stopped bool
	stop    chan struct{}
}

type gateGroup struct {
	held    int
	waiting []chan struct{} // FIFO; a channel is closed when granted
	seen    time.Time       // its last acquire or release
}

// activeLinger is how long a group counts as active after its last request: longer than the
// pause between the calls of a caller that calls one after the other.
const activeLinger = 100 * time.Millisecond

// errGateStopped: the pipeline is shutting down; a request still waiting for a slot was never
// started and is handed back.
var errGateStopped = errors.New("messaging: work slots closed (shutting down)")

func newFairGate(slots int) *fairGate {
	return &fairGate{slots: slots, free: slots, state: map[string]*gateGroup{}, last: -1, linger: activeLinger, stop: make(chan struct{})}
}

func (g *fairGate) groupOf(name string) *gateGroup {
	st, ok := g.state[name]
	if !ok {
		st = &gateGroup{}
		g.state[name] = st
		g.groups = append(g.groups, name)
	}
	return st
}

// acquire takes a slot for a request of group, waiting its turn. It returns ctx's error, or
// errGateStopped once close was called, without a slot.
func (g *fairGate) acquire(ctx context.Context, group string) error {
	g.mu.Lock()
	if g.stopped {
		g.mu.Unlock()
		return errGateStopped
	}
	st := g.groupOf(group)
	st.seen = time.Now()
	grant := make(chan struct{})
	st.waiting = append(st.waiting, grant)
	g.dispatchLocked()
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
	for i, c := range st.waiting {
		if c == grant {
			st.waiting = append(st.waiting[:i:i], st.waiting[i+1:]...)
			return err
		}
	}
	// Granted meanwhile: the slot is given back.
	g.releaseLocked(group)
	return err
}

// release gives back a slot group held.
func (g *fairGate) release(group string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.releaseLocked(group)
}

func (g *fairGate) releaseLocked(group string) {
	st := g.groupOf(group)
	st.held--
	st.seen = time.Now()
	g.free++
	g.dispatchLocked()
}

// share is the most slots one group may hold now.
func (g *fairGate) share(now time.Time) int {
	active := 0
	for _, st := range g.state {
		if st.held > 0 || len(st.waiting) > 0 || now.Sub(st.seen) < g.linger {
			active++
		}
	}
	return max(1, g.slots/max(1, active))
}

// dispatchLocked hands the free slots to the groups in turn, each up to its share; when slots stay
// free while requests wait, it looks again once activity has lingered out.
func (g *fairGate) dispatchLocked() {
	now := time.Now()
	share := g.share(now)
	for g.free > 0 {
		k := -1
		for i := 1; i <= len(g.groups); i++ {
			j := (g.last + i) % len(g.groups)
			if st := g.state[g.groups[j]]; len(st.waiting) > 0 && st.held < share {
				k = j
				break
			}
		}
		if k < 0 {
			break
		}
		st := g.state[g.groups[k]]
		close(st.waiting[0])
		st.waiting = st.waiting[1:]
		st.held++
		g.free--
		g.last = k
	}
	if g.free == 0 || g.timer != nil || g.stopped {
		return
	}
	for _, st := range g.state {
		if len(st.waiting) > 0 {
			g.timer = time.AfterFunc(g.linger, func() {
				g.mu.Lock()
				defer g.mu.Unlock()
				g.timer = nil
				g.dispatchLocked()
			})
			return
		}
	}
}

// close makes every request waiting for a slot, and every later one, give up with errGateStopped;
// requests holding a slot keep it until they end.
func (g *fairGate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.stopped {
		g.stopped = true
		close(g.stop)
		if g.timer != nil {
			g.timer.Stop()
			g.timer = nil
		}
	}
}
