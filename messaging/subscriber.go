package messaging

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// subscriber is the pipeline's Watermill Subscriber. Each Subscribe call (one per handler slot) runs
// one goroutine that pulls one message at a time from the durable consumer of the topic's subject
// (Next: nothing is buffered, so AckWait only ticks for the message being handled), gives it to the
// router and settles it with JetStream.
//
// It replaces watermill-nats' jetstream.Subscriber, whose Close abandons the acks of messages still in
// flight and whose drain could only hand messages back to the same replica. Shutdown is in three steps
// the pipeline controls:
//
//  1. stopFetching: slots stop pulling; a message that arrives at a slot after that is nak'ed at once,
//     and since this replica no longer pulls, JetStream delivers it to another replica;
//  2. waitIdle: messages in flight finish, and their ack or nak is sent on a context of its own;
//  3. Close: the slots end and close their output channels; the router's handlers end.
//
// A message whose handler outlives AckWait is left alone: JetStream redelivers it. A pull that fails
// (consumer deleted, JetStream unavailable) marks the subscriber unhealthy (Healthy, for readiness)
// and the slot binds the consumer again with back-off.
type subscriber struct {
	js       jetstream.JetStream
	stream   string
	ackWait  time.Duration
	nakDelay func(deliveries uint64) time.Duration
	log      *slog.Logger

	mu       sync.Mutex
	stopping chan struct{}
	stopped  bool
	outputs  sync.WaitGroup // slot goroutines; Add happens under mu while not stopped
	inflight atomic.Int64   // messages between fetch and ack/nak
	failing  atomic.Int64   // slots whose last pull failed
}

func newSubscriber(js jetstream.JetStream, stream string, ackWait time.Duration, nakDelay func(uint64) time.Duration, log *slog.Logger) *subscriber {
	return &subscriber{js: js, stream: stream, ackWait: ackWait, nakDelay: nakDelay, log: log, stopping: make(chan struct{})}
}

// Subscribe binds the durable consumer of subject (made by EnsureTopology) and starts one slot.
func (s *subscriber) Subscribe(ctx context.Context, subject string) (<-chan *message.Message, error) {
	cons, err := s.js.Consumer(ctx, s.stream, ConsumerName(subject))
	if err != nil {
		return nil, fmt.Errorf("bind consumer %s on %s: %w", ConsumerName(subject), s.stream, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, errors.New("messaging: subscriber is shutting down")
	}
	out := make(chan *message.Message)
	s.outputs.Add(1)
	go s.slot(ctx, subject, cons, out)
	return out, nil
}

// slot pulls and hands over messages until fetching stops, then closes out (it is out's only writer).
func (s *subscriber) slot(ctx context.Context, subject string, cons jetstream.Consumer, out chan<- *message.Message) {
	defer s.outputs.Done()
	defer close(out)
	failed := false
	setFailed := func(v bool) {
		if v != failed {
			failed = v
			if v {
				s.failing.Add(1)
			} else {
				s.failing.Add(-1)
			}
		}
	}
	defer setFailed(false)
	wait := 500 * time.Millisecond
	for !s.isStopping() && ctx.Err() == nil {
		msg, err := s.next(ctx, cons)
		switch {
		case err == nil:
			setFailed(false)
			wait = 500 * time.Millisecond
			s.handle(ctx, msg, out)
		case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded), ctx.Err() != nil:
			setFailed(false)
		default:
			setFailed(true)
			s.log.Warn("pull failed; binding the consumer again", "subject", subject, "error", err.Error(), "retry_in", wait.String())
			select {
			case <-s.stopping:
				return
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, 10*time.Second)
			if c, err := s.js.Consumer(ctx, s.stream, ConsumerName(subject)); err == nil {
				cons = c
			}
		}
	}
}

// pullWait is how long one pull waits for a message. It bounds how soon a slot notices that fetching
// stopped or that its consumer was deleted. A pull is never abandoned early: a message the server is
// already sending to an abandoned pull would wait AckWait before another replica got it, while one
// that arrives at a stopping slot is handed back at once.
const pullWait = 2 * time.Second

func (s *subscriber) next(ctx context.Context, cons jetstream.Consumer) (jetstream.Msg, error) {
	ctx, cancel := context.WithTimeout(ctx, pullWait)
	defer cancel()
	return cons.Next(jetstream.FetchContext(ctx))
}

// handle gives one message to the router and settles it with JetStream.
func (s *subscriber) handle(ctx context.Context, msg jetstream.Msg, out chan<- *message.Message) {
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	m := toMessage(msg)
	// Handlers run on a context of their own: shutting the router down must not cancel work in flight.
	mctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.SetContext(mctx)
	select {
	case out <- m:
	case <-s.stopping:
		// Fetched but never started: hand it to another replica at once.
		s.settle(func(context.Context) error { return msg.Nak() })
		return
	case <-ctx.Done():
		s.settle(func(context.Context) error { return msg.Nak() })
		return
	}
	timer := time.NewTimer(s.ackWait)
	defer timer.Stop()
	select {
	case <-m.Acked():
		s.settle(msg.DoubleAck)
	case <-m.Nacked():
		d := time.Duration(0)
		if meta, err := msg.Metadata(); err == nil {
			d = s.nakDelay(meta.NumDelivered)
		}
		s.settle(func(context.Context) error { return msg.NakWithDelay(d) })
	case <-timer.C:
		// The handler outlived AckWait: JetStream redelivers; the late outcome is dropped.
	}
}

// settle sends an ack or nak on a short context of its own.
func (s *subscriber) settle(f func(context.Context) error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := f(ctx); err != nil {
		s.log.Warn("ack/nak not confirmed; JetStream redelivers after AckWait", "error", err.Error())
	}
}

func (s *subscriber) isStopping() bool {
	select {
	case <-s.stopping:
		return true
	default:
		return false
	}
}

// Healthy reports whether every slot's last pull worked.
func (s *subscriber) Healthy() bool { return s.failing.Load() == 0 }

// stopFetching makes every slot stop pulling.
func (s *subscriber) stopFetching() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.stopped = true
		close(s.stopping)
	}
}

// waitIdle waits until every fetched message was acked or nak'ed, or ctx ends.
func (s *subscriber) waitIdle(ctx context.Context) error {
	return waitZero(ctx, &s.inflight)
}

// Close stops fetching and waits for the slots to end and close their output channels. It does not
// wait for messages in flight beyond AckWait: call waitIdle first.
func (s *subscriber) Close() error {
	s.stopFetching()
	s.outputs.Wait()
	return nil
}

// waitZero polls n until it is zero or ctx ends. (A sync.WaitGroup cannot be used: work keeps arriving
// while Shutdown waits.)
func waitZero(ctx context.Context, n *atomic.Int64) error {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for n.Load() > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
	return nil
}
