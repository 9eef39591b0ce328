package messaging

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
)

// replyConfirmTimeout bounds the round trip that proves the server has a reply (a healthy one takes
// milliseconds).
const replyConfirmTimeout = 5 * time.Second

// reply publishes env to replyTo with core NATS, through the claim check when it is too large.
// It returns the number of bytes of the reply body and whether it went by claim check. rec, when
// not nil, records the reply (inline or claim-checked) under rec.key; without a Reply-To, only a
// reply that fits in one message is recorded. The record goes out right behind the reply on the
// same connection, and its confirmation is awaited after the reply's: the two round trips overlap.
func (p *Pipeline) reply(ctx context.Context, replyTo string, env contracts.Reply, rec *recording) (int, bool, error) {
	return p.replyWith(ctx, p.deps.Claims, replyTo, env, rec)
}

// replyWith is reply through the claim-check bucket claims (a tenant's, Deps.SubjectClaims).
func (p *Pipeline) replyWith(ctx context.Context, claims *claimcheck.Store, replyTo string, env contracts.Reply, rec *recording) (int, bool, error) {
	if replyTo == "" && rec == nil {
		return 0, false, nil
	}
	parts, err := encodeReply(env)
	if err != nil {
		return 0, false, err
	}
	hdr := nats.Header{}
	hdr.Set(contracts.HeaderContractVersion, contracts.Version)
	if replyTo == "" {
		if body := bytes.Join(parts, nil); claims.Fits(len(body)) {
			val, err := recordValue(rec.subject, rec.requestID, "", body)
			rec.done(rec.replies.start(rec.key, val, err)(ctx))
		}
		return 0, false, nil
	}
	n := 0
	for _, part := range parts {
		n += len(part)
	}
	// An inline reply that is recorded is published from inside its record's value (the body ends
	// one byte before the value's end): one buffer for both, not a second copy of the reply's base64.
	var val []byte
	if rec != nil && claims.Fits(n) {
		if v, err := recordValue(rec.subject, rec.requestID, "", parts...); err == nil {
			val, parts = v, [][]byte{v[len(v)-1-n : len(v)-1]}
		}
	}
	msg, err := claims.PrepareParts(ctx, replyTo, hdr, parts...)
	if errors.Is(err, claimcheck.ErrFull) {
		p.metrics.claimFull(ctx)
	}
	if err != nil {
		return 0, false, err
	}
	err = p.publish(msg)
	if rec != nil {
		// Recorded even when the reply's publish failed: the retry finds the record and publishes it
		// again, instead of running the request again.
		var verr error
		if claim := msg.Header.Get(contracts.HeaderClaimCheck); val == nil || claim != "" {
			val, verr = recordValue(rec.subject, rec.requestID, claim, msg.Data)
		}
		wait := rec.replies.start(rec.key, val, verr)
		defer func() { rec.done(wait(ctx)) }()
	}
	if err == nil {
		err = p.confirm(ctx, msg)
	}
	if err != nil {
		if name := msg.Header.Get(contracts.HeaderClaimCheck); name != "" && rec == nil && !errors.Is(err, errNotConfirmed) {
			// Nobody will read it: the retry stores the reply again. (A recorded one is the
			// record's: the retry finds the record and publishes it again.)
			_ = claims.Delete(ctx, name)
		}
		return 0, false, err
	}
	return n, msg.Header.Get(contracts.HeaderClaimCheck) != "", nil
}

// errNotConfirmed: a reply was published but the server did not confirm it in time.
var errNotConfirmed = errors.New("not confirmed by the server")

// send publishes a reply message with core NATS and confirms the server has it.
func (p *Pipeline) send(ctx context.Context, msg *nats.Msg) error {
	if err := p.publish(msg); err != nil {
		return err
	}
	return p.confirm(ctx, msg)
}

// publish writes a reply message to the publishing connection (core NATS).
func (p *Pipeline) publish(msg *nats.Msg) error {
	if err := p.deps.PubConn.PublishMsg(msg); err != nil {
		return fmt.Errorf("publish reply to %s: %w", msg.Subject, err)
	}
	return nil
}

// confirm makes a round trip to the server after msg was published: the server has it (and whatever
// was published before it on the connection) once it returns nil.
func (p *Pipeline) confirm(ctx context.Context, msg *nats.Msg) error {
	// Core NATS publishes are fire and forget: a reply written to a connection whose server dies
	// the next moment is lost, while the ack (on the other connection) may still get through. A
	// round trip to the server proves it has the reply before the request is acked; without it
	// the request fails as transient, is redelivered and answered again (at least once).
	// The round trip gets replyConfirmTimeout, not the whole reply context: a confirmation lost with
	// a dying server (or a reconnect that does not carry it through) would otherwise hold the
	// delivery until its budget ends, the heartbeat keeping JetStream from redelivering it, and the
	// caller would wait a minute. Failing after seconds lets the in-process retry answer it.
	fctx, cancel := context.WithTimeout(ctx, replyConfirmTimeout)
	defer cancel()
	if err := p.deps.PubConn.FlushWithContext(fctx); err != nil {
		return fmt.Errorf("publish reply to %s: %w: %w", msg.Subject, errNotConfirmed, err)
	}
	return nil
}

// encodeReply returns the reply's JSON as consecutive parts: the envelope's head, the already-encoded
// result and the closing brace. json.Marshal would validate and compact the result again (a full
// pass over every byte of base64 it carries) and copy it; the result came from json.Marshal (or a
// handler's Encoded) and is valid, compact JSON.
func encodeReply(env contracts.Reply) ([][]byte, error) {
	if !env.OK || len(env.Result) == 0 {
		body, err := json.Marshal(env)
		if err != nil {
			return nil, fmt.Errorf("encode reply: %w", err)
		}
		return [][]byte{body}, nil
	}
	id, err := json.Marshal(env.RequestID)
	if err != nil {
		return nil, fmt.Errorf("encode reply: %w", err)
	}
	head := make([]byte, 0, len(id)+32)
	head = append(head, `{"request_id":`...)
	head = append(head, id...)
	head = append(head, `,"ok":true,"result":`...)
	return [][]byte{head, env.Result, []byte("}")}, nil
}

// ValidReplySubject reports whether s can be published to as a reply: non-empty tokens, no
// wildcards or spaces, not a system subject ($JS, $KV, $O, ...) and not a subject the worker's streams
// capture (a reply there would be stored as a new request, a forged dead letter or a forged replay
// result: replay.results.>) and not a plain request/reply subject (it would be stored as a request
// too). The pipeline answers only such a Reply-To; `worker replay --publish` takes only such a subject.
func ValidReplySubject(s string) bool {
	if s == "" || len(s) > 1024 || s[0] == '$' || strings.HasPrefix(s, contracts.DeadLetterPrefix) || strings.HasPrefix(s, "replay.results.") ||
		strings.HasPrefix(s, contracts.RequestReplyPrefix) || strings.HasPrefix(s, contracts.TenantSubjectPrefix) {
		return false
	}
	for _, req := range contracts.RequestSubjects {
		if s == req {
			return false
		}
	}
	tokenLen := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '.':
			if tokenLen == 0 {
				return false
			}
			tokenLen = 0
		case '*', '>', ' ', '\t', '\r', '\n', 0:
			return false
		default:
			tokenLen++
		}
	}
	return tokenLen > 0
}

// replyAllowed reports whether a request on subject may be answered on replyTo: a valid reply
// subject (ValidReplySubject) and, for a tenant's subject, one under the tenant's inbox prefix
// (contracts.TenantInbox), so that no request makes the worker publish into another tenant's inboxes.
func replyAllowed(subject, replyTo string) bool {
	if !ValidReplySubject(replyTo) {
		return false
	}
	tenant, _ := contracts.SplitTenant(subject)
	return tenant == "" || strings.HasPrefix(replyTo, contracts.TenantInbox(tenant)+".")
}

// claimsFor is the claim-check bucket of subject's requests and replies: its tenant's
// (Deps.SubjectClaims), else Deps.Claims.
func (p *Pipeline) claimsFor(subject string) *claimcheck.Store {
	if c, ok := p.deps.SubjectClaims[subject]; ok {
		return c
	}
	return p.deps.Claims
}
