package routing_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
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
		routing.Assemble(r, contracts.DialectOpenAIChat, "", routing.Formats{})
	}
}

// BenchmarkAssemblePDF measures a routed 1 MB PDF assembled for the OpenAI dialects, whose file parts
// carry a data URL: "routed" reuses the one Route built (file.data is its tail), "from JSON" is the
// same result read from the wire, where Assemble builds the URL again (as it did for every PDF
// before Route shared its URL).
func BenchmarkAssemblePDF(b *testing.B) {
	routed := routing.Route(routing.Input{ID: "bench", Filename: "r.pdf", Content: bigPDF(1 << 20), Capabilities: routing.NewCapabilities("file")})
	wire, _ := json.Marshal(routed)
	var read contracts.ContentRouteResult
	if err := json.Unmarshal(wire, &read); err != nil || routed.Routing != contracts.RouteFile {
		b.Fatalf("routing %s, %v", routed.Routing, err)
	}
	for _, d := range []string{contracts.DialectOpenAIChat, contracts.DialectOpenAIResponses} {
		for name, r := range map[string]contracts.ContentRouteResult{"routed": routed, "from JSON": read} {
			b.Run(d+"/"+name, func(b *testing.B) {
				b.SetBytes(int64(len(r.File.File.Data)))
				b.ReportAllocs()
				for b.Loop() {
					routing.Assemble(r, d, "", routing.Formats{})
				}
			})
		}
	}
}
