package messaging

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/agentworks/artifact-worker/contracts"
)

func noopTracer() trace.Tracer { return tracenoop.NewTracerProvider().Tracer("") }

var propagator = propagation.TraceContext{}

// observe starts the message's span (a child of the caller's traceparent), then records metrics and
// writes one log line with the outcome.
func (p *Pipeline) observe(h message.HandlerFunc) message.HandlerFunc {
	return func(m *message.Message) ([]*message.Message, error) {
		start := time.Now()
		d := deliveryOf(m)
		ctx := propagator.Extract(m.Context(), metadataCarrier(m.Metadata))
		ctx, span := p.deps.Tracer.Start(ctx, "process "+d.subject,
			trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(
				attribute.String("messaging.system", "nats"),
				attribute.String("messaging.destination.name", d.subject),
				attribute.Int64("messaging.nats.stream_sequence", int64(d.sequence)),
				attribute.Int64("messaging.delivery_count", int64(d.count)),
			))
		defer span.End()
		st := &state{requestID: m.Metadata.Get(contracts.HeaderMsgID)}
		m.SetContext(context.WithValue(ctx, stateKey{}, st))
		p.metrics.inFlightAdd(ctx, d.subject, 1)
		out, err := h(m)
		p.metrics.inFlightAdd(ctx, d.subject, -1)

		if st.outcome == "" {
			st.outcome = outcomeRetry
			if err == nil {
				st.outcome = outcomeOK
			}
		}
		elapsed := time.Since(start)
		span.SetAttributes(attribute.String("worker.request_id", st.requestID), attribute.String("worker.outcome", st.outcome))
		if st.code != "" {
			span.SetAttributes(attribute.String("worker.error_code", st.code))
		}
		if st.err != nil {
			span.RecordError(st.err)
			span.SetStatus(codes.Error, st.outcome)
		}
		p.metrics.record(ctx, d.subject, st, elapsed)
		level := slog.LevelInfo
		attrs := []slog.Attr{
			slog.String("subject", d.subject),
			slog.String("request_id", st.requestID),
			slog.String("outcome", st.outcome),
			slog.Uint64("stream_seq", d.sequence),
			slog.Uint64("delivery", d.count),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
		}
		if st.code != "" {
			attrs = append(attrs, slog.String("code", st.code))
		}
		if st.err != nil {
			level = slog.LevelWarn
			attrs = append(attrs, slog.String("error", firstLine(st.err.Error())))
		}
		if st.refusal != nil {
			// The caller was told "not found"; the operator learns why.
			level = slog.LevelWarn
			attrs = append(attrs, slog.String("scope_refused", st.refusal.Reason), slog.String("scope_refused_ref", st.refusal.Ref),
				slog.String("scope", m.Metadata.Get(contracts.HeaderScope)))
		}
		if sc := span.SpanContext(); sc.IsValid() {
			attrs = append(attrs, slog.String("trace_id", sc.TraceID().String()))
		}
		p.deps.Logger.LogAttrs(ctx, level, "request", attrs...)
		return out, err
	}
}

// metadataCarrier reads W3C trace headers from Watermill metadata case-insensitively: NATS keeps the
// publisher's header case ("traceparent"), which propagation.HeaderCarrier would canonicalise away.
type metadataCarrier message.Metadata

func (c metadataCarrier) Get(key string) string {
	if v, ok := c[key]; ok {
		return v
	}
	for k, v := range c {
		if strings.EqualFold(k, key) {
			return v
		}
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { c[key] = value }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
