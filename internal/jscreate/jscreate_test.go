package jscreate_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/jscreate"
)

// A create that lost a race or got no answer in time is tried again; any other error ends it.
func TestDoTriesAgainOnlyWhatMayPass(t *testing.T) {
	for _, tt := range []struct {
		name      string
		fail      error // what every failing attempt returns
		failures  int   // attempts that fail before one succeeds
		wantCalls int
		wantErr   bool
	}{
		{"lost the creation race once", jetstream.ErrStreamNameAlreadyInUse, 1, 2, false},
		{"no answer twice", context.DeadlineExceeded, 2, 3, false},
		{"a permanent error", errors.New("insufficient resources"), 1, 1, true},
		{"never answered", context.DeadlineExceeded, 100, jscreate.Attempts, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			v, err := jscreate.Do(t.Context(), func(ctx context.Context) (int, error) {
				calls++
				if d, ok := ctx.Deadline(); !ok || time.Until(d) > jscreate.Attempt {
					t.Errorf("attempt %d not bounded by Attempt (deadline %v, %v)", calls, d, ok)
				}
				if calls <= tt.failures {
					return 0, tt.fail
				}
				return 42, nil
			})
			if calls != tt.wantCalls || (err != nil) != tt.wantErr || (err == nil && v != 42) {
				t.Errorf("%d calls, %v, %v; want %d calls, error %v", calls, v, err, tt.wantCalls, tt.wantErr)
			}
		})
	}
}

// A context that ends stops the attempts.
func TestDoStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	calls := 0
	_, err := jscreate.Do(ctx, func(context.Context) (int, error) {
		calls++
		cancel()
		return 0, context.DeadlineExceeded
	})
	if calls != 1 || err == nil {
		t.Errorf("%d calls, %v; want 1 call and its error", calls, err)
	}
}
