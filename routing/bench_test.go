package routing_test

import (
	"bytes"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// BenchmarkRoute measures the hot path: a 1 MB PNG for a vision model becomes a data URL.
func BenchmarkRoute(b *testing.B) {
	img := testfiles.NoisyPNG(600, 600)
	in := routing.Input{ID: "bench", Filename: "big.png", DeclaredMIME: "image/png", Content: img,
		Capabilities: routing.NewCapabilities("vision")}
	if r := routing.Route(in); r.Routing != contracts.RouteImageURL {
		b.Fatalf("routing %s, want image_url", r.Routing)
	}
	b.SetBytes(int64(len(img)))
	b.ReportAllocs()
	for b.Loop() {
		routing.Route(in)
	}
	b.ReportMetric(float64(len(img))/(1<<20), "MiB/op")
}

// BenchmarkRouteText measures 1 MB of UTF-8 text, which is validated and copied into a string.
func BenchmarkRouteText(b *testing.B) {
	text := bytes.Repeat(testfiles.Text(), (1<<20)/len(testfiles.Text()))
	in := routing.Input{ID: "bench", Filename: "big.txt", DeclaredMIME: "text/plain", Content: text}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		routing.Route(in)
	}
}

// BenchmarkAssemble measures turning the routed 1 MB PNG into an openai-chat follow-up message.
func BenchmarkAssemble(b *testing.B) {
	r := routing.Route(routing.Input{ID: "bench", Filename: "big.png", Content: testfiles.NoisyPNG(600, 600),
		Capabilities: routing.NewCapabilities("vision")})
	b.ReportAllocs()
	for b.Loop() {
		routing.Assemble(r, contracts.DialectOpenAIChat, "")
	}
}
