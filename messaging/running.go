package messaging

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/backoff"
	"github.com/agentworks/artifact-worker/internal/quorum"
)

// Running markers: one execution while the first is still running.
//
// A record answers a request asked again once it ran. An ask that arrives while the first
// execution still runs (a client asking again during a long first run, JetStream redelivering a
// request whose heartbeat was lost, a caller's retry) would find no record and run it a second time.
// So before a request runs, its delivery claims the request's key (ReplyKey) in WORKER_REPLIES with
// a marker, "running <stream sequence> <delivery>": a KV Create, which one asker wins. The winner
// runs the request; its record then replaces the marker (a plain write: nothing but a record ever
// replaces a record). An ask that finds a marker does not run: it polls the key until the record
// is there and answers with it (outcome replayed).
//
// A marker lives as long as its owner: it is written again with every heartbeat of the owner's
// delivery (every AckWait/3, the heartbeat that keeps JetStream from redelivering it), each write
// checked against the revision the owner last wrote, so that it never replaces a record or another
// delivery's claim. A marker not written again for the lease (AckWait: three heartbeats missed,
// the time after which JetStream redelivers a message whose heartbeats stopped) is its dead
// owner's: the first asker to see it so takes the key over with a revision-checked write and runs
// the request (a request whose worker was killed runs again elsewhere, once). The age is judged
// from the marker's server timestamp against the asker's clock, or, whatever the clocks, from the
// asker having seen the same revision for the lease. Only JetStream's redelivery of the marker's
// own request (which already found its heartbeats stopped) takes it on its age alone; any other
// ask also watches it unchanged for a heartbeat interval, so that an owner whose writes were held
// up (a failed write is tried again within a second) is seen writing again. A delivery that ends
// without a record (a transient failure handed back to JetStream, a dead letter, a record refused)
// deletes its marker, revision-checked, so that the next ask runs at once.
//
// Limits: an owner that is alive but cannot write to WORKER_REPLIES for the lease (cut off from
// the bucket's quorum) loses its claim, and the request may run twice; so may a handler that
// outlives its delivery's budget (its heartbeats stop). Worker and NATS server clocks must be
// within two thirds of AckWait of each other, or a live marker can look dead to a worker whose
// clock is ahead. A bucket that refuses writes (full) runs every request without a marker, as it
// stores no records then.

// marker is a running marker's content: the delivery that owns the key.
type marker struct{ seq, delivery uint64 }

const markerPrefix = "running "

// value is the marker as stored. It is not JSON: a worker that predates markers reads it as no
// record and runs the request, as it did before.
func (m marker) value() []byte {
	return fmt.Appendf(nil, "%s%d %d", markerPrefix, m.seq, m.delivery)
}

// parseMarker reads a stored value as a marker.
func parseMarker(v []byte) (marker, bool) {
	s, ok := strings.CutPrefix(string(v), markerPrefix)
	if !ok {
		return marker{}, false
	}
	seq, delivery, ok := strings.Cut(s, " ")
	if !ok {
		return marker{}, false
	}
	var m marker
	var err1, err2 error
	m.seq, err1 = strconv.ParseUint(seq, 10, 64)
	m.delivery, err2 = strconv.ParseUint(delivery, 10, 64)
	return m, err1 == nil && err2 == nil
}

// errStillRunning: an ask waited for the record of a request another delivery is running, and its
// attempt ended first. It is transient (it wraps the context's error): the ask is tried again.
var errStillRunning = errors.New("the request is being executed by another delivery; its reply was not recorded in time")

// waitPoll spaces the reads of a key an ask waits on: 20 ms doubling to 250 ms.
var waitPoll = backoff.Policy{Initial: 20 * time.Millisecond, Max: 250 * time.Millisecond}

// claim returns the record of key when the request already ran. Otherwise it claims key for own
// and returns the run (nil when the bucket refuses writes: the request runs unclaimed). While a live
// marker of another delivery holds the key, it waits for that delivery's record, until ctx ends
// (errStillRunning), and takes the key over when the marker's lease ran out.
func (r *Replies) claim(ctx context.Context, key string, own marker, lease time.Duration) (*replyRecord, *run, error) {
	val := own.value()
	var (
		seenRev uint64
		seenAt  time.Time
		polls   int
	)
	for {
		cctx, cancel := context.WithTimeout(ctx, recordCall)
		rev, err := r.kv.Create(cctx, key, val)
		cancel()
		switch {
		case err == nil:
			return nil, &run{r: r, key: key, val: val, rev: rev}, nil
		case quorum.Refused(err):
			return nil, nil, nil
		case !errors.Is(err, jetstream.ErrKeyExists):
			return nil, nil, fmt.Errorf("reply record: %w", err)
		}
		for {
			gctx, cancel := context.WithTimeout(ctx, recordCall)
			e, err := r.kv.Get(gctx, key)
			cancel()
			if errors.Is(err, jetstream.ErrKeyNotFound) {
				break // deleted or gone since: claim it
			}
			if err != nil {
				return nil, nil, fmt.Errorf("reply record: %w", err)
			}
			m, isMarker := parseMarker(e.Value())
			if !isMarker {
				if rec := parseRecord(e.Value()); rec != nil {
					return rec, nil, nil
				}
				// Not one of ours: take the key (the request runs).
				seenRev, seenAt = e.Revision(), time.Time{}
			} else if m == own {
				// This delivery's own marker, from a Create whose answer was lost: take it back.
				seenRev, seenAt = e.Revision(), time.Time{}
			} else if e.Revision() != seenRev {
				seenRev, seenAt = e.Revision(), time.Now()
			}
			// A marker older than the lease is dead. For a redelivery of the marker's own request,
			// JetStream has already found its heartbeats stopped: its age is enough. Any other ask
			// (a client's, another message) also watches it for a heartbeat interval first, so that an
			// owner whose writes were held up (a bucket electing its leader) is seen writing again.
			old := time.Since(e.Created()) > lease
			if !(isMarker && m.seq == own.seq && m.delivery < own.delivery) {
				old = old && time.Since(seenAt) > lease/3
			}
			if seenAt.IsZero() || old || time.Since(seenAt) > lease {
				uctx, cancel := context.WithTimeout(ctx, recordCall)
				rev, err := r.kv.Update(uctx, key, val, e.Revision())
				cancel()
				if err == nil {
					return nil, &run{r: r, key: key, val: val, rev: rev}, nil
				}
				if !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
					return nil, nil, fmt.Errorf("reply record: %w", err)
				}
				continue // written meanwhile: read it again
			}
			if err := waitPoll.Sleep(ctx, polls); err != nil {
				return nil, nil, fmt.Errorf("%w: %w", errStillRunning, err)
			}
			polls++
		}
	}
}

// run is one delivery's claim on a request's key: its marker, written again with each heartbeat.
type run struct {
	r   *Replies
	key string
	val []byte

	mu       sync.Mutex
	rev      uint64 // the marker's last revision; 0 once another write replaced it
	busy     bool   // a refresh is in flight
	done     bool
	recorded bool // the request's record replaced the marker
	refreshs sync.WaitGroup
}

// refresh writes the marker again (in the background, checked against its last revision), unless a
// refresh is still in flight or the run ended. The heartbeat of the run's delivery calls it.
func (u *run) refresh() {
	u.mu.Lock()
	if u.busy || u.done || u.rev == 0 {
		u.mu.Unlock()
		return
	}
	u.busy = true
	rev := u.rev
	u.refreshs.Add(1)
	u.mu.Unlock()
	go func() {
		defer u.refreshs.Done()
		// A write that fails (the bucket electing a leader) is tried again soon, not a heartbeat later.
		for attempt := 0; ; attempt++ {
			ctx, cancel := context.WithTimeout(context.Background(), recordCall)
			next, err := u.r.kv.Update(ctx, u.key, u.val, rev)
			if errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
				// Replaced: by the record, by a delivery that took the key as dead, or by this run's
				// own earlier write whose answer was lost (then it is still ours, at its revision).
				if e, gerr := u.r.kv.Get(ctx, u.key); gerr == nil && bytes.Equal(e.Value(), u.val) {
					next, err = e.Revision(), nil
				}
			}
			cancel()
			u.mu.Lock()
			switch {
			case err == nil:
				u.rev, rev = next, next
			case errors.Is(err, jetstream.ErrKeyRevisionMismatch):
				u.rev = 0
			}
			if err == nil || u.rev == 0 || u.done || attempt == refreshRetries {
				u.busy = false
				u.mu.Unlock()
				return
			}
			u.mu.Unlock()
			time.Sleep(refreshBackoff.Delay(attempt))
		}
	}()
}

// refreshRetries and refreshBackoff: a marker write that failed is tried again up to 3 times,
// 100 ms to 400 ms apart.
const refreshRetries = 3

var refreshBackoff = backoff.Policy{Initial: 100 * time.Millisecond, Max: time.Second}

// setRecorded notes that the request's record was stored: it replaced the marker.
func (u *run) setRecorded() {
	u.mu.Lock()
	u.recorded = true
	u.mu.Unlock()
}

func (u *run) isRecorded() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.recorded
}

// end stops refreshing and, when no record replaced the marker, deletes it (revision-checked), so
// that the request runs at once when asked again.
func (u *run) end() {
	u.mu.Lock()
	u.done = true
	recorded := u.recorded
	u.mu.Unlock()
	if recorded {
		return // a refresh still in flight fails against the record's revision
	}
	u.refreshs.Wait()
	u.mu.Lock()
	rev, recorded := u.rev, u.recorded
	u.mu.Unlock()
	if recorded || rev == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordCall)
	defer cancel()
	_ = u.r.kv.Delete(ctx, u.key, jetstream.LastRevision(rev))
}
