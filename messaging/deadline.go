package messaging

import (
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"github.com/agentworks/artifact-worker/contracts"
)

// expire is the step between finalize and the attempts: before any work on a delivery starts, it
// reads the request's deadline (contracts.HeaderDeadline, else Config.DefaultDeadline after the
// stream stored it). A request past its deadline is not executed: its claim-checked body is not
// downloaded, no handler runs. It is answered contracts.CodeExpired when it has a usable Reply-To
// (a reply that cannot be published is not retried: its caller has given up), counted, and acked.
// A deadline that is not an RFC 3339 time makes the request poison (invalid_request, dead letter).
func (p *Pipeline) expire(h message.HandlerFunc) message.HandlerFunc {
	return func(m *message.Message) ([]*message.Message, error) {
		deadline, err := p.deadlineOf(m)
		if err != nil {
			return nil, err
		}
		if deadline.IsZero() || p.now().Before(deadline) {
			return h(m)
		}
		ctx := m.Context()
		st := stateOf(ctx)
		d := deliveryOf(m)
		st.outcome, st.code = outcomeExpired, contracts.CodeExpired
		reqID := echoableID(m.Metadata.Get(contracts.HeaderMsgID))
		if reqID == "" && len(m.Payload) > 0 {
			reqID, _ = p.deps.Envelope(m.Payload)
			reqID = echoableID(reqID)
		}
		if reqID != "" {
			st.requestID = reqID
		}
		if replyTo := m.Metadata.Get(contracts.HeaderReplyTo); replyAllowed(d.subject, replyTo) {
			// A claim-checked body is not downloaded: the error's assembly takes the defaults.
			wire := p.completeError(d.subject, m.Payload, &contracts.Error{
				Code:    contracts.CodeExpired,
				Message: "the request's deadline " + contracts.FormatDeadline(deadline) + " passed before a worker started it; it was not executed",
			})
			rctx, cancel := replyContext(ctx)
			defer cancel()
			if _, _, err := p.replyWith(rctx, p.claimsFor(d.subject), replyTo, contracts.Reply{RequestID: reqID, Error: wire}, nil); err != nil {
				p.deps.Logger.WarnContext(ctx, "expired reply not sent", "subject", d.subject, "request_id", reqID, "error", err.Error())
			}
		}
		return nil, nil
	}
}

// deadlineOf returns the deadline of m: its HeaderDeadline, else DefaultDeadline after the time the
// stream stored it (zero when that time is unknown: no deadline).
func (p *Pipeline) deadlineOf(m *message.Message) (time.Time, error) {
	if v := m.Metadata.Get(contracts.HeaderDeadline); v != "" {
		t, err := contracts.ParseDeadline(v)
		if err != nil {
			return time.Time{}, invalidRequest(contracts.HeaderDeadline, "%s", err.Error())
		}
		return t, nil
	}
	if stored := storedAt(m); !stored.IsZero() {
		return stored.Add(p.cfg.DefaultDeadline), nil
	}
	return time.Time{}, nil
}

func (p *Pipeline) now() time.Time {
	if p.clock != nil {
		return p.clock()
	}
	return time.Now()
}
