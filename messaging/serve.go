package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/internal/gcpace"
	"github.com/agentworks/artifact-worker/scope"
)

// serve is the innermost step: process the message and publish the reply. A permanent handler error
// is answered here and the message acked; a transient or poison failure is returned for the
// middleware to retry or dead-letter.
func (p *Pipeline) serve(subject string, h Handler) message.NoPublishHandlerFunc {
	return func(m *message.Message) error {
		// What this attempt reserves of the memory budget goes back once its reply is out.
		ctx, release := p.deps.Budget.Attach(m.Context())
		defer release()
		st := stateOf(ctx)
		replyTo := m.Metadata.Get(contracts.HeaderReplyTo)
		if replyTo != "" && !replyAllowed(subject, replyTo) {
			return invalidRequest("Reply-To", "header Reply-To %q is not a subject a reply can be published to", replyTo)
		}
		hdr := nats.Header{}
		if c := m.Metadata.Get(contracts.HeaderClaimCheck); c != "" {
			hdr.Set(contracts.HeaderClaimCheck, c)
		}
		if v, ok := m.Metadata[contracts.HeaderScope]; ok {
			hdr[contracts.HeaderScope] = strings.Split(v, scopeSeparator)
		}
		// process, not Process: an error returned here is answered by finalize, which completes the
		// reply it sends; only the error reply sent below is completed here.
		var (
			body     []byte
			key      string
			recalled *replyRecord
		)
		proc := Processor{Claims: p.claimsFor(subject), MapError: p.deps.MapError, Envelope: p.deps.Envelope, Handler: h, RequireScope: p.cfg.RequireScope,
			recallAlongside: slices.Contains(p.cfg.ReadOnly, subject)}
		if p.deps.Replies != nil {
			// A request that already ran (asked again, redelivered after a lost ack) is answered with
			// its recorded reply instead of running again; one still running elsewhere is waited for
			// (running.go). Otherwise this delivery claims it, and its heartbeat keeps the claim.
			proc.recall = func(ctx context.Context, requestID string, body []byte) (bool, error) {
				key = ReplyKey(subject, requestID, m.Metadata, body)
				if st.run != nil && st.run.key == key {
					// An in-process retry: this delivery holds the claim. Its record, when an attempt
					// stored one before failing (its reply not confirmed), answers.
					if !st.run.isRecorded() {
						return false, nil
					}
					rec, err := p.deps.Replies.get(ctx, key)
					recalled = rec
					return rec != nil, err
				}
				d := deliveryOf(m)
				rec, run, err := p.deps.Replies.claim(ctx, key, marker{seq: d.sequence, delivery: d.count}, p.lease())
				recalled = rec
				if run != nil {
					st.run = run
					onBeat(ctx, run.refresh)
				}
				return rec != nil, err
			}
		}
		out, err := process(ctx, proc, Message{
			Subject: subject, Header: hdr, Data: m.Payload, Delivery: deliveryOf(m).count,
		}, &body)
		st.bytesIn = out.BytesIn
		st.refusal = out.Refusal
		st.claimedIn = out.BytesIn > 0 && hdr.Get(contracts.HeaderClaimCheck) != ""
		if out.Reply.RequestID != "" {
			st.requestID = out.Reply.RequestID
		}
		if err != nil {
			return err
		}
		rctx, cancel := replyContext(ctx)
		defer cancel()
		if recalled != nil {
			st.outcome = outcomeReplayed
			if replyTo == "" {
				return nil
			}
			msg := recalled.message(replyTo)
			if err := p.send(rctx, msg); err != nil {
				return err
			}
			st.bytesOut, st.claimedOut = len(msg.Data), recalled.ClaimCheck != ""
			return nil
		}
		if out.Reply.OK {
			st.outcome = outcomeOK
		} else {
			out.Reply.Error = p.completeError(subject, body, out.Reply.Error)
			st.outcome, st.code = outcomeErrorReply, out.Reply.Error.Code
		}
		// The reply (rctx above) gets a deadline of its own, not the attempt's: a slow handler must
		// not leave a large reply's claim check without time (a failed reply is retried, and with it
		// the whole handler). It ends at the delivery's deadline, where the heartbeat stops.
		// A large result (a 20 MB PDF sent whole) stays alive until its reply is published.
		defer gcpace.Hold(int64(len(out.Reply.Result)))()
		var rec *recording
		if p.deps.Replies != nil {
			// The record goes out right behind the reply, on the same connection, and is confirmed
			// before the request is acked: a request asked again from then on is answered with it
			// (meanwhile, this delivery's running marker makes it wait for the record).
			rec = &recording{replies: p.deps.Replies, key: key, subject: subject, requestID: out.Reply.RequestID, done: func(err error) {
				if err != nil {
					p.deps.Logger.WarnContext(ctx, "reply record not stored; the request runs again if asked again", "subject", subject, "request_id", out.Reply.RequestID, "error", err.Error())
				} else if st.run != nil {
					st.run.setRecorded()
				}
			}}
		}
		n, claimed, err := p.replyWith(rctx, p.claimsFor(subject), replyTo, out.Reply, rec)
		st.bytesOut, st.claimedOut = n, claimed
		return err
	}
}

// lease is how long a running marker not written again stays its owner's: AckWait, after which
// JetStream redelivers a message whose heartbeats stopped (three heartbeats missed). The redelivery
// of a dead owner's request so finds its marker just expired.
func (p *Pipeline) lease() time.Duration { return p.cfg.Topology.AckWait }

// endRun ends the delivery's claim on its request (running.go), once its fate is decided: the
// marker is no longer written with the heartbeat, and deleted when no record replaced it.
func endRun(ctx context.Context) {
	st := stateOf(ctx)
	if st.run == nil {
		return
	}
	onBeat(ctx, nil)
	st.run.end()
}

// echoableID returns id when a reply may echo it as its request_id (valid UTF-8, at most
// contracts.MaxIDLen bytes), else "".
func echoableID(id string) string {
	if len(id) > contracts.MaxIDLen || !utf8.ValidString(id) {
		return ""
	}
	return id
}

// replyTimeout bounds publishing one reply, claim check included, when the message has no settle
// deadline.
const replyTimeout = 30 * time.Second

// replyContext is ctx without its cancellation (the attempt's timeout), ending at the message's settle
// deadline (DeliveryBudget after delivery), or after replyTimeout outside the pipeline.
func replyContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if by, ok := settleBy(ctx); ok {
		return context.WithDeadline(context.WithoutCancel(ctx), by)
	}
	return context.WithTimeout(context.WithoutCancel(ctx), replyTimeout)
}

// Message is a request as stored in the stream.
type Message struct {
	Subject string
	Header  nats.Header
	Data    []byte
	// Delivery counts deliveries, 1 on the first.
	Delivery uint64
}

// Encoded is a handler result that is already valid, compact JSON (handling.Encoded); Process puts
// it into the reply as it is.
type Encoded = handling.Encoded

// Processor runs requests through a handler. Claims resolves claim-checked bodies.
type Processor struct {
	Claims   *claimcheck.Store
	MapError ErrorMapper
	// Envelope decodes the request_id; nil means DecodeEnvelope.
	Envelope EnvelopeDecoder
	// CompleteError, optional, completes the error reply (see ErrorCompleter).
	CompleteError ErrorCompleter
	Handler       Handler
	// recall, when set, is asked before the handler runs whether the request already ran or runs
	// elsewhere (the pipeline's reply records and running markers, waiting for the record of a
	// running one), and claims it otherwise; true ends processing with Outcome.Recalled.
	recall func(ctx context.Context, requestID string, body []byte) (bool, error)
	// recallAlongside asks recall while the handler runs, not before (Config.ReadOnly).
	recallAlongside bool
	// RequireScope makes a request without the scope header (contracts.HeaderScope) invalid.
	RequireScope bool
}

// EnvelopeDecoder returns the request_id of a resolved request body. An error (a
// *contracts.Error, or any error, which becomes invalid_request) makes the request poison: it is
// answered and dead-lettered. The handlers package provides the worker's (handlers.DecodeEnvelope).
type EnvelopeDecoder = handling.EnvelopeDecoder

// DecodeEnvelope is the minimal EnvelopeDecoder: the body is a JSON object with a non-empty string
// request_id.
func DecodeEnvelope(body []byte) (string, error) {
	var env contracts.Envelope
	if err := json.Unmarshal(body, &env); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field == "request_id" {
			return "", &contracts.Error{Code: contracts.CodeInvalidRequest, Message: "request_id must be a JSON string, not " + te.Value, Field: "request_id"}
		}
		return "", &contracts.Error{Code: contracts.CodeInvalidRequest, Message: fmt.Sprintf("request body is not a JSON object: %v", err)}
	}
	if env.RequestID == "" {
		return "", &contracts.Error{Code: contracts.CodeInvalidRequest, Message: "request_id is required", Field: "request_id"}
	}
	return env.RequestID, nil
}

// Outcome is what processing a request produced.
type Outcome struct {
	// Reply is the reply the caller gets: on success, or a permanent error, or (with a non-nil
	// error from Process) the error reply the pipeline sends once it gives up.
	Reply contracts.Reply
	// BytesIn is the size of the resolved body.
	BytesIn int
	// Recalled: the request already ran (or ran meanwhile elsewhere); its recorded reply answers it
	// (the pipeline only).
	Recalled bool
	// Refusal, when not nil, says the handler refused a reference outside the request's scope
	// (answered as not found).
	Refusal *scope.Refusal
}

// Process runs one request through the handler as the pipeline does, without NATS delivery: it
// resolves the claim check, decodes the envelope, runs the handler and maps its error. A nil error
// means Reply is final (ok, or a permanent error). A *RequestError (poison) or a transient error is
// returned as is; Reply then holds the error reply the caller would get when the pipeline gives up.
// `worker replay` uses it to run stored requests through the current code.
func Process(ctx context.Context, p Processor, m Message) (Outcome, error) {
	var body []byte
	out, err := process(ctx, p, m, &body)
	if out.Reply.Error != nil && p.CompleteError != nil {
		out.Reply.Error = p.CompleteError(m.Subject, body, out.Reply.Error)
	}
	return out, err
}

// process is Process without completing the error; it leaves the resolved body in *resolved.
func process(ctx context.Context, p Processor, m Message, resolved *[]byte) (Outcome, error) {
	var out Outcome
	// A request without a usable request_id is answered with its Nats-Msg-Id, when that is one.
	out.Reply.RequestID = echoableID(m.Header.Get(contracts.HeaderMsgID))
	fail := func(err error) (Outcome, error) {
		var re *RequestError
		if errors.As(err, &re) {
			out.Reply.Error = re.Wire
		} else {
			out.Reply.Error, _ = p.MapError(err)
		}
		return out, err
	}
	body, err := p.Claims.Resolve(ctx, m.Header, m.Data)
	switch {
	case errors.Is(err, claimcheck.ErrExpired):
		return fail(&RequestError{Wire: &contracts.Error{Code: contracts.CodeInvalidRequest, Message: err.Error(), Field: contracts.HeaderClaimCheck}})
	case errors.Is(err, claimcheck.ErrTooLarge):
		return fail(&RequestError{Wire: &contracts.Error{Code: contracts.CodePayloadTooLarge, Message: err.Error(), Field: contracts.HeaderClaimCheck}})
	}
	if err != nil {
		return fail(err)
	}
	out.BytesIn = len(body)
	*resolved = body
	// A large body (a claim-checked context) stays alive until the reply is built.
	defer gcpace.Hold(int64(len(body)))()
	envelope := p.Envelope
	if envelope == nil {
		envelope = DecodeEnvelope
	}
	requestID, err := envelope(body)
	if err != nil {
		var wire *contracts.Error
		if !errors.As(err, &wire) {
			wire = &contracts.Error{Code: contracts.CodeInvalidRequest, Message: err.Error()}
		}
		return fail(&RequestError{Wire: wire})
	}
	out.Reply.RequestID = requestID
	sc, err := requestScope(m.Header, p.RequireScope)
	if err != nil {
		return fail(err)
	}
	ctx = scope.With(ctx, sc)
	req := Request{Subject: m.Subject, RequestID: requestID, Body: body, Delivery: m.Delivery}
	var (
		result any
		ran    bool
	)
	if p.recall != nil {
		var found bool
		if p.recallAlongside {
			// The handler changes nothing but its reply: it runs while the record is looked up (one
			// round trip less per request), and its result is dropped when a record answers.
			type lookup struct {
				found bool
				err   error
			}
			done := make(chan lookup, 1)
			go func() {
				found, err := p.recall(ctx, requestID, body)
				done <- lookup{found, err}
			}()
			result, err = p.Handler(ctx, req)
			ran = true
			l := <-done
			if l.err != nil {
				return fail(l.err)
			}
			found = l.found
		} else if found, err = p.recall(ctx, requestID, body); err != nil {
			return fail(err)
		}
		if found {
			out.Recalled = true
			return out, nil
		}
	}
	if !ran {
		result, err = p.Handler(ctx, req)
	}
	out.Refusal = scope.Refused(ctx)
	if err != nil {
		wire, transient := p.MapError(err)
		if transient {
			out.Reply.Error = wire
			return out, err
		}
		out.Reply.Error = wire
		return out, nil
	}
	if enc, ok := result.(Encoded); ok {
		out.Reply.Result = json.RawMessage(enc)
	} else if out.Reply.Result, err = json.Marshal(result); err != nil {
		return fail(fmt.Errorf("encode result: %w", err))
	}
	out.Reply.OK = true
	return out, nil
}

// requestScope reads the request's scope header (contracts.HeaderScope). A malformed header, a
// repeated one, or (with required) a missing one makes the request poison: invalid_request.
func requestScope(h nats.Header, required bool) (scope.Scope, error) {
	var vs []string
	for k, v := range h {
		if strings.EqualFold(k, contracts.HeaderScope) {
			vs = append(vs, v...)
		}
	}
	switch {
	case len(vs) == 0 && required:
		return scope.Scope{}, invalidRequest(contracts.HeaderScope, "header %s is required by this worker (REQUIRE_SCOPE): the runtime sets it to what the call may read (*, ws:<workspaceId>, artifact:<prefix>*)", contracts.HeaderScope)
	case len(vs) == 0:
		return scope.Unscoped, nil
	case len(vs) > 1:
		return scope.Scope{}, invalidRequest(contracts.HeaderScope, "header %s is given %d times; give it once, its entries separated by ','", contracts.HeaderScope, len(vs))
	}
	sc, err := scope.Parse(vs[0])
	if err != nil {
		return scope.Scope{}, invalidRequest(contracts.HeaderScope, "%s", err.Error())
	}
	return sc, nil
}

// completeError completes an error reply the pipeline builds itself (see ErrorCompleter).
func (p *Pipeline) completeError(subject string, body []byte, e *contracts.Error) *contracts.Error {
	if p.deps.CompleteError == nil || e == nil {
		return e
	}
	return p.deps.CompleteError(subject, body, e)
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
