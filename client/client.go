// Package client is the Go client of the worker's wire contract v1: it publishes a request to the
// worker's JetStream stream with a Reply-To inbox and waits for the reply, moving bodies larger than
// the connection's max payload through the claim-check bucket in both directions.
//
// A Client is safe for concurrent use. It does not own the connection it is given.
package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/propagation"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/backoff"
	"github.com/agentworks/artifact-worker/internal/quorum"
)

// ErrNoReply means no reply arrived before the context ended although the request was stored: a
// *CallError of StageReply (errors.Is(err, ErrNoReply) holds for it).
var ErrNoReply = errors.New("client: no reply before the deadline")

// ErrDuplicate means JetStream already holds a request with this request_id (it de-duplicates
// Nats-Msg-Id within the stream's window, 2 minutes): the request was not stored again and its
// reply went to the first sender. Send a new request_id to ask again.
var ErrDuplicate = errors.New("client: duplicate request_id")

// ErrExpired means the worker answered contracts.CodeExpired: the request's deadline passed before a
// worker started it, and it was not executed. Call returns it joined with the *contracts.Error of
// the reply (errors.Is(err, ErrExpired) and errors.As(err, &wireErr) both hold). Send a new request
// with a new deadline.
var ErrExpired = errors.New("client: request expired before a worker started it")

// Client sends requests to the worker.
type Client struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	claims  *claimcheck.Store
	scope   string // sent as contracts.HeaderScope unless the call's context has one (WithScope)
	tenant  string // NewTenant: calls go to the tenant's subjects
	replies *replies
	// quorum moves the connection to another server when JetStream stops answering through its
	// server while the connection is up (a server cut off from its cluster).
	quorum *quorum.Tracker
}

// New returns a client on nc. It uses the worker's claim-check bucket as it is (creating it with the
// default TTL only if no worker made it yet) and accepts claim-checked replies of any size. Its
// replies arrive on one subscription, "<inbox>.*", made here, before the first request; Close
// removes it.
func New(ctx context.Context, nc *nats.Conn) (*Client, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	claims, err := claimcheck.Bind(ctx, js, nc.MaxPayload())
	if err != nil {
		return nil, err
	}
	r, err := newReplies(nc)
	if err != nil {
		return nil, err
	}
	return &Client{nc: nc, js: js, claims: claims.Limit(math.MaxInt64), replies: r, quorum: quorum.NewTracker(nc, quorum.DefaultAfter, nil)}, nil
}

// SetSwitchAfter sets how long JetStream may go unanswered (timeouts, no responders) through the
// connection's server, while the connection is up, before the client reconnects it to another
// server of the cluster (default 4 s; negative: never). A server cut off from the rest of its
// cluster keeps its clients connected while nothing they store or ask reaches the streams: calls
// waiting there would stall until the partition heals. Call it before the client is used; clients
// made from this one by WithScope share the setting only when it is set first.
func (c *Client) SetSwitchAfter(d time.Duration) { c.quorum = quorum.NewTracker(c.nc, d, nil) }

// Close removes the client's reply subscription (the connection stays open: the client does not
// own it). Calls in progress get no reply after it.
func (c *Client) Close() error { return c.replies.sub.Unsubscribe() }

// CallRaw publishes body (a JSON request) on subject and returns the reply body, claim check
// resolved (and the claimed reply deleted from the bucket once read). The request_id of body becomes the Nats-Msg-Id, so the request is stored once however
// often it is sent: CallRaw keeps trying to store it until JetStream acknowledges it or ctx ends
// (a stream leader change, a reconnect), and asks again under "<request_id>.again-<n>" when its
// connection reconnected while it waited for the reply (a reply sent meanwhile is lost: asked again
// once the worker's consumer saw the request answered, or afterReconnect later at the latest; the
// worker answers an ask of a request still running with that run's reply, not a second run), and
// when no reply came for replyQuiet (then twice as long each time), only once the worker's consumer
// saw the request answered (the worker then answers from its recorded reply) (a reply lost between
// servers, as when a route between them breaks, leaves no trace on this connection; a request
// queued behind a backlog or still being worked on is not asked again). A call
// that ends without a reply is a *CallError saying whether the request was stored and whether a
// retry is safe (RetrySafe). The caller's trace context in ctx is sent as traceparent, and ctx's deadline as the
// request's deadline (contracts.HeaderDeadline): the worker does not start the request after it. A
// ctx without a deadline leaves the worker's default (contracts.DefaultRequestTimeout).
func (c *Client) CallRaw(ctx context.Context, subject string, body []byte) ([]byte, error) {
	subject = c.subjectOf(subject)
	var env contracts.Envelope
	_ = json.Unmarshal(body, &env) // the worker answers malformed bodies with invalid_request

	// The reply comes on the client's one reply subscription, under a token of this call's.
	inbox, replies, done := c.replies.open()
	defer done()

	hdr := nats.Header{}
	hdr.Set(contracts.HeaderReplyTo, inbox)
	if env.RequestID != "" {
		hdr.Set(contracts.HeaderMsgID, env.RequestID)
	}
	if deadline, ok := ctx.Deadline(); ok {
		// The worker does not start the request after this (contracts.HeaderDeadline).
		hdr.Set(contracts.HeaderDeadline, contracts.FormatDeadline(deadline))
	}
	propagation.TraceContext{}.Inject(ctx, headerCarrier(hdr))
	c.setScope(ctx, hdr)
	reconnects := c.nc.Stats().Reconnects
	ack, attempts, err := c.store(ctx, subject, env.RequestID, hdr, body)
	if err != nil {
		return nil, err
	}
	if ack.Duplicate && attempts == 1 {
		return nil, fmt.Errorf("%w: %q was already sent within the de-duplication window; use a new request_id", ErrDuplicate, env.RequestID)
	}
	// A duplicate on a later attempt is this call's own request: an earlier attempt was stored
	// although its acknowledgement was lost. Its reply comes to this inbox either way.
	quiet := replyQuiet
	sent := time.Now()
	askAt := sent.Add(quiet)
	var reconnectedAt time.Time // when this call saw its connection's latest reconnect
	for asked := 0; ; {
		check := time.NewTimer(reconnectCheck)
		select {
		case reply := <-replies:
			check.Stop()
			c.quorum.Report(nil)
			return c.resolve(ctx, reply)
		case <-ctx.Done():
			check.Stop()
			return nil, &CallError{Subject: subject, RequestID: env.RequestID, Stage: StageReply, Stored: true, StreamSeq: ack.Sequence,
				Attempts: attempts, Err: ctx.Err()}
		case <-check.C:
		}
		if !c.replies.sub.IsValid() {
			return nil, fmt.Errorf("client: wait for reply: %w", nats.ErrBadSubscription)
		}
		// A reply published while this connection was reconnecting is lost (core NATS): ask again,
		// once per reconnect, under a new Nats-Msg-Id (the stream drops a repeated one). So is one
		// dropped between two servers, which this connection never hears of: ask again when the
		// reply is overdue too. The worker answers with the same request_id; requests are
		// idempotent (contracts/README.md, "Delivery semantics").
		// An overdue reply is asked for only once the worker's consumer saw the request (the last
		// one asked) answered: asking again for one queued behind a backlog, or still being worked
		// on, would only add work.
		// A reply slow to come may mean the connection's server is cut off from its cluster: prove
		// that JetStream answers through it (at most once a second per client); the quorum tracker
		// moves the connection to another server when it does not for a while.
		if time.Since(sent) >= probeAfter && time.Since(c.quorum.LastReport()) >= time.Second && c.nc.IsConnected() {
			c.answered(ctx, ack.Stream, subject, ack.Sequence)
		}
		n := c.nc.Stats().Reconnects
		if n != reconnects && reconnectedAt.IsZero() {
			reconnectedAt = time.Now()
		}
		overdue := !time.Now().Before(askAt)
		if overdue {
			quiet *= 2
			askAt = time.Now().Add(quiet)
		}
		if env.RequestID == "" || !c.nc.IsConnected() {
			continue
		}
		// After a reconnect, the request is asked again once the worker answered it, or at the
		// latest afterReconnect later: the ack floor that says "answered" can be held below it for
		// ACK_WAIT by one slow request from before a failover (one taken on a server cut off from
		// its cluster), and a reply lost meanwhile would wait for that. Asked again while its first
		// run still runs, the worker does not run it a second time: the ask waits for that run's
		// recorded reply (its running marker, docs/operations.md "One execution per request").
		afterReconnectDue := n != reconnects && !reconnectedAt.IsZero() && time.Since(reconnectedAt) >= afterReconnect
		if (n != reconnects || overdue) && (afterReconnectDue || c.answered(ctx, ack.Stream, subject, ack.Sequence)) {
			reconnects = n
			reconnectedAt = time.Time{}
			asked++
			again := nats.Header{}
			for k, v := range hdr {
				again[k] = v
			}
			again.Set(contracts.HeaderMsgID, fmt.Sprintf("%s.again-%d", env.RequestID, asked))
			stored, _, err := c.store(ctx, subject, env.RequestID, again, body)
			if err != nil && ctx.Err() == nil {
				return nil, err
			}
			if err == nil {
				ack = stored
				sent = time.Now()
			}
		}
	}
}

// resolve returns the reply's body. A claimed one is deleted from the bucket once read: this client
// is its only reader, so it leaves now, not at the TTL (a failed delete leaves it to the TTL).
func (c *Client) resolve(ctx context.Context, reply *nats.Msg) ([]byte, error) {
	out, err := c.claims.Resolve(ctx, reply.Header, reply.Data)
	if err != nil {
		return nil, err
	}
	if name := reply.Header.Get(contracts.HeaderClaimCheck); name != "" {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		_ = c.claims.Delete(dctx, name)
		cancel()
	}
	return out, nil
}

// answered reports whether the worker's consumer of subject (contracts.ConsumerName) on stream, the
// stream that stored the request, has seen the request seq acknowledged: its ack floor (below which
// every request was answered) has reached seq, so the reply was sent. A request queued or still
// being worked on is not answered yet. An error (JetStream's API unavailable, as during a failover,
// or the permission to read the consumer's info missing) is false: the next check tries again.
func (c *Client) answered(ctx context.Context, stream, subject string, seq uint64) bool {
	ictx, cancel := context.WithTimeout(ctx, storeAttempt)
	defer cancel()
	cons, err := c.js.Consumer(ictx, stream, contracts.ConsumerName(subject))
	if err == nil && quorum.CutOff(cons.CachedInfo().Cluster) {
		// A consumer leader cut off from its group with this server still answers, until it steps
		// down: its answer proves nothing, and its ack floor no longer moves.
		err = quorum.ErrCutOff
	}
	// A caller not allowed to read the consumer gets no answer either: that is not a lost quorum.
	if last := c.nc.LastError(); ctx.Err() == nil && !(errors.Is(last, nats.ErrPermissionViolation) && strings.Contains(last.Error(), "CONSUMER.INFO")) {
		c.quorum.Report(err)
	}
	if err != nil {
		return false
	}
	return cons.CachedInfo().AckFloor.Stream >= seq
}

// probeAfter is how long a call waits for its reply before it proves that JetStream answers through
// the connection's server (see Client.SetSwitchAfter).
const probeAfter = 2 * time.Second

// reconnectCheck is how often a call waiting for its reply checks whether its connection reconnected.
const reconnectCheck = 500 * time.Millisecond

// afterReconnect is how long after a reconnect a call waiting for its reply asks again at the
// latest, answered or not (a reply sent while the connection reconnected is lost).
const afterReconnect = 2 * time.Second

// replyQuiet is how long a call waits for its reply before it looks whether the request was answered
// (and then asks again), then 10 s, 20 s, ...: a healthy worker answers in milliseconds to a few
// seconds.
const replyQuiet = 5 * time.Second

// storeAttempt bounds one attempt at storing a request: a publish sent to a server that just died,
// or to a stream between two leaders, is never acknowledged.
const storeAttempt = 2 * time.Second

// storeBackoff spaces the attempts: 100 ms doubling to 2 s.
var storeBackoff = backoff.Policy{Initial: 100 * time.Millisecond, Max: 2 * time.Second}

// store publishes the request to JetStream, retrying until it is acknowledged or ctx ends (without
// a deadline, for contracts.DefaultRequestTimeout). Retrying is safe because of its Nats-Msg-Id; a
// request without a request_id (answered invalid_request by the worker) is tried once.
func (c *Client) store(ctx context.Context, subject, requestID string, hdr nats.Header, body []byte) (*jetstream.PubAck, int, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, contracts.DefaultRequestTimeout)
		defer cancel()
	}
	fail := func(attempts int, err error) (*jetstream.PubAck, int, error) {
		return nil, attempts, &CallError{Subject: subject, RequestID: requestID, Stage: StageStore, Attempts: attempts, Err: err}
	}
	// A claim-checked body is stored once: every attempt publishes the same message, so whichever
	// attempt JetStream kept names the one claim, and no attempt leaves another behind.
	var msg *nats.Msg
	for attempt := 0; ; attempt++ {
		actx, cancel := context.WithTimeout(ctx, storeAttempt)
		var err error
		if msg == nil {
			msg, err = c.claims.Prepare(actx, subject, hdr, body)
			if err != nil {
				msg = nil
			}
		}
		var ack *jetstream.PubAck
		if err == nil {
			ack, err = c.js.PublishMsg(actx, msg)
			if ctx.Err() == nil {
				c.quorum.Report(err)
			}
		}
		cancel()
		if err == nil {
			if name := msg.Header.Get(contracts.HeaderClaimCheck); name != "" && ack.Duplicate && attempt == 0 {
				// Not stored: JetStream holds another sender's request with this request_id, which
				// names its own claim. Nobody will read this one.
				dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				_ = c.claims.Delete(dctx, name)
				cancel()
			}
			return ack, attempt + 1, nil
		}
		if requestID == "" || !transient(err) {
			return fail(attempt+1, err)
		}
		if storeBackoff.Sleep(ctx, attempt) != nil {
			return fail(attempt+1, err)
		}
	}
}

// transient reports whether a failed publish may succeed when tried again: anything but an answer of
// the stream refusing the message (too large, a bad header) and a closed connection.
func transient(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		// JetStream temporarily unavailable, or an earlier attempt with the same Nats-Msg-Id still
		// being stored (409, err_code 10158, as while a stream's leader waits for its quorum).
		return api.Code == 503 || api.ErrorCode == errCodeDuplicateInProcess
	}
	return !errors.Is(err, nats.ErrConnectionClosed) && !errors.Is(err, nats.ErrBadSubject) && !errors.Is(err, nats.ErrMaxPayload)
}

// errCodeDuplicateInProcess is nats-server's JSStreamDuplicateMessageConflict ("duplicate message id
// is in process"): a publish whose Nats-Msg-Id an earlier one, not yet stored, carries.
const errCodeDuplicateInProcess jetstream.ErrorCode = 10158

// Call marshals req, sends it, and decodes the reply's result into result (which may be nil). A
// reply with ok=false is returned as a *contracts.Error.
func (c *Client) Call(ctx context.Context, subject string, req any, result any) error {
	body, err := json.Marshal(req)
	if err != nil {
		return fmt.Errorf("client: encode request: %w", err)
	}
	raw, err := c.CallRaw(ctx, subject, body)
	if err != nil {
		return err
	}
	var rep contracts.Reply
	if err := json.Unmarshal(raw, &rep); err != nil {
		return fmt.Errorf("client: decode reply: %w", err)
	}
	if !rep.OK {
		if rep.Error == nil {
			return &contracts.Error{Code: contracts.CodeInternal, Message: "reply with ok=false and no error"}
		}
		if rep.Error.Code == contracts.CodeExpired {
			return fmt.Errorf("%w: %w", ErrExpired, rep.Error)
		}
		return rep.Error
	}
	if result == nil {
		return nil
	}
	if err := json.Unmarshal(rep.Result, result); err != nil {
		return fmt.Errorf("client: decode result: %w", err)
	}
	return nil
}

// headerCarrier writes W3C trace headers into nats.Header with their lower-case names, as sent on the
// wire (propagation.HeaderCarrier would canonicalise them to "Traceparent").
type headerCarrier nats.Header

func (h headerCarrier) Get(key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

func (h headerCarrier) Set(key, value string) { h[key] = []string{value} }

func (h headerCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}
