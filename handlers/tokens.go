package handlers

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// MetricTokensSaved counts the estimated input tokens saved by sending media as parts rather than
// as base64 text (contracts.Usage.TokensSaved), by subject and dialect; Prometheus shows it as
// worker_tokens_saved_total.
const MetricTokensSaved = "worker.tokens.saved"

// TokenCounter records contracts.Usage.TokensSaved of each result. Safe for concurrent use.
type TokenCounter interface {
	TokensSaved(ctx context.Context, subject, dialect string, n int64)
}

// Tokens is the OpenTelemetry TokenCounter.
type Tokens struct{ saved metric.Int64Counter }

// NewTokens makes the worker.tokens.saved counter on m.
func NewTokens(m metric.Meter) (*Tokens, error) {
	c, err := m.Int64Counter(MetricTokensSaved, metric.WithDescription("Estimated input tokens saved by sending media as parts instead of base64 text, by subject and dialect."))
	if err != nil {
		return nil, err
	}
	return &Tokens{saved: c}, nil
}

// Zero makes the series of every subject and dialect exist at 0 (alerts and rate() see the first
// increment).
func (t *Tokens) Zero(ctx context.Context, subjects, dialects []string) {
	for _, s := range subjects {
		for _, d := range dialects {
			t.saved.Add(ctx, 0, metric.WithAttributes(attribute.String("subject", s), attribute.String("dialect", d)))
		}
	}
}

// TokensSaved adds n (when positive).
func (t *Tokens) TokensSaved(ctx context.Context, subject, dialect string, n int64) {
	if t == nil || n <= 0 {
		return
	}
	t.saved.Add(ctx, n, metric.WithAttributes(attribute.String("subject", subject), attribute.String("dialect", dialect)))
}

// countSaved records n on c when there is a counter.
func countSaved(ctx context.Context, c TokenCounter, subject, dialect string, n int64) {
	if c != nil {
		c.TokensSaved(ctx, subject, dialect, n)
	}
}
