package messaging

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/backoff"
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
// A slot is the unit of concurrency: it pulls its next message only once the router's handler for the
// previous one returned (acked or nak'ed), however long that takes, so no more than Concurrency
// requests per subject are ever in flight in one replica.
//
// AckWait is short (10 s by default) so that the requests of a replica that dies (SIGKILL, OOM, a
// lost node) go to another within seconds; a message being worked on is kept by a heartbeat
// (msg.InProgress, every AckWait/3) instead. Each message's context has a deadline (settleBy, the
// delivery's budget: 3 x HandlerTimeout) that bounds the handler, its retries, the reply and the dead
// letter; the heartbeat stops there. A handler that ignores it keeps its slot, and JetStream
// redelivers the message AckWait after the last heartbeat (to a free slot or another replica). Close
// is the only thing that stops a slot waiting. A pull that fails (consumer deleted, JetStream
// unavailable) marks the subscriber unhealthy (Healthy, for readiness) and the slot binds the
// consumer again with back-off.
type subscriber struct {
	js       jetstream.JetStream
	stream   string
	ackWait  time.Duration
	budget   time.Duration // settleBy: how long one delivery may be worked on (heartbeats included)
	nakDelay func(deliveries uint64) time.Duration
	log      *slog.Logger

	mu       sync.Mutex
	stopping chan struct{}
	stopped  bool
	closing  chan struct{} // closed by Close: slots stop waiting for handlers that outlived the drain
	closed   bool
	outputs  sync.WaitGroup // slot goroutines; Add happens under mu while not stopped
	inflight atomic.Int64   // messages between fetch and ack/nak
	handled  atomic.Uint64  // messages fetched so far
	failing  atomic.Int64   // slots whose last pull failed
	// afterAck, when set, returns what to do once the server confirmed the ack of a message the
	// handler acked (nil: nothing, and the ack is not waited for).
	afterAck func(m *message.Message) func(context.Context)
	// acks are the plain acks sent within the last AckWait, sent again after a reconnect (reack.go).
	acks recentAcks
}

func (s *subscriber) afterAckOf(m *message.Message) func(context.Context) {
	if s.afterAck == nil {
		return nil
	}
	return s.afterAck(m)
}

func newSubscriber(js jetstream.JetStream, stream string, ackWait, budget time.Duration, nakDelay func(uint64) time.Duration, log *slog.Logger) *subscriber {
	s := &subscriber{js: js, stream: stream, ackWait: ackWait, budget: budget, nakDelay: nakDelay, log: log, stopping: make(chan struct{}), closing: make(chan struct{})}
	s.acks.window = ackWait
	if nc := js.Conn(); nc != nil {
		go s.ackAgainOnReconnect(nc, 200*time.Millisecond, s.closing)
	}
	return s
}

// Subscribe starts one slot on the durable consumer of subject (made by EnsureTopology). A consumer
// that cannot be bound yet (its cluster is still electing its leader) is bound by the slot, with
// back-off; the subscriber is unhealthy meanwhile.
func (s *subscriber) Subscribe(ctx context.Context, subject string) (<-chan *message.Message, error) {
	cons, err := s.js.Consumer(ctx, s.stream, ConsumerName(subject))
	if err != nil {
		s.log.Warn("consumer not bound yet; retrying", "subject", subject, "consumer", ConsumerName(subject), "error", err.Error())
		cons = nil
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
	failures := 0 // pulls failed in a row
	if cons == nil {
		setFailed(true)
	}
	for !s.isStopping() && ctx.Err() == nil {
		var (
			msg jetstream.Msg
			err = errNotBound
		)
		if cons != nil {
			msg, err = s.next(ctx, cons)
		}
		switch {
		case err == nil:
			setFailed(false)
			failures = 0
			s.handle(ctx, msg, out)
		case errors.Is(err, nats.ErrTimeout), errors.Is(err, context.DeadlineExceeded), ctx.Err() != nil:
			setFailed(false)
		default:
			setFailed(true)
			wait := rebindBackoff.Delay(failures)
			failures++
			s.log.Warn("pull failed; binding the consumer again", "subject", subject, "error", err.Error(), "retry_in", wait.String())
			select {
			case <-s.stopping:
				return
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			if c, err := s.js.Consumer(ctx, s.stream, ConsumerName(subject)); err == nil {
				cons = c
			}
		}
	}
}

var errNotBound = errors.New("consumer not bound")

// rebindBackoff spaces the attempts to bind a consumer again after failed pulls: 0.5 s doubling to
// 2 s. A pull fails while the consumer has no leader (an election after a leader died, a partition
// or its heal: seconds); a slot must not sleep far past the election's end (at 10 s, calls waited 4-8
// s longer than the outage), and a failed pull costs the server one short answer.
var rebindBackoff = backoff.Policy{Initial: 500 * time.Millisecond, Max: 2 * time.Second}

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

// handle gives one message to the router, waits until the handler returned, and settles the message
// with JetStream.
func (s *subscriber) handle(ctx context.Context, msg jetstream.Msg, out chan<- *message.Message) {
	s.handled.Add(1)
	s.inflight.Add(1)
	defer s.inflight.Add(-1)
	m := toMessage(msg)
	// Handlers run on a context of their own: shutting the router down must not cancel work in flight.
	// Its deadline is the delivery's budget; the heartbeat keeps the message until then.
	by := time.Now().Add(s.budget)
	hook := new(beatHook)
	mctx, cancel := context.WithDeadline(context.WithValue(context.WithValue(context.Background(), settleByKey{}, by), beatHookKey{}, hook), by)
	defer cancel()
	m.SetContext(mctx)
	beat := time.NewTicker(heartbeatInterval(s.ackWait))
	defer beat.Stop()
	heartbeat := func() {
		if err := msg.InProgress(); err != nil {
			s.log.Warn("in-progress heartbeat not sent; JetStream may redeliver the message", "subject", msg.Subject(), "error", err.Error())
		}
		hook.beat()
	}
	for handed := false; !handed; {
		select {
		case out <- m:
			handed = true
		case <-beat.C:
			heartbeat()
		case <-s.stopping:
			// Fetched but never started: hand it to another replica at once.
			s.settle(func(context.Context) error { return msg.Nak() })
			return
		case <-ctx.Done():
			s.settle(func(context.Context) error { return msg.Nak() })
			return
		}
	}
	late := time.NewTimer(time.Until(by))
	defer late.Stop()
	beats := beat.C
	for {
		select {
		case <-m.Acked():
			if then := s.afterAckOf(m); then != nil {
				// Something is removed once the message is done (its claim-checked body): only after
				// the server confirmed the ack, so that a redelivery still finds it.
				s.settle(func(ctx context.Context) error {
					if err := msg.DoubleAck(ctx); err != nil {
						return err
					}
					then(ctx)
					return nil
				})
				return
			}
			// A plain ack, not a double ack waiting for the server's confirmation: the reply is already
			// out, so a lost ack only means a redelivery and a second reply (at-least-once, which
			// callers handle by request_id), and waiting would hold the slot one round trip per
			// request. Shutdown flushes the connection, so acks sent before it reach the server.
			s.settle(func(context.Context) error {
				if err := msg.Ack(); err != nil {
					return err
				}
				s.acks.sent(msg.Reply(), time.Now())
				return nil
			})
			return
		case <-m.Nacked():
			d := time.Duration(0)
			if meta, err := msg.Metadata(); err == nil {
				d = s.nakDelay(meta.NumDelivered)
			}
			s.settle(func(context.Context) error { return msg.NakWithDelay(d) })
			return
		case <-beats:
			heartbeat()
		case <-late.C:
			// The handler ignored its deadline: the heartbeat stops, so JetStream redelivers the
			// message after AckWait; this slot stays taken until the handler returns, so the
			// concurrency limit (and the memory sized from it) holds.
			beats = nil
			s.log.Warn("handler still running after its deadline; JetStream redelivers the request after AckWait, and its slot stays taken until it returns",
				"subject", msg.Subject(), "deadline", s.budget.String())
		case <-s.closing:
			// Shutdown gave up on it: JetStream redelivers after AckWait; the late outcome is dropped.
			return
		}
	}
}

// heartbeatInterval is how often a message being worked on is reported in progress: three times per
// AckWait, so one lost heartbeat does not cost a redelivery.
func heartbeatInterval(ackWait time.Duration) time.Duration {
	return max(ackWait/3, 100*time.Millisecond)
}

type settleByKey struct{}

// beatHook is what a message's handler does with each of its delivery's heartbeats (the pipeline
// writes its running marker again: running.go).
type beatHook struct{ f atomic.Pointer[func()] }

type beatHookKey struct{}

func (h *beatHook) beat() {
	if f := h.f.Load(); f != nil {
		(*f)()
	}
}

// onBeat makes f run with every heartbeat of ctx's delivery from now on (nil: nothing); outside
// the pipeline it does nothing.
func onBeat(ctx context.Context, f func()) {
	h, ok := ctx.Value(beatHookKey{}).(*beatHook)
	switch {
	case !ok:
	case f == nil:
		h.f.Store(nil)
	default:
		h.f.Store(&f)
	}
}

// settleBy returns the deadline by which a message's work (handler, reply, dead letter) must be done:
// past it the heartbeat stops and JetStream redelivers the message. ok is false outside the pipeline.
func settleBy(ctx context.Context) (time.Time, bool) {
	t, ok := ctx.Value(settleByKey{}).(time.Time)
	return t, ok
}

// DeliveryBudget is how long one delivery of a request may be worked on, heartbeats keeping it from
// redelivery: 3 x handlerTimeout (two attempts, the in-process retry included, then the reply or the
// dead letter).
func DeliveryBudget(handlerTimeout time.Duration) time.Duration { return 3 * handlerTimeout }

// settle sends an ack or nak on a short context of its own. Only a confirmed ack (DoubleAck) waits on
// it; Ack and Nak return once sent, and Shutdown flushes what was sent.
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
// wait for messages still in flight (JetStream redelivers them): call waitIdle first.
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
