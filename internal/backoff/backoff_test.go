package backoff_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/internal/backoff"
)

func TestDelayDoublesUpToTheCap(t *testing.T) {
	p := backoff.Policy{Initial: 100 * time.Millisecond, Max: time.Second}
	want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond, time.Second, time.Second}
	for attempt, w := range want {
		if got := p.Delay(attempt); got != w {
			t.Errorf("Delay(%d) = %s, want %s", attempt, got, w)
		}
	}
	if got := p.Delay(1000); got != time.Second {
		t.Errorf("Delay(1000) = %s, want the cap (no overflow)", got)
	}
	if got := (backoff.Policy{}).Delay(3); got != 0 {
		t.Errorf("the zero policy waits %s", got)
	}
}

func TestJitterStaysWithinTheWindow(t *testing.T) {
	p := backoff.Policy{Initial: time.Millisecond, Max: 8 * time.Millisecond, Jitter: true}
	seen := map[time.Duration]bool{}
	for range 2000 {
		d := p.Delay(2)
		if d <= 0 || d > 4*time.Millisecond {
			t.Fatalf("Delay(2) = %s, want in (0, 4ms]", d)
		}
		seen[d] = true
	}
	if len(seen) < 100 {
		t.Errorf("only %d distinct jittered waits", len(seen))
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := (backoff.Policy{Initial: time.Hour, Max: time.Hour}).Sleep(ctx, 0); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("Sleep on a cancelled context: %v after %s", err, time.Since(start))
	}
}
