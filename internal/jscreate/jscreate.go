// Package jscreate creates the JetStream assets (streams, KV and Object Store buckets) that several
// replicas may create at the same moment.
//
// Two things go wrong when they do. A CreateOrUpdate that finds no stream and then loses the
// creation to another replica with a different config fails with ErrStreamNameAlreadyInUse; tried
// again, it takes the update path. And a create request racing another one for the same name can go
// unanswered (seen on a single loaded server as well as on clusters), so a call bounded only by a
// long context waits out all of it. Do bounds each attempt by Attempt and tries again on both.
package jscreate

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/backoff"
)

// Attempt bounds one create request.
const Attempt = 2 * time.Second

// Attempts is how many times Do tries at most: about 12 s when every attempt goes unanswered, so
// that a request the server never answers (a missing permission) still fails soon and the caller's
// own start-up retry decides.
const Attempts = 5

var pause = backoff.Policy{Initial: 100 * time.Millisecond, Max: time.Second}

// Do runs create until it succeeds, fails with an error trying again cannot fix, has been tried
// Attempts times, or ctx ends. It returns the last attempt's result.
func Do[T any](ctx context.Context, create func(ctx context.Context) (T, error)) (T, error) {
	var (
		v   T
		err error
	)
	for attempt := range Attempts {
		actx, cancel := context.WithTimeout(ctx, Attempt)
		v, err = create(actx)
		cancel()
		if err == nil || ctx.Err() != nil || !again(err) {
			return v, err
		}
		if attempt < Attempts-1 && pause.Sleep(ctx, attempt) != nil {
			return v, err
		}
	}
	return v, err
}

// again reports whether a failed create may pass when tried again: it lost a creation race, or got
// no answer in time.
func again(err error) bool {
	return errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, nats.ErrTimeout)
}
