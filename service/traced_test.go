package service

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/messaging"
)

// Every storage, KV and object-store call a handler makes is a span under the request's span.
func TestStorageCallsAreSpansUnderTheRequest(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	prev := otel.GetTracerProvider()
	otel.SetTracerProvider(tp)
	t.Cleanup(func() { otel.SetTracerProvider(prev) })

	ns := natstest.Start(t)
	js, err := jetstream.New(natstest.Connect(t, ns))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{DataDir: t.TempDir()}
	ctx := context.Background()
	store, err := OpenStore(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Build(ctx, cfg, js, store, llmservices.Default(), nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var last any
	call := func(subject string, body any) []string {
		t.Helper()
		raw, _ := json.Marshal(body)
		rctx, parent := tp.Tracer("test").Start(ctx, "request")
		if last, err = c.Handlers[subject](rctx, messaging.Request{Subject: subject, RequestID: "r", Body: raw, Delivery: 1}); err != nil {
			t.Fatalf("%s: %v", subject, err)
		}
		parent.End()
		var names []string
		for _, s := range rec.Ended() {
			if s.Parent().SpanID() == parent.SpanContext().SpanID() {
				names = append(names, s.Name())
			}
		}
		return names
	}
	content := "spans"
	got := call(contracts.SubjectFileWritten, contracts.FileWrittenRequest{RequestID: "r", WorkspaceID: "ws-1", Path: "a.txt", MimeType: "text/plain", Content: &content})
	for _, want := range []string{"objectstore put", "kv WORKSPACE_FILES record_write"} {
		if !slices.Contains(got, want) {
			t.Errorf("file_written spans %v lack %q", got, want)
		}
	}
	written, _ := json.Marshal(last)
	var res contracts.FileWrittenResult
	if err := json.Unmarshal(written, &res); err != nil || res.ArtifactID == "" {
		t.Fatalf("file_written result %s: %v", written, err)
	}
	got = call(contracts.SubjectGetArtifact, contracts.GetArtifactRequest{RequestID: "r2", Ref: res.ArtifactID, ServiceID: "gpt-4o"})
	for _, want := range []string{"objectstore read", "kv WORKSPACE_FILES get"} {
		if !slices.Contains(got, want) {
			t.Errorf("get_artifact spans %v lack %q", got, want)
		}
	}
	if _, err := c.Claims.Prepare(ctx, "x", nil, make([]byte, 2<<20)); err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(rec.Ended(), func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "objectstore WORKER_CLAIMS put" }) {
		t.Error("no span for the claim-check put")
	}
}
