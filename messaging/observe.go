package messaging

import (
	"context"
	"log/slog"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"

	"github.com/agentworks/artifact-worker/contracts"
)

// Metric names (OTel; the Prometheus exporter adds unit suffixes and _total).
const (
	MetricMessages = "worker.messages"
	MetricDuration = "worker.message.duration"
	MetricBytesIn  = "worker.bytes.in"
	MetricBytesOut = "worker.bytes.out"
)

type instruments struct {
	messages metric.Int64Counter
	duration metric.Float64Histogram
	bytesIn  metric.Int64Counter
	bytesOut metric.Int64Counter
}

func newInstruments(m metric.Meter) (instruments, error) {
	if m == nil {
		m = noop.NewMeterProvider().Meter("")
	}
	var in instruments
	var err error
	if in.messages, err = m.Int64Counter(MetricMessages, metric.WithDescription("Requests handled, by subject and outcome.")); err != nil {
		return in, err
	}
	if in.duration, err = m.Float64Histogram(MetricDuration, metric.WithUnit("s"), metric.WithDescription("Time from delivery to outcome, by subject and outcome."),
		metric.WithExplicitBucketBoundaries(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)); err != nil {
		return in, err
	}
	if in.bytesIn, err = m.Int64Counter(MetricBytesIn, metric.WithUnit("By"), metric.WithDescription("Request body bytes (claim checks resolved), by subject.")); err != nil {
		return in, err
	}
	in.bytesOut, err = m.Int64Counter(MetricBytesOut, metric.WithUnit("By"), metric.WithDescription("Reply body bytes, by subject."))
	return in, err
}

func (in instruments) record(ctx context.Context, subject, outcome string, d time.Duration, bytesIn, bytesOut int) {
	attrs := metric.WithAttributes(attribute.String("subject", subject), attribute.String("outcome", outcome))
	in.messages.Add(ctx, 1, attrs)
	if d > 0 {
		in.duration.Record(ctx, d.Seconds(), attrs)
	}
	subj := metric.WithAttributes(attribute.String("subject", subject))
	if bytesIn > 0 {
		in.bytesIn.Add(ctx, int64(bytesIn), subj)
	}
	if bytesOut > 0 {
		in.bytesOut.Add(ctx, int64(bytesOut), subj)
	}
}

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

		out, err := h(m)

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
		p.metrics.record(ctx, d.subject, st.outcome, elapsed, st.bytesIn, st.bytesOut)
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
