package messaging

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go/jetstream"
)

// subscriber is the pipeline's Watermill Subscriber: each Subscribe call runs one pull Consume on the
// durable consumer of the topic's subject (one message buffered at a time, so AckWait does not tick
// for messages waiting in a buffer) and hands messages to the router one by one.
//
// It replaces watermill-nats' jetstream.Subscriber, whose Close abandons the acks of messages still in
// flight and whose drain could only hand messages back to the same replica. Here shutdown is in three
// steps the pipeline controls:
//
//  1. stopFetching: every Consume is drained; a message already fetched but not yet given to the
//     router is nak'ed at once, and since this replica no longer pulls, JetStream delivers it to
//     another replica;
//  2. waitIdle: messages in flight finish, and their ack or nak is sent on a context of its own;
//  3. Close: the output channels close and the router's handlers end.
//
// A message whose handler outlives AckWait is left alone: JetStream redelivers it.
type subscriber struct {
	js       jetstream.JetStream
	stream   string
	ackWait  time.Duration
	nakDelay func(deliveries uint64) time.Duration
	log      *slog.Logger

	mu       sync.Mutex
	consumes []jetstream.ConsumeContext
	stopping chan struct{}
	stopped  bool
	closing  chan struct{}
	closed   bool
	inflight sync.WaitGroup // messages between fetch and ack/nak
	outputs  sync.WaitGroup // Subscribe goroutines that own an output channel
}

func newSubscriber(js jetstream.JetStream, stream string, ackWait time.Duration, nakDelay func(uint64) time.Duration, log *slog.Logger) *subscriber {
	return &subscriber{js: js, stream: stream, ackWait: ackWait, nakDelay: nakDelay, log: log,
		stopping: make(chan struct{}), closing: make(chan struct{})}
}

// Subscribe binds the durable consumer of subject (made by EnsureTopology) and starts consuming.
func (s *subscriber) Subscribe(ctx context.Context, subject string) (<-chan *message.Message, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return nil, errors.New("messaging: subscriber is shutting down")
	}
	cons, err := s.js.Consumer(ctx, s.stream, ConsumerName(subject))
	if err != nil {
		return nil, fmt.Errorf("bind consumer %s on %s: %w", ConsumerName(subject), s.stream, err)
	}
	out := make(chan *message.Message)
	ended := make(chan struct{}) // this subscription ends: nobody reads out any more
	var callbacks sync.WaitGroup
	cc, err := cons.Consume(func(msg jetstream.Msg) {
		callbacks.Add(1)
		defer callbacks.Done()
		s.handle(msg, out, ended)
	}, jetstream.PullMaxMessages(1), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		if !errors.Is(err, jetstream.ErrNoHeartbeat) {
			s.log.Debug("consume", "subject", subject, "error", err.Error())
		}
	}))
	if err != nil {
		return nil, fmt.Errorf("consume %s: %w", subject, err)
	}
	s.consumes = append(s.consumes, cc)
	s.outputs.Add(1)
	go func() {
		defer s.outputs.Done()
		select {
		case <-s.closing:
		case <-ctx.Done():
		}
		close(ended)
		cc.Drain()
		<-cc.Closed()
		callbacks.Wait()
		close(out)
	}()
	return out, nil
}

// handle gives one message to the router and settles it with JetStream.
func (s *subscriber) handle(msg jetstream.Msg, out chan<- *message.Message, ended <-chan struct{}) {
	s.inflight.Add(1)
	defer s.inflight.Done()
	m := toMessage(msg)
	// Handlers run on a context of their own: shutting the router down must not cancel work in flight.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m.SetContext(ctx)
	select {
	case out <- m:
	case <-s.stopping:
		// Fetched but never started: hand it to another replica at once.
		s.settle(func(context.Context) error { return msg.Nak() })
		return
	case <-ended:
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

// stopFetching drains every Consume: no more pulls, buffered messages are handed back.
func (s *subscriber) stopFetching() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return
	}
	s.stopped = true
	close(s.stopping)
	for _, cc := range s.consumes {
		cc.Drain()
	}
}

// waitIdle waits until every fetched message was acked or nak'ed, or ctx ends.
func (s *subscriber) waitIdle(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.inflight.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops fetching and closes the output channels. It does not wait for messages in flight:
// call waitIdle first.
func (s *subscriber) Close() error {
	s.stopFetching()
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
	s.mu.Unlock()
	s.outputs.Wait()
	return nil
}
