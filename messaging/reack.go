package messaging

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// Acks sent again after a reconnect.
//
// A plain ack is fire and forget. One sent through a server cut off from its cluster (its routes
// silent or down) never reaches the side that keeps the quorum: the consumer's leader there still
// counts the request as pending and redelivers it after AckWait (answered from its record, not run
// again), and until then the consumer's ack floor stays below it, which is what the clients wait
// for before they ask again for a reply lost in the move. So the subscriber remembers the acks it
// sent within the last AckWait, and when its connection reconnects (the quorum tracker moved it, or
// its server went away) it sends them again through the new server. An ack of a request already
// acked, or no longer pending, is ignored by the server; one of a request redelivered meanwhile to
// another replica marks it answered, which it is: an ack follows the request's reply.

// maxRecentAcks bounds the acks remembered (about 1.5 MB of subjects at the most).
const maxRecentAcks = 16384

// recentAcks is the ack subjects sent within the last window, oldest first.
type recentAcks struct {
	window time.Duration

	mu   sync.Mutex
	acks []sentAck
}

type sentAck struct {
	subject string
	at      time.Time
}

// sent records an ack sent on subject (a message's reply subject) now.
func (r *recentAcks) sent(subject string, now time.Time) {
	if subject == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropOlder(now)
	if len(r.acks) >= maxRecentAcks {
		r.acks = r.acks[len(r.acks)-maxRecentAcks+1:]
	}
	r.acks = append(r.acks, sentAck{subject, now})
}

// since returns the subjects of the acks sent within the window before now.
func (r *recentAcks) since(now time.Time) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.dropOlder(now)
	out := make([]string, len(r.acks))
	for i, a := range r.acks {
		out[i] = a.subject
	}
	return out
}

func (r *recentAcks) dropOlder(now time.Time) {
	i := 0
	for i < len(r.acks) && now.Sub(r.acks[i].at) > r.window {
		i++
	}
	if i > 0 {
		r.acks = append(r.acks[:0], r.acks[i:]...)
	}
}

// ackAgainOnReconnect watches nc's reconnects (every pollEvery) until stop is closed and, after each,
// sends the acks remembered again.
func (s *subscriber) ackAgainOnReconnect(nc *nats.Conn, pollEvery time.Duration, stop <-chan struct{}) {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	seen := nc.Stats().Reconnects
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		n := nc.Stats().Reconnects
		if n == seen || !nc.IsConnected() {
			continue
		}
		seen = n
		subjects := s.acks.since(time.Now())
		sent := 0
		for _, subject := range subjects {
			if nc.Publish(subject, ackBody) == nil {
				sent++
			}
		}
		if sent > 0 {
			s.log.Info("acks sent again after a reconnect", "acks", sent)
		}
	}
}

// ackBody is a JetStream ack's payload.
var ackBody = []byte("+ACK")
