// Package membudget bounds the memory of the requests a replica works on by bytes, not only by
// their number.
//
// A Budget holds a number of bytes. The pipeline attaches an account to each attempt at a request
// (Attach); the code that learns how much memory the request will hold reserves it on the context
// (Reserve) before it allocates: the object store when it has the size of an artifact it is about to
// read, the claim check when it has the size of a body it is about to download. Everything the
// account reserved goes back to the budget when the attempt ends.
//
// A request's first reservation waits, in arrival order, until the budget has room (or its context
// ends); a request larger than the whole budget waits until it is the only one holding any. Later
// reservations of the same request never wait: they are granted at once and may take the budget
// over its size. That keeps the budget free of deadlocks (a request that waits holds nothing), and
// second reservations are rare (a claim-checked get_artifact request), so the overdraw stays small.
//
// A context without an account (outside the pipeline: the HTTP endpoints, tools, tests) reserves
// nothing and never waits.
package membudget

import (
	"context"
	"sync"
)

// ArtifactFactor is what a request is charged per byte of an artifact it reads: the raw bytes, a
// decoded or converted image, the base64 of the media part (twice with media "both") and the encoded
// reply, live at once at the peak. A 20 MB file sent whole holds about 7x at its peak
// (handlers.BenchmarkGetArtifactLargeImage), rounded up to 8; an image fitted to a model holds less
// (2.5x peak RSS growth for a 20 MB PNG, BENCHMARKS.md), so the budget errs on the safe side.
const ArtifactFactor = 8

// BodyFactor is what a request is charged per byte of a claim-checked body it downloads: the body
// and what its handler decodes from it (a file's content_base64, a context's images).
const BodyFactor = 2

// Budget is a number of bytes shared by the requests in flight. It is safe for concurrent use.
type Budget struct {
	size int64

	mu      sync.Mutex
	used    int64
	holders int // accounts holding a reservation
	waiters []*waiter
}

type waiter struct {
	n     int64
	ready chan struct{} // closed when granted
}

// New returns a budget of size bytes (at least 1).
func New(size int64) *Budget { return &Budget{size: max(size, 1)} }

// Size is the budget's size in bytes.
func (b *Budget) Size() int64 { return b.size }

// Used is the number of bytes reserved now (it may exceed Size by second reservations).
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Waiting is the number of requests waiting for their first reservation.
func (b *Budget) Waiting() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.waiters)
}

type accountKey struct{}

// account is one attempt's reservations.
type account struct {
	b    *Budget
	mu   sync.Mutex
	held int64
}

// Attach returns ctx carrying a new account on b, and the function that gives back everything the
// account reserved (call it once the attempt's memory is released: after its reply was published).
// A nil b returns ctx unchanged.
func (b *Budget) Attach(ctx context.Context) (context.Context, func()) {
	if b == nil {
		return ctx, func() {}
	}
	a := &account{b: b}
	return context.WithValue(ctx, accountKey{}, a), a.release
}

// Reserve charges n bytes to the request of ctx. The request's first reservation waits until the
// budget has room, in arrival order (n larger than the budget: until nothing else is reserved), and
// returns ctx's error if it ends first; later ones are granted at once. Without an account in ctx,
// or for n <= 0, it does nothing.
func Reserve(ctx context.Context, n int64) error {
	a, ok := ctx.Value(accountKey{}).(*account)
	if !ok || n <= 0 {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held > 0 {
		a.b.force(n)
		a.held += n
		return nil
	}
	if err := a.b.acquire(ctx, n); err != nil {
		return err
	}
	a.held = n
	return nil
}

func (a *account) release() {
	a.mu.Lock()
	n := a.held
	a.held = 0
	a.mu.Unlock()
	if n > 0 {
		a.b.release(n)
	}
}

// acquire waits until n bytes fit (or nothing is held, for n over the size), first come first
// served.
func (b *Budget) acquire(ctx context.Context, n int64) error {
	b.mu.Lock()
	if len(b.waiters) == 0 && b.fits(n) {
		b.used += n
		b.holders++
		b.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	b.waiters = append(b.waiters, w)
	b.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		select {
		case <-w.ready:
			// Granted meanwhile: give it back.
			b.mu.Unlock()
			b.release(n)
		default:
			for i, x := range b.waiters {
				if x == w {
					b.waiters = append(b.waiters[:i], b.waiters[i+1:]...)
					break
				}
			}
			b.grant() // the head may have changed
			b.mu.Unlock()
		}
		return ctx.Err()
	}
}

// fits reports whether n bytes can be granted now. Called with mu held.
func (b *Budget) fits(n int64) bool { return b.used+n <= b.size || b.holders == 0 }

// grant wakes the waiters at the head that fit. Called with mu held.
func (b *Budget) grant() {
	for len(b.waiters) > 0 && b.fits(b.waiters[0].n) {
		w := b.waiters[0]
		b.waiters = b.waiters[1:]
		b.used += w.n
		b.holders++
		close(w.ready)
	}
}

func (b *Budget) force(n int64) {
	b.mu.Lock()
	b.used += n
	b.mu.Unlock()
}

// release gives back n bytes of one holder's reservations.
func (b *Budget) release(n int64) {
	b.mu.Lock()
	b.used -= n
	b.holders--
	b.grant()
	b.mu.Unlock()
}
