// Package quorum moves a NATS connection away from a server that can no longer reach JetStream.
//
// A server cut off from the rest of its cluster (its routes down, its clients still connected)
// keeps the connections of its clients healthy while every JetStream call made through it goes
// unanswered: the streams' leaders, or the quorum a write needs, are on the other side. Nothing
// reconnects by itself, so a worker or caller connected there stalls until the partition heals.
// A Watch notices JetStream going unanswered for a bounded time while the connection is up, and
// reconnects it to another server of the cluster (nats.go's ForceReconnect takes the next server of
// the pool, the one it left last).
package quorum

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// DefaultAfter is how long JetStream may go unanswered on a connected server before the connection
// moves to another one: longer than a stream leader election (2-4 s after a leader dies), well
// under the 15 s a caller may wait through a partition.
const DefaultAfter = 4 * time.Second

// errCodeStoreFailed is nats-server's JSStreamStoreFailedF: a write the stream's store refused.
const errCodeStoreFailed jetstream.ErrorCode = 10077

// errCodeDuplicateInProcess is nats-server's JSStreamDuplicateMessageConflict ("duplicate message id
// is in process").
const errCodeDuplicateInProcess jetstream.ErrorCode = 10158

// Unanswered reports whether err means JetStream did not answer at all (a timeout, no responders),
// as when the server cannot reach the stream's leader or quorum; an answer, even an error one (not
// found, a refused write), means it did.
func Unanswered(err error) bool {
	if err == nil {
		return false
	}
	var api *jetstream.APIError
	if errors.As(err, &api) {
		// 503 is JetStream temporarily unavailable (no leader, no quorum), but also a write a full
		// stream refused (err_code 10077, "maximum bytes exceeded"): an answer. A write whose
		// Nats-Msg-Id an earlier write still being stored carries (409, err_code 10158) waits for
		// that one's quorum: a stream leader cut off from its cluster answers so until it steps down.
		return api.Code == 503 && api.ErrorCode != errCodeStoreFailed || api.ErrorCode == errCodeDuplicateInProcess
	}
	return errors.Is(err, ErrCutOff) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, jetstream.ErrNoHeartbeat) ||
		errors.Is(err, jetstream.ErrAsyncPublishTimeout) // an asynchronous publish's ack that never came
}

// ErrCutOff is a read a stream's or consumer's leader answered while it has not heard from a quorum
// of its group (CutOff): taken for an unanswered call.
var ErrCutOff = errors.New("quorum: the answering leader has not heard from a quorum of its group")

// CutOff reports whether ci, the cluster info a stream's or consumer's leader gave in its answer,
// shows that leader cut off from its group: fewer than a quorum of the group (the leader counted)
// answered it within peerSilence. A leader left on the small side of a partition keeps answering
// reads (an info, its ack floor) until it steps down for lost quorum, 10-20 s after the cut, while
// nothing it answers moves: such an answer proves nothing about the cluster. A group of one
// (no replicas) is never cut off.
func CutOff(ci *jetstream.ClusterInfo) bool {
	if ci == nil || len(ci.Replicas) == 0 {
		return false
	}
	heard := 1 // the leader itself
	for _, r := range ci.Replicas {
		if !r.Offline && r.Active < peerSilence {
			heard++
		}
	}
	return heard < (len(ci.Replicas)+1)/2+1
}

// peerSilence is how long a group's leader may go without hearing from a peer before the peer is
// taken for unreachable: a leader's heartbeats go out every second and every peer answers them.
const peerSilence = 3 * time.Second

// Refused reports whether err is a write the stream's store refused (err_code 10077: the stream or
// bucket is full): an answer, which writing again does not change.
func Refused(err error) bool {
	var api *jetstream.APIError
	return errors.As(err, &api) && api.ErrorCode == errCodeStoreFailed
}

// Tracker counts how long JetStream has gone unanswered on one connection, from the outcomes of
// calls reported to it, and reconnects the connection elsewhere once that lasts After while the
// connection is up. It is safe for concurrent use.
type Tracker struct {
	conn  *nats.Conn
	after time.Duration
	log   *slog.Logger

	mu      sync.Mutex
	since   time.Time // first unanswered call since the last answer; zero while JetStream answers
	last    time.Time // the last report
	lastBad bool      // the last report was unanswered
	moved   bool      // the connection was moved since the last answer
}

// NewTracker returns a tracker of nc that reconnects it after after (DefaultAfter when 0; a
// negative after never reconnects). log may be nil.
func NewTracker(nc *nats.Conn, after time.Duration, log *slog.Logger) *Tracker {
	if after == 0 {
		after = DefaultAfter
	}
	return &Tracker{conn: nc, after: after, log: log}
}

// Report records the outcome of a JetStream call made on the connection: an answer (nil, or an error
// answer of the API) resets the count; an unanswered call (Unanswered) starts it or, once it lasted
// After while connected, reconnects. Other errors say nothing about the server and are ignored.
func (t *Tracker) Report(err error) {
	now := time.Now()
	var api *jetstream.APIError
	answered := err == nil || errors.As(err, &api) && !Unanswered(err)
	if !answered && !Unanswered(err) {
		return // a local error (a bad header, a closed connection): nothing learnt about the server
	}
	t.mu.Lock()
	t.last = now
	t.lastBad = !answered
	if answered {
		t.moved = false
	}
	if answered || !t.conn.IsConnected() {
		t.since = time.Time{}
		t.mu.Unlock()
		return
	}
	if t.since.IsZero() {
		t.since = now
	}
	switchNow := t.after > 0 && now.Sub(t.since) >= t.after
	failing := now.Sub(t.since)
	if switchNow {
		t.since, t.moved = time.Time{}, true
	}
	t.mu.Unlock()
	if switchNow {
		if t.log != nil {
			t.log.Warn("JetStream unanswered on a connected server; reconnecting to another server of the cluster",
				"connection", t.conn.Opts.Name, "server", t.conn.ConnectedUrlRedacted(), "unanswered_for", failing.Round(time.Millisecond).String(), "error", err.Error())
		}
		_ = t.conn.ForceReconnect()
	}
}

// Answering reports whether JetStream answers: false once calls have gone unanswered for a second
// or more in a row (one slow call on a loaded server is not taken for a lost quorum), and after the
// tracker moved the connection until a call is answered through the new server; true before any
// report.
func (t *Tracker) Answering() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return !t.lastBad || !t.moved && (t.since.IsZero() || time.Since(t.since) < time.Second)
}

// LastReport is when the last call was reported (zero before any).
func (t *Tracker) LastReport() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}

// Watch probes JetStream on the tracker's connection every interval until ctx ends, reporting each
// outcome: it keeps a connection that makes no JetStream call of its own (an idle consumer's pulls
// time out either way) from staying on a cut-off server. probe should need the cluster's quorum
// (a write), so that a server still holding a stale leader does not answer it.
func (t *Tracker) Watch(ctx context.Context, interval time.Duration, probe func(ctx context.Context) error) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if !t.conn.IsConnected() {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, 2*interval)
		err := probe(pctx)
		cancel()
		if ctx.Err() != nil {
			return
		}
		t.Report(err)
	}
}
