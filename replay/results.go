package replay

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
)

// ResultsSubjectPrefix prefixes the subjects of the results stream: the reply to the request with
// sequence 42 of WORKER_REQUESTS is kept on replay.results.WORKER_REQUESTS.42.
const ResultsSubjectPrefix = "replay.results."

// ResultsMaxAge is how long the results stream keeps a reply.
const ResultsMaxAge = 7 * 24 * time.Hour

// Headers of a message in the results stream.
const (
	// HeaderDigest is "sha256:" and the hex SHA-256 of the canonical reply JSON (object keys
	// sorted, no insignificant space). Replies are compared by it.
	HeaderDigest = "Replay-Digest"
	// HeaderReplySize is the size of the canonical reply JSON. When the reply is too large for one
	// message the body is empty and only the digest is kept.
	HeaderReplySize = "Replay-Reply-Size"
	// HeaderOutcome is the line's outcome (ok, error_reply, poison, transient).
	HeaderOutcome = "Replay-Outcome"
	// HeaderRequestSubject is the subject of the replayed request.
	HeaderRequestSubject = "Replay-Request-Subject"
)

// headroom is kept free for headers when deciding whether a reply fits in one message.
const headroom = contracts.Headroom

// results keeps replies in the results stream, one message per request sequence.
type results struct {
	js         jetstream.JetStream
	stream     jetstream.Stream
	prefix     string
	maxPayload int64
}

// ensureResults creates or updates the results stream (idempotent).
func ensureResults(ctx context.Context, js jetstream.JetStream, name, requestStream string, replicas int) (*results, error) {
	st, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:              name,
		Description:       "replies of worker replays, one per replayed request, to show what changed",
		Subjects:          []string{ResultsSubjectPrefix + ">"},
		Retention:         jetstream.LimitsPolicy,
		MaxMsgsPerSubject: 1,
		MaxAge:            ResultsMaxAge,
		Storage:           jetstream.FileStorage,
		Discard:           jetstream.DiscardOld,
		Replicas:          replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("results stream %s: %w", name, err)
	}
	return &results{
		js:         js,
		stream:     st,
		prefix:     ResultsSubjectPrefix + requestStream + ".",
		maxPayload: js.Conn().MaxPayload(),
	}, nil
}

func (r *results) subject(seq uint64) string { return r.prefix + strconv.FormatUint(seq, 10) }

// swap stores the reply of request seq and returns the digest of the reply stored before it, or ""
// when there was none.
func (r *results) swap(ctx context.Context, seq uint64, subject, outcome string, canonicalReply []byte) (previous, current string, err error) {
	subj := r.subject(seq)
	old, err := r.stream.GetLastMsgForSubject(ctx, subj)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
	case err != nil:
		return "", "", fmt.Errorf("results: read %s: %w", subj, err)
	default:
		previous = old.Header.Get(HeaderDigest)
		if previous == "" && len(old.Data) > 0 {
			if c, err := canonicalJSON(old.Data); err == nil {
				previous = digest(c)
			}
		}
	}
	current = digest(canonicalReply)
	msg := &nats.Msg{Subject: subj, Header: nats.Header{}}
	msg.Header.Set(HeaderDigest, current)
	msg.Header.Set(HeaderReplySize, strconv.Itoa(len(canonicalReply)))
	msg.Header.Set(HeaderOutcome, outcome)
	msg.Header.Set(HeaderRequestSubject, subject)
	if int64(len(canonicalReply)) <= r.maxPayload-headroom {
		msg.Data = canonicalReply
	}
	if _, err := r.js.PublishMsg(ctx, msg); err != nil {
		return "", "", fmt.Errorf("results: store %s: %w", subj, err)
	}
	return previous, current, nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// canonicalJSON re-encodes JSON with object keys sorted and no insignificant space, numbers kept
// as written, so two encodings of the same value compare equal byte for byte.
func canonicalJSON(b []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	// dec.More reports false for a stray '}' or ']': only white space may follow the value.
	if len(bytes.TrimLeft(b[dec.InputOffset():], " \t\r\n")) != 0 {
		return nil, errors.New("data after the JSON value")
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
