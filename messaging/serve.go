package messaging

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
)

// serve is the innermost step: resolve the claim check, decode the envelope, run the handler, reply.
// A permanent handler error is answered here and the message acked; anything else is returned for
// the middleware to retry or dead-letter.
func (p *Pipeline) serve(subject string, h Handler) message.NoPublishHandlerFunc {
	return func(m *message.Message) error {
		ctx := m.Context()
		st := stateOf(ctx)
		replyTo := m.Metadata.Get(contracts.HeaderReplyTo)
		if replyTo != "" && !validReplySubject(replyTo) {
			return invalidRequest("Reply-To", "header Reply-To %q is not a subject a reply can be published to", replyTo)
		}
		body, err := p.deps.Claims.Resolve(ctx, nats.Header{contracts.HeaderClaimCheck: {m.Metadata.Get(contracts.HeaderClaimCheck)}}, m.Payload)
		if errors.Is(err, claimcheck.ErrExpired) {
			return &RequestError{Wire: &contracts.Error{Code: contracts.CodeInvalidRequest, Message: err.Error(), Field: contracts.HeaderClaimCheck}}
		}
		if err != nil {
			return err
		}
		st.bytesIn = len(body)
		var env contracts.Envelope
		if err := json.Unmarshal(body, &env); err != nil {
			return invalidRequest("", "request body is not a JSON object: %v", err)
		}
		if env.RequestID == "" {
			return invalidRequest("request_id", "request_id is required")
		}
		st.requestID = env.RequestID
		result, err := h(ctx, Request{Subject: subject, RequestID: env.RequestID, Body: body, Delivery: deliveryOf(m).count})
		reply := contracts.Reply{RequestID: env.RequestID, OK: err == nil}
		if err != nil {
			wire, transient := p.deps.MapError(err)
			if transient {
				return err
			}
			reply.Error = wire
			st.outcome, st.code = outcomeErrorReply, wire.Code
		} else {
			if reply.Result, err = json.Marshal(result); err != nil {
				return fmt.Errorf("encode result: %w", err)
			}
			st.outcome = outcomeOK
		}
		n, err := p.reply(ctx, replyTo, reply)
		st.bytesOut = n
		return err
	}
}

// transient reports whether err is worth retrying.
func (p *Pipeline) transient(err error) bool {
	var re *RequestError
	if errors.As(err, &re) || isPanic(err) {
		return false
	}
	_, t := p.deps.MapError(err)
	return t
}
