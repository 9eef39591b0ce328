package messaging

import (
	"context"
	"sync"
)

// gate counts in-flight requests and, once closed, refuses new ones so Shutdown can wait for the
// rest. The zero value is open.
type gate struct {
	mu       sync.Mutex
	shut     bool
	inflight int
	idle     chan struct{} // closed when shut and inflight reaches 0
}

// enter admits a request unless the gate is closed.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.shut {
		return false
	}
	g.inflight++
	return true
}

func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.inflight--
	if g.shut && g.inflight == 0 && g.idle != nil {
		close(g.idle)
		g.idle = nil
	}
}

func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.shut = true
}

func (g *gate) closed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.shut
}

// wait blocks until no request is in flight or ctx ends.
func (g *gate) wait(ctx context.Context) error {
	g.mu.Lock()
	if g.inflight == 0 {
		g.mu.Unlock()
		return nil
	}
	if g.idle == nil {
		g.idle = make(chan struct{})
	}
	idle := g.idle
	g.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
