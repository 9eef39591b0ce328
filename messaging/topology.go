package messaging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
)

// DefaultStreamMaxBytes is Topology.MaxBytes's default: 2 GiB. A stored request is about 300 bytes
// (a get_artifact body and its headers; bodies over the server's max_payload travel by claim check
// and are stored as a reference), so 24h at 40 requests/s (3.5 million, ~1 GB) fits twice over;
// beyond that the oldest requests go first, and the replay window is shorter than MaxAge.
const DefaultStreamMaxBytes int64 = 2 << 30

// MinStreamMaxBytes is the smallest Topology.MaxBytes: 64 MiB, room for requests up to a large
// max_payload (8 MiB in deployments/nats) with many more beside them.
const MinStreamMaxBytes int64 = 64 << 20

// DefaultAckWait is Topology.AckWait's default.
const DefaultAckWait = 10 * time.Second

// Default resource names.
const (
	DefaultStream           = contracts.RequestStream
	DefaultDeadLetterStream = "WORKER_DEADLETTER"
)

// Topology names and tunes the JetStream resources of the worker. The zero value is completed by
// setDefaults; Validate reports every bad field at once.
type Topology struct {
	// Stream captures the request subjects (default WORKER_REQUESTS).
	Stream string
	// Subjects captured by Stream (default contracts.RequestSubjects).
	Subjects []string
	// DeadLetterStream captures deadletter.> (default WORKER_DEADLETTER).
	DeadLetterStream string
	// MaxAge keeps requests replayable for this long (default 24h).
	MaxAge time.Duration
	// MaxBytes bounds the stream's size (default DefaultStreamMaxBytes; -1: none). When it is
	// reached, the oldest requests are removed first.
	MaxBytes int64
	// DeadLetterMaxAge keeps dead letters (default 7 days).
	DeadLetterMaxAge time.Duration
	// Replicas of the streams (default 1; 3 on a clustered NATS).
	Replicas int
	// AckWait is how long a delivered message stays with one replica without an ack or a heartbeat
	// before JetStream redelivers it (default 10s): the time a dead replica's requests wait. The
	// pipeline sends a heartbeat (in progress) every AckWait/3 while it works on a message, so a
	// handler may run longer than AckWait.
	AckWait time.Duration
	// MaxDeliver bounds deliveries of one message (default 5). The last delivery answers with an
	// error and dead-letters instead of nak'ing.
	MaxDeliver int
	// MaxAckPending bounds messages in flight per consumer across all replicas (default 1024).
	MaxAckPending int
}

func (t *Topology) setDefaults() {
	t.Stream = cmp.Or(t.Stream, DefaultStream)
	if len(t.Subjects) == 0 {
		t.Subjects = contracts.RequestSubjects
	}
	t.DeadLetterStream = cmp.Or(t.DeadLetterStream, DefaultDeadLetterStream)
	t.MaxAge = cmp.Or(t.MaxAge, 24*time.Hour)
	t.MaxBytes = cmp.Or(t.MaxBytes, DefaultStreamMaxBytes)
	t.DeadLetterMaxAge = cmp.Or(t.DeadLetterMaxAge, 7*24*time.Hour)
	t.Replicas = cmp.Or(t.Replicas, 1)
	t.AckWait = cmp.Or(t.AckWait, DefaultAckWait)
	t.MaxDeliver = cmp.Or(t.MaxDeliver, 5)
	t.MaxAckPending = cmp.Or(t.MaxAckPending, 1024)
}

// Validate reports every invalid field.
func (t Topology) Validate() error {
	var errs []error
	for _, n := range []struct{ field, v string }{{"Stream", t.Stream}, {"DeadLetterStream", t.DeadLetterStream}} {
		if n.v == "" || strings.ContainsAny(n.v, ".*> \t") {
			errs = append(errs, fmt.Errorf("%s %q: a stream name must be non-empty without '.', '*', '>' or spaces", n.field, n.v))
		}
	}
	if t.MaxAge < time.Minute {
		errs = append(errs, fmt.Errorf("MaxAge %s: must be at least 1m", t.MaxAge))
	}
	if t.MaxBytes != -1 && t.MaxBytes < MinStreamMaxBytes {
		errs = append(errs, fmt.Errorf("MaxBytes %d: must be at least %d, or -1 for no limit", t.MaxBytes, MinStreamMaxBytes))
	}
	if t.AckWait < time.Second {
		errs = append(errs, fmt.Errorf("AckWait %s: must be at least 1s", t.AckWait))
	}
	if t.MaxDeliver < 1 {
		errs = append(errs, fmt.Errorf("MaxDeliver %d: must be at least 1", t.MaxDeliver))
	}
	if t.Replicas < 1 || t.Replicas > 5 {
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, fmt.Errorf("Replicas %d: must be 1..5", t.Replicas))
	}
	return errors.Join(errs...)
}

// ConsumerName is the durable pull consumer of subject (contracts.ConsumerName).
func ConsumerName(subject string) string { return contracts.ConsumerName(subject) }

// EnsureTopology creates or updates the streams and consumers. It is idempotent and safe to run from
// several replicas at once.
func EnsureTopology(ctx context.Context, js jetstream.JetStream, t Topology) (Topology, error) {
	t.setDefaults()
	if err := t.Validate(); err != nil {
		return t, err
	}
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        t.Stream,
		Description: "artifact worker requests (contract v" + contracts.Version + "), kept for replay",
		Subjects:    t.Subjects,
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      t.MaxAge,
		MaxBytes:    t.MaxBytes,
		Discard:     jetstream.DiscardOld,
		Storage:     jetstream.FileStorage,
		Replicas:    t.Replicas,
		Duplicates:  2 * time.Minute,
	})
	if err != nil {
		return t, fmt.Errorf("stream %s: %w", t.Stream, err)
	}
	if _, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        t.DeadLetterStream,
		Description: "artifact worker dead letters",
		Subjects:    []string{contracts.DeadLetterPrefix + ">"},
		Retention:   jetstream.LimitsPolicy,
		MaxAge:      t.DeadLetterMaxAge,
		Storage:     jetstream.FileStorage,
		Replicas:    t.Replicas,
	}); err != nil {
		return t, fmt.Errorf("stream %s: %w", t.DeadLetterStream, err)
	}
	for _, subject := range t.Subjects {
		if _, err := stream.CreateOrUpdateConsumer(ctx, consumerConfig(t, subject)); err != nil {
			return t, fmt.Errorf("consumer %s: %w", ConsumerName(subject), err)
		}
	}
	return t, nil
}

func consumerConfig(t Topology, subject string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:       ConsumerName(subject),
		Description:   "artifact worker handler for " + subject,
		FilterSubject: subject,
		// The stream is created together with its consumers, so "all" means every request ever
		// captured, including those stored while no replica was running.
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       t.AckWait,
		MaxDeliver:    t.MaxDeliver,
		MaxAckPending: t.MaxAckPending,
		ReplayPolicy:  jetstream.ReplayInstantPolicy,
		Replicas:      t.Replicas,
	}
}
