package messaging

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"

	"github.com/agentworks/artifact-worker/contracts"
)

// RequestReplyConfig configures the plain request/reply front (see StartRequestReply).
type RequestReplyConfig struct {
	// Subjects are the v1 request subjects to serve (default contracts.RequestSubjects); each gets
	// the endpoint contracts.RequestReplySubject(subject).
	Subjects []string
	// Version is the worker's semantic version, shown by `nats micro info`.
	Version string
	// Metadata is shown by `nats micro info` (commit, contract version).
	Metadata map[string]string
	// PublishTimeout bounds waiting for JetStream's PubAck (default 5s); past it the caller is
	// answered unavailable.
	PublishTimeout time.Duration
	// CompleteError, optional, completes the front's own error replies as the pipeline's are
	// (see ErrorCompleter).
	CompleteError ErrorCompleter
}

func (c *RequestReplyConfig) setDefaults() {
	if len(c.Subjects) == 0 {
		c.Subjects = contracts.RequestSubjects
	}
	if c.PublishTimeout <= 0 {
		c.PublishTimeout = 5 * time.Second
	}
}

// RequestReply is the worker's plain request/reply front: a NATS micro service (`nats micro ls`
// shows it) whose endpoints take a core NATS request on contracts.RequestReplySubject(subject) and
// store it in JetStream on subject, with Reply-To set to the caller's reply inbox and Nats-Msg-Id to
// its request_id. The stored request is then consumed and answered like one published with the v1
// JetStream contract, so the caller's `nc.request` gets the worker's reply and the request is as
// durable (replayable, redelivered to another replica) as any other.
//
// The front answers by itself only when the request could not be stored: duplicate_request when
// JetStream already holds its request_id, unavailable (retryable) when the publish failed.
// Claim-Check, traceparent, tracestate and other application headers are forwarded unchanged, so
// claim check works in both directions.
//
// Endpoints use the queue group contracts.ServiceName: replicas share the requests.
//
// Each endpoint stores its requests one at a time, in the order they arrive (a PubAck takes well under
// a millisecond on a local server), so `nats micro stats` counts the front's own error answers and
// its processing time is the time to store a request; replicas add endpoints to the queue group.
type RequestReply struct {
	svc micro.Service
	js  jetstream.Publisher
	cfg RequestReplyConfig
	log *slog.Logger
}

// StartRequestReply registers the micro service on nc and starts taking requests, which it stores
// with js. Stop it before the pipeline shuts down.
func StartRequestReply(nc *nats.Conn, js jetstream.Publisher, cfg RequestReplyConfig, log *slog.Logger) (*RequestReply, error) {
	cfg.setDefaults()
	f := &RequestReply{js: js, cfg: cfg, log: log}
	md := map[string]string{"contract_version": contracts.Version}
	for k, v := range cfg.Metadata {
		md[k] = v
	}
	svc, err := micro.AddService(nc, micro.Config{
		Name:        contracts.ServiceName,
		Version:     cfg.Version,
		Description: "artifact worker: plain request/reply on " + contracts.RequestReplyPrefix + "<subject>, stored in JetStream before it is handled",
		Metadata:    md,
		QueueGroup:  contracts.ServiceName,
	})
	if err != nil {
		return nil, fmt.Errorf("micro service: %w", err)
	}
	for _, subject := range cfg.Subjects {
		name := strings.NewReplacer(".", "_", "*", "_", ">", "_").Replace(subject)
		err := svc.AddEndpoint(name, f.handler(subject),
			micro.WithEndpointSubject(contracts.RequestReplySubject(subject)),
			micro.WithEndpointMetadata(map[string]string{"stream_subject": subject}))
		if err != nil {
			_ = svc.Stop()
			return nil, fmt.Errorf("micro endpoint %s: %w", name, err)
		}
	}
	f.svc = svc
	return f, nil
}

// Stop unsubscribes the endpoints; a request being stored finishes.
func (f *RequestReply) Stop() error { return f.svc.Stop() }

// handler stores each request within the handler call: micro reads the handler's error answer
// when it returns, for `nats micro stats`.
func (f *RequestReply) handler(subject string) micro.HandlerFunc {
	return func(req micro.Request) { f.store(subject, req) }
}

// forwardedHeader reports whether a caller's header is stored with the request. Reply-To is the
// front's to set; JetStream's own Nats-* headers (expected sequence, TTL, ...) are not the caller's
// to steer, except Nats-Msg-Id, which names the request when its body is claim-checked.
func forwardedHeader(k string) bool {
	if k == contracts.HeaderReplyTo {
		return false
	}
	return !strings.HasPrefix(k, "Nats-") || k == contracts.HeaderMsgID
}

func (f *RequestReply) store(subject string, req micro.Request) {
	msg := &nats.Msg{Subject: subject, Header: nats.Header{}, Data: req.Data()}
	for k, v := range req.Headers() {
		if forwardedHeader(k) {
			msg.Header[k] = append([]string(nil), v...)
		}
	}
	reply := req.Reply()
	if reply != "" {
		if !ValidReplySubject(reply) {
			// Answering there could store a request or forge a dead letter: the request is dropped.
			f.log.Warn("request dropped", "subject", subject, "outcome", "invalid_reply_subject", "reply", reply)
			return
		}
		msg.Header.Set(contracts.HeaderReplyTo, reply)
	}
	id := msg.Header.Get(contracts.HeaderMsgID)
	if id == "" {
		var env contracts.Envelope
		if json.Unmarshal(msg.Data, &env) == nil && echoableID(env.RequestID) != "" {
			id = env.RequestID
			msg.Header.Set(contracts.HeaderMsgID, id)
		}
	}
	id = echoableID(id) // the answers below echo it
	ctx, cancel := context.WithTimeout(context.Background(), f.cfg.PublishTimeout)
	defer cancel()
	ack, err := f.js.PublishMsg(ctx, msg)
	switch {
	case err != nil:
		f.log.Warn("request not stored", "subject", subject, "request_id", id, "outcome", "unavailable", "error", err.Error())
		f.answer(req, subject, id, "503", &contracts.Error{Code: contracts.CodeUnavailable, Retryable: true,
			Message: "JetStream did not acknowledge the request (" + errText(err) + "); it may not be stored, or be stored and answered to nobody: send it again with a new request_id"})
	case ack.Duplicate:
		f.answer(req, subject, id, "409", &contracts.Error{Code: contracts.CodeDuplicateRequest,
			Message: fmt.Sprintf("request_id %q was already sent within the de-duplication window (2 minutes); its reply went to the first sender; use a new request_id", id)})
	}
}

func errText(err error) string {
	if errors.Is(err, context.DeadlineExceeded) {
		return "no acknowledgement in time"
	}
	return err.Error()
}

// answer replies to the caller with an error envelope (and the micro service error headers, which
// count it in `nats micro stats`).
func (f *RequestReply) answer(req micro.Request, subject, requestID, status string, e *contracts.Error) {
	if req.Reply() == "" {
		return
	}
	if f.cfg.CompleteError != nil {
		e = f.cfg.CompleteError(subject, req.Data(), e)
	}
	body, err := json.Marshal(contracts.Reply{RequestID: requestID, Error: e})
	if err != nil {
		return
	}
	hdr := micro.WithHeaders(micro.Headers{contracts.HeaderContractVersion: []string{contracts.Version}})
	if err := req.Error(status, e.Message, body, hdr); err != nil {
		f.log.Warn("reply not sent", "subject", req.Subject(), "request_id", requestID, "error", err.Error())
	}
}
