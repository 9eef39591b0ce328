package messaging

// Middleware order, outermost first, and why:
//
//  1. admit     while shutting down, hand a message that slipped in straight back to JetStream (nak,
//     no delay) instead of starting it.
//  2. takeSlot  with Config.WorkSlots, wait for one of the replica's shared work slots, within the
//     share and in the turn of the request's group (fairgate.go); while it waits the heartbeat
//     keeps the message. One that waited past its wait limit, or was waiting when shutdown began,
//     is handed back.
//  3. observe   one span per message continuing the caller's traceparent, metrics, and one log line
//     per outcome. It wraps everything below so it sees the final outcome, retries included.
//  4. finalize  decides a failed message's fate: transient and deliveries left -> return the error
//     (nak with back-off, JetStream redelivers); permanent, poison, panic or last delivery -> error
//     reply to the caller, dead letter with the reason, ack.
//  5. expire    a request past its deadline is not started: answered expired, counted, acked (no
//     attempt, no claim-check download). Inside finalize, so a malformed deadline is dead-lettered.
//  6. Recoverer (watermill) turns a panic into an error, so a panic never kills the worker; finalize
//     treats it as permanent.
//  7. Retry (watermill) retries transient errors only, in-process, with exponential back-off.
//  8. Timeout (watermill) gives each attempt a deadline (HandlerTimeout).
//  9. serve     resolves the claim check, decodes, runs the handler, replies.

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/backoff"
	"github.com/agentworks/artifact-worker/scope"
)

// Outcomes, as logged and counted.
const (
	outcomeOK         = "ok"
	outcomeErrorReply = "error_reply"
	outcomeRetry      = "retry"
	outcomeDeadLetter = "dead_letter"
	outcomeHandedBack = "handed_back"
	outcomeExpired    = "expired"
	// outcomeReplayed: the request had already run; its recorded reply answered it (Deps.Replies).
	outcomeReplayed = "replayed"
	// outcomeLost: an exhausted request that could be neither read back nor dead-lettered.
	outcomeLost = "lost"
)

var errHandedBack = errors.New("worker is shutting down: message handed back for redelivery")

func (p *Pipeline) admit(h message.HandlerFunc) message.HandlerFunc {
	return func(m *message.Message) ([]*message.Message, error) {
		if p.draining.Load() {
			p.metrics.record(m.Context(), deliveryOf(m).subject, &state{outcome: outcomeHandedBack}, 0)
			return nil, errHandedBack
		}
		return h(m)
	}
}

// takeSlot waits for a shared work slot (Config.WorkSlots) in the turn of the request's group and
// holds it while the request is worked on. The wait ends at the delivery's budget less two handler
// timeouts, so the attempts, the reply and the dead letter keep their time; a request that waited
// that long (HandlerTimeout after it was fetched, by default) is handed back for another replica,
// as is one waiting when shutdown begins.
func (p *Pipeline) takeSlot(h message.HandlerFunc) message.HandlerFunc {
	if p.gate == nil {
		return h
	}
	return func(m *message.Message) ([]*message.Message, error) {
		ctx := m.Context()
		if by, ok := settleBy(ctx); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, by.Add(-2*p.cfg.HandlerTimeout))
			defer cancel()
		}
		subject := deliveryOf(m).subject
		group := ""
		if p.cfg.Group != nil {
			group = p.cfg.Group(subject)
		}
		err := p.gate.acquire(ctx, group)
		if err == nil && p.draining.Load() {
			// Shutdown began while it waited: not started, like one waiting when it began.
			p.gate.release(group)
			err = errGateStopped
		}
		if err != nil {
			p.metrics.record(m.Context(), subject, &state{outcome: outcomeHandedBack}, 0)
			if !errors.Is(err, errGateStopped) {
				p.deps.Logger.Warn("no work slot within the wait limit; request handed back for redelivery", "subject", subject, "work_slots", p.cfg.WorkSlots)
			}
			return nil, errHandedBack
		}
		defer p.gate.release(group)
		return h(m)
	}
}

// state is what the inner steps tell observe about a message.
type state struct {
	requestID string
	outcome   string
	code      string
	bytesIn   int
	bytesOut  int
	// claimedIn and claimedOut: the request or the reply travelled by claim check.
	claimedIn  bool
	claimedOut bool
	// reason is the dead-letter reason (DeadLetterReasons) when outcome is dead_letter.
	reason string
	// refusal: the handler refused something outside the request's scope.
	refusal *scope.Refusal
	err     error
	// run: this delivery's claim on its request (running.go), across its in-process retries.
	run *run
}

type stateKey struct{}

func stateOf(ctx context.Context) *state {
	if st, ok := ctx.Value(stateKey{}).(*state); ok {
		return st
	}
	return &state{}
}

func (p *Pipeline) finalize(h message.HandlerFunc) message.HandlerFunc {
	return func(m *message.Message) ([]*message.Message, error) {
		// The message's context before the attempts: Timeout cancels theirs.
		ctx := m.Context()
		defer endRun(ctx)
		_, err := h(m)
		if err == nil {
			return nil, nil
		}
		st := stateOf(ctx)
		d := deliveryOf(m)
		st.err = err
		if p.transient(err) && d.count < uint64(p.cfg.Topology.MaxDeliver) {
			st.outcome = outcomeRetry
			return nil, err
		}
		wire, kind, reason := p.wireError(err, d)
		wire = p.completeError(d.subject, m.Payload, wire)
		st.outcome, st.code, st.reason = outcomeDeadLetter, wire.Code, kind
		reqID := st.requestID
		if reqID == "" {
			reqID = m.Metadata.Get(contracts.HeaderMsgID)
		}
		reqID = echoableID(reqID) // st.requestID may be a Nats-Msg-Id a reply must not echo
		if replyTo := m.Metadata.Get(contracts.HeaderReplyTo); replyAllowed(d.subject, replyTo) {
			if _, _, rerr := p.replyWith(ctx, p.claimsFor(d.subject), replyTo, contracts.Reply{RequestID: reqID, Error: wire}, nil); rerr != nil {
				p.deps.Logger.WarnContext(ctx, "error reply not sent", "subject", d.subject, "request_id", reqID, "error", rerr.Error())
			}
		}
		if derr := p.deadLetterWithRetry(ctx, m, d, reason); derr != nil {
			// Not acked: JetStream redelivers it (or, after the last delivery, its max-deliveries
			// advisory reaches a replica) and the dead letter is tried again.
			st.outcome = outcomeRetry
			return nil, fmt.Errorf("dead letter: %w (after %w)", derr, err)
		}
		return nil, nil
	}
}

// wireError maps a final failure to the caller's error, the dead-letter reason (DeadLetterReasons)
// and the Dead-Letter-Reason header.
func (p *Pipeline) wireError(err error, d delivery) (*contracts.Error, string, string) {
	var re *RequestError
	switch {
	case errors.As(err, &re):
		return re.Wire, ReasonPoison, "poison: " + re.Wire.Message
	case isPanic(err):
		return &contracts.Error{Code: contracts.CodeInternal, Message: "the worker failed on this request; it was dead-lettered for inspection"}, ReasonPanic, "panic: " + firstLine(err.Error())
	case p.transient(err):
		return &contracts.Error{
			Code:      contracts.CodeUnavailable,
			Message:   fmt.Sprintf("a dependency stayed unavailable over %d deliveries: %v", d.count, err),
			Retryable: true,
		}, ReasonMaxDeliveries, fmt.Sprintf("max deliveries (%d) exhausted: %v", d.count, err)
	default:
		wire, _ := p.deps.MapError(err)
		return wire, ReasonPermanent, "permanent: " + err.Error()
	}
}

// deadLetterWithRetry publishes the dead letter, retrying a failed publish in place: 6 attempts,
// 0.1 s to 1.6 s apart.
func (p *Pipeline) deadLetterWithRetry(ctx context.Context, m *message.Message, d delivery, reason string) error {
	var err error
	for attempt := 0; ; attempt++ {
		if err = p.deadLetter(ctx, m, d, reason); err == nil || attempt == deadLetterAttempts-1 {
			return err
		}
		if deadLetterBackoff.Sleep(ctx, attempt) != nil {
			return err
		}
	}
}

const deadLetterAttempts = 6

var deadLetterBackoff = backoff.Policy{Initial: 100 * time.Millisecond, Max: 2 * time.Second}

// deadLetter publishes m on deadletter.<subject> with JetStream (acknowledged by the
// WORKER_DEADLETTER stream) under ctx, with the reason headers. Its Nats-Msg-Id names the request's
// stream sequence: a request dead-lettered twice within the stream's duplicate window (a retried
// publish, a redelivery whose ack was lost, the max-deliveries advisory) is stored once.
func (p *Pipeline) deadLetter(ctx context.Context, m *message.Message, d delivery, reason string) error {
	msg := &nats.Msg{Subject: contracts.DeadLetterPrefix + d.subject, Data: m.Payload, Header: nats.Header{}}
	for k, v := range m.Metadata {
		switch k {
		case mdSubject, mdSequence, mdDelivered, contracts.HeaderMsgID, contracts.HeaderReplyTo:
		default:
			msg.Header.Set(k, v)
		}
	}
	msg.Header.Set(contracts.HeaderDeadLetterReason, reason)
	msg.Header.Set(contracts.HeaderOriginalSubject, d.subject)
	msg.Header.Set(contracts.HeaderStreamSequence, strconv.FormatUint(d.sequence, 10))
	msg.Header.Set(contracts.HeaderDeliveryCount, strconv.FormatUint(d.count, 10))
	if r := m.Metadata.Get(contracts.HeaderReplyTo); r != "" {
		msg.Header.Set(contracts.HeaderDeadLetterReplyTo, r)
	}
	msg.Header.Set(nats.MsgIdHdr, "deadletter-"+d.subject+"-"+strconv.FormatUint(d.sequence, 10))
	if _, err := p.js.PublishMsg(ctx, msg); err != nil {
		return fmt.Errorf("dead letter to %s: %w", msg.Subject, err)
	}
	return nil
}

func isPanic(err error) bool {
	var pe middleware.RecoveredPanicError
	return errors.As(err, &pe)
}

func firstLine(s string) string {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
