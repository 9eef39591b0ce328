package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
)

// exhaustedQueue is the queue group of the advisory subscription: one replica answers each.
const exhaustedQueue = "artifact-worker-exhausted"

// maxDeliveriesAdvisory is the part of JetStream's io.nats.jetstream.advisory.v1.max_deliver event
// the worker reads.
type maxDeliveriesAdvisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// watchExhausted answers the requests JetStream gives up on without the pipeline seeing it: the last
// delivery died with its worker (SIGKILL, OOM), outlived its deadline, or was handed back by a replica
// shutting down. The server then publishes a max-deliveries advisory; one replica (queue group)
// answers the caller with unavailable and dead-letters the request, as finalize does for the failures
// it sees itself (the dead letter retried in place as finalize retries it). Every advisory ends in an
// outcome: dead_letter, or lost (counted and logged at error level, with the stream sequence to
// replay) when the request could not be read or the dead letter could not be published within
// the attempts; an unreadable advisory is logged as an error too.
func (p *Pipeline) watchExhausted() (*nats.Subscription, error) {
	subject := "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + p.cfg.Topology.Stream + ".*"
	return p.deps.PubConn.QueueSubscribe(subject, exhaustedQueue, func(m *nats.Msg) {
		var adv maxDeliveriesAdvisory
		if err := json.Unmarshal(m.Data, &adv); err != nil || adv.StreamSeq == 0 {
			p.deps.Logger.Error("unreadable max-deliveries advisory: a request may be left unanswered", "subject", m.Subject)
			return
		}
		p.answers.Add(1)
		go func() {
			defer p.answers.Add(-1)
			p.answerExhausted(adv)
		}()
	})
}

func (p *Pipeline) answerExhausted(adv maxDeliveriesAdvisory) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	log := p.deps.Logger.With("stream_seq", adv.StreamSeq, "consumer", adv.Consumer)
	subject := "" // the request's subject: its consumer's until the request is read
	for _, sub := range contracts.RequestSubjects {
		if ConsumerName(sub) == adv.Consumer {
			subject = sub
		}
	}
	lost := func(why string, err error) {
		p.metrics.record(ctx, subject, &state{outcome: outcomeLost, reason: ReasonNoOutcome}, 0)
		log.LogAttrs(ctx, slog.LevelError, "request",
			slog.String("subject", subject), slog.String("outcome", outcomeLost), slog.Uint64("delivery", adv.Deliveries),
			slog.String("error", why+": "+err.Error()))
	}
	var raw *jetstream.RawStreamMsg
	var err error
	// Retried as the dead letter is (deadLetterAttempts, deadLetterBackoff); a message that is gone
	// (deleted, aged out) is not looked up again.
	for attempt := 0; attempt < deadLetterAttempts; attempt++ {
		var stream jetstream.Stream
		if stream, err = p.js.Stream(ctx, adv.Stream); err == nil {
			raw, err = stream.GetMsg(ctx, adv.StreamSeq)
		}
		if err == nil || errors.Is(err, jetstream.ErrMsgNotFound) || deadLetterBackoff.Sleep(ctx, attempt) != nil {
			break
		}
	}
	if err != nil {
		lost("exhausted request not answered: lookup failed", err)
		return
	}
	m := message.NewMessage(raw.Header.Get(contracts.HeaderMsgID), raw.Data)
	for k, v := range raw.Header {
		if len(v) > 0 {
			m.Metadata.Set(k, v[0])
		}
	}
	d := delivery{subject: raw.Subject, sequence: adv.StreamSeq, count: adv.Deliveries}
	reqID := echoableID(m.Metadata.Get(contracts.HeaderMsgID))
	body := raw.Data
	if reqID == "" || (len(body) == 0 && raw.Header.Get(contracts.HeaderClaimCheck) != "") {
		if b, err := p.claimsFor(d.subject).Resolve(ctx, raw.Header, raw.Data); err == nil {
			body = b
			if reqID == "" {
				reqID, _ = p.deps.Envelope(body)
			}
		}
	}
	wire := p.completeError(d.subject, body, &contracts.Error{
		Code:      contracts.CodeUnavailable,
		Message:   "the request was delivered " + strconv.FormatUint(adv.Deliveries, 10) + " times without completing (a worker stopped or timed out while handling it)",
		Retryable: true,
	})
	if replyTo := m.Metadata.Get(contracts.HeaderReplyTo); replyAllowed(d.subject, replyTo) {
		if _, _, err := p.replyWith(ctx, p.claimsFor(d.subject), replyTo, contracts.Reply{RequestID: reqID, Error: wire}, nil); err != nil {
			log.Warn("exhausted request: error reply not sent", "error", err.Error())
		}
	}
	reason := "max deliveries (" + strconv.FormatUint(adv.Deliveries, 10) + ") exhausted without an outcome"
	if err := p.deadLetterWithRetry(ctx, m, d, reason); err != nil {
		lost("exhausted request not dead-lettered", err)
		return
	}
	p.metrics.record(ctx, d.subject, &state{outcome: outcomeDeadLetter, code: wire.Code, reason: ReasonNoOutcome}, 0)
	log.LogAttrs(ctx, slog.LevelWarn, "request",
		slog.String("subject", d.subject), slog.String("request_id", reqID), slog.String("outcome", outcomeDeadLetter),
		slog.Uint64("delivery", d.count), slog.String("code", wire.Code), slog.String("error", reason))
}
