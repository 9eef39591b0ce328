package messaging

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/backoff"
	"github.com/agentworks/artifact-worker/internal/jscreate"
	"github.com/agentworks/artifact-worker/internal/quorum"
)

// Reply records: one execution per request.
//
// A request can reach the pipeline more than once after it ran: a client asks again under
// "<request_id>.again-<n>" when its reply was lost (a reconnect, a route between servers breaking),
// JetStream redelivers a request whose ack was lost, a caller sends the same request again. Each
// would run the handler again (for workspace.file_written, write the file again). Instead, once a
// request ran, its reply is written to the WORKER_REPLIES bucket, keyed by the request (ReplyKey):
// sent right after the reply on the same connection and confirmed by the server before the request
// is acked, the two round trips overlapping. Until the record is stored, the delivery's running marker
// (running.go) holds the key: an ask meanwhile waits for the record. (The record went out ahead of
// the reply until the marker came; behind it, its 100 KB or more no longer delay the reply.) A
// request that finds its record is answered with the stored reply, and its outcome is `replayed`,
// not `ok`.
//
// A record holds the reply itself when it fits in one message, else the name of the claim that
// carries it (the claim stays in the claim-check bucket until its reader deletes it, or its TTL):
// no record is larger than the connection's max payload.

// DefaultReplyTTL is how long a reply record is kept: longer than the stream's de-duplication window
// (2 minutes) and than a call's default deadline (contracts.DefaultRequestTimeout), within which
// clients ask again.
const DefaultReplyTTL = 10 * time.Minute

// DefaultReplyMaxBytes is the reply bucket's default size limit: 256 MiB. A record that does not fit
// is not stored (the reply still goes out; the request would run again if asked again).
const DefaultReplyMaxBytes = 256 << 20

// ReplyConfig tunes the reply bucket. Zero fields take their defaults.
type ReplyConfig struct {
	TTL      time.Duration // default DefaultReplyTTL
	MaxBytes int64         // default DefaultReplyMaxBytes; -1: none
	Replicas int           // default 1
}

// Replies is the reply record bucket. It is safe for concurrent use.
type Replies struct {
	kv jetstream.KeyValue
	// async writes records: its publishes are acknowledged asynchronously, each within recordCall.
	async    jetstream.JetStream
	maxValue int // the largest record that fits in one message
}

// recordCall bounds one read or write of a record.
const recordCall = 3 * time.Second

// EnsureReplies creates or updates the reply bucket (contracts.ReplyBucket; idempotent, safe when
// replicas start at once).
func EnsureReplies(ctx context.Context, js jetstream.JetStream, cfg ReplyConfig) (*Replies, error) {
	if cfg.TTL <= 0 {
		cfg.TTL = DefaultReplyTTL
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultReplyMaxBytes
	}
	if cfg.Replicas <= 0 {
		cfg.Replicas = 1
	}
	kv, err := jscreate.Do(ctx, func(ctx context.Context) (jetstream.KeyValue, error) {
		return js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket:      contracts.ReplyBucket,
			Description: "artifact worker replies by request, so that a request asked again is answered, not run again",
			History:     1,
			TTL:         cfg.TTL,
			MaxBytes:    cfg.MaxBytes,
			Storage:     jetstream.FileStorage,
			Replicas:    cfg.Replicas,
		})
	})
	if err != nil {
		return nil, fmt.Errorf("reply bucket %s: %w", contracts.ReplyBucket, err)
	}
	async, err := jetstream.New(js.Conn(), jetstream.WithPublishAsyncTimeout(recordCall))
	if err != nil {
		return nil, fmt.Errorf("reply bucket %s: %w", contracts.ReplyBucket, err)
	}
	return &Replies{kv: kv, async: async, maxValue: int(js.Conn().MaxPayload()) - 16*1024}, nil
}

// ReplyKey is the key of a request's record: a digest of its subject, its request_id, its body (claim
// check resolved) and the headers that can change what it does (every header but the transport's:
// Nats-*, Reply-To, Claim-Check, the trace context and the deadline). The same request asked again
// finds the record; another request that reuses the request_id does not.
func ReplyKey(subject, requestID string, hdr map[string]string, body []byte) string {
	h := sha256.New()
	field := func(s string) {
		fmt.Fprintf(h, "%d:", len(s))
		h.Write([]byte(s))
	}
	field(subject)
	field(requestID)
	var keys []string
	for k := range hdr {
		if keyedHeader(k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		field(strings.ToLower(k))
		field(hdr[k])
	}
	fmt.Fprintf(h, "%d:", len(body))
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

func keyedHeader(k string) bool {
	l := strings.ToLower(k)
	switch {
	case strings.HasPrefix(l, "nats-"), strings.HasPrefix(l, "x-worker-"):
		return false
	}
	switch l {
	case strings.ToLower(contracts.HeaderReplyTo), strings.ToLower(contracts.HeaderClaimCheck),
		contracts.HeaderTraceparent, contracts.HeaderTracestate, "baggage",
		strings.ToLower(contracts.HeaderDeadline), strings.ToLower(contracts.HeaderContractVersion):
		return false
	}
	return true
}

// replyRecord is a stored reply: the reply's body, or the claim that holds it.
type replyRecord struct {
	Subject    string          `json:"subject"`
	RequestID  string          `json:"request_id"`
	ClaimCheck string          `json:"claim_check,omitempty"`
	Reply      json.RawMessage `json:"reply,omitempty"`
}

// errTooLargeRecord: a reply that fits in a message whose record, with its envelope, does not; it
// is not recorded.
var errTooLargeRecord = errors.New("reply record larger than one message")

// recording is what a delivery's reply is recorded under: the request's key and the record's
// fields. done is told whether the server stored the record.
type recording struct {
	replies   *Replies
	key       string
	subject   string
	requestID string
	done      func(error)
}

// start begins writing the record value val (recordValue) under key: the record is written to the
// connection before it returns, and wait reports, within recordCall, whether the server stored it.
func (r *Replies) start(key string, val []byte, err error) (wait func(context.Context) error) {
	if err == nil && len(val) > r.maxValue {
		err = errTooLargeRecord
	}
	var ack jetstream.PubAckFuture
	if err == nil {
		ack, err = r.async.PublishAsync(recordSubject(key), val)
	}
	if err != nil {
		return func(context.Context) error { return err }
	}
	return func(ctx context.Context) error {
		err := waitAck(ctx, ack)
		// A record the stream did not acknowledge (its leader killed, a new one being elected) is
		// written again, with back-off, within the delivery's budget: without it, the request would run
		// again when asked again or redelivered. Writing it twice is harmless (the same key and value).
		// Only an unanswered write, or one cut short by a reconnect (the connection moving off a
		// server cut from its cluster), is tried again: a full bucket's refusal stays one.
		for attempt := 0; recordAgain(err) && attempt < recordRetries && ctx.Err() == nil; attempt++ {
			if recordBackoff.Sleep(ctx, attempt) != nil {
				break
			}
			pctx, cancel := context.WithTimeout(ctx, recordCall)
			_, err = r.async.Publish(pctx, recordSubject(key), val)
			cancel()
		}
		return err
	}
}

// recordAgain reports whether a record write that failed with err may succeed when written again:
// JetStream did not answer, or the connection was reconnecting.
func recordAgain(err error) bool {
	return quorum.Unanswered(err) || errors.Is(err, nats.ErrDisconnected) || errors.Is(err, nats.ErrConnectionReconnecting)
}

// recordRetries and recordBackoff: a record not acknowledged is written again up to 5 times, 0.2 s
// to 2 s apart (with recordCall each, about 20 s: longer than a stream leader election).
const recordRetries = 5

var recordBackoff = backoff.Policy{Initial: 200 * time.Millisecond, Max: 2 * time.Second}

// waitAck waits for an asynchronous publish's acknowledgement, at most recordCall.
func waitAck(ctx context.Context, ack jetstream.PubAckFuture) error {
	ctx, cancel := context.WithTimeout(ctx, recordCall)
	defer cancel()
	select {
	case <-ack.Ok():
		return nil
	case err := <-ack.Err():
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recordSubject is the subject a record of key is published on (the bucket's, as KeyValue.Put uses).
func recordSubject(key string) string { return "$KV." + contracts.ReplyBucket + "." + key }

// recordValue is the JSON of a replyRecord: of a claim-checked reply (claim), or of an inline one
// whose body is body's parts one after the other (none: not recorded inline). The body goes in as
// it is: it is the compact JSON the pipeline published (encodeReply); json.Marshal would validate
// and compact it again, a pass over every byte of the base64 it carries, which was most of the CPU a
// 100 KB get_artifact cost. The body ends one byte before the value's end (its closing brace).
func recordValue(subject, requestID, claim string, body ...[]byte) ([]byte, error) {
	n := 0
	for _, part := range body {
		n += len(part)
	}
	if claim != "" || n == 0 {
		return json.Marshal(replyRecord{Subject: subject, RequestID: requestID, ClaimCheck: claim})
	}
	head, err := json.Marshal(replyRecord{Subject: subject, RequestID: requestID})
	if err != nil {
		return nil, err
	}
	head = head[:len(head)-1] // without its closing brace
	val := make([]byte, 0, len(head)+len(`,"reply":`)+n+1)
	val = append(append(val, head...), `,"reply":`...)
	for _, part := range body {
		val = append(val, part...)
	}
	return append(val, '}'), nil
}

// get returns the record of key, nil when there is none.
func (r *Replies) get(ctx context.Context, key string) (*replyRecord, error) {
	ctx, cancel := context.WithTimeout(ctx, recordCall)
	defer cancel()
	e, err := r.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reply record: %w", err)
	}
	return parseRecord(e.Value()), nil
}

// parseRecord reads a stored value as a record; nil when it is not one (a running marker, or not
// one of ours).
func parseRecord(v []byte) *replyRecord {
	var rec replyRecord
	if err := json.Unmarshal(v, &rec); err != nil || rec.Subject == "" {
		return nil
	}
	return &rec
}

// message is the reply to publish for rec.
func (rec *replyRecord) message(replyTo string) *nats.Msg {
	msg := &nats.Msg{Subject: replyTo, Header: nats.Header{}, Data: rec.Reply}
	msg.Header.Set(contracts.HeaderContractVersion, contracts.Version)
	if rec.ClaimCheck != "" {
		msg.Header.Set(contracts.HeaderClaimCheck, rec.ClaimCheck)
		msg.Data = nil
	}
	return msg
}
