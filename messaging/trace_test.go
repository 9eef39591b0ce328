package messaging_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

// A caller's W3C traceparent continues through the worker's span for the message.
func TestSpanContinuesCallersTrace(t *testing.T) {
	s := natstest.Start(t)
	nc, sub, pub := natstest.Connect(t, s), natstest.Connect(t, s), natstest.Connect(t, s)
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	topo, err := messaging.EnsureTopology(ctx, js, messaging.Topology{})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := claimcheck.Ensure(ctx, js, time.Hour, nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	p, err := messaging.New(messaging.Config{Topology: topo, Concurrency: 1}, messaging.Deps{
		SubConn: sub, PubConn: pub, Claims: claims, MapError: mapError,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Tracer: tp.Tracer("test"),
	}, map[string]messaging.Handler{subj: echo})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Run(ctx) }()
	t.Cleanup(func() { _ = p.Shutdown(ctx) })
	<-p.Running()

	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	inbox := nats.NewInbox()
	rs, _ := nc.SubscribeSync(inbox)
	msg := &nats.Msg{Subject: subj, Data: []byte(`{"request_id":"traced"}`), Header: nats.Header{
		contracts.HeaderReplyTo: {inbox},
		// Lower-case, as W3C and NATS clients send it.
		"traceparent": {"00-" + traceID + "-" + parentID + "-01"},
	}}
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	if _, err := rs.NextMsg(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(spans.Ended()) > 0 })
	sp := spans.Ended()[0]
	if got := sp.SpanContext().TraceID().String(); got != traceID {
		t.Fatalf("span trace id = %s, want the caller's %s", got, traceID)
	}
	if got := sp.Parent().SpanID().String(); got != parentID {
		t.Fatalf("span parent = %s, want the caller's span %s", got, parentID)
	}
	var outcome string
	for _, a := range sp.Attributes() {
		if a.Key == "worker.outcome" {
			outcome = a.Value.AsString()
		}
	}
	if outcome != "ok" {
		t.Fatalf("span outcome = %q", outcome)
	}
}
