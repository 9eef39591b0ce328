package mcpserver

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// BenchmarkFitClaudeDesktop fits the case to Claude Desktop's 1 MB: a 1200x900 PNG of
// incompressible RGB noise (3.2 MB), which claude-sonnet-4 takes whole, in a get_artifact result.
// Target: under 0.5 s of CPU per result (a decode and one or two encodes), the one extra cost worker
// mcp adds to the worker's reply; the result's size is counted without encoding the media.
func BenchmarkFitClaudeDesktop(b *testing.B) {
	png := testfiles.OpaqueNoisyPNG(1200, 900)
	f := fitter{max: DefaultMaxResultBytes, locale: "en"}
	var n int
	for b.Loop() {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Artifact content (screen.png):"},
			&mcp.ImageContent{Data: png, MIMEType: "image/png"}}}
		n = size(f.fit(res, source{id: "screen", name: "screen.png", mime: "image/png", size: int64(len(png))}))
	}
	if n > DefaultMaxResultBytes {
		b.Fatalf("result of %d bytes", n)
	}
	b.ReportMetric(float64(n), "result-bytes")
	b.ReportMetric(float64(len(png)), "png-bytes")
}

// size counts media by its base64 length without encoding it: the same as the JSON, plus the
// envelope.
func TestSizeIsTheJSONLength(t *testing.T) {
	blob := testfiles.PDF()
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a \"quoted\" line\n文字"},
		&mcp.ImageContent{Data: testfiles.PNG(40, 30), MIMEType: "image/png"},
		&mcp.AudioContent{Data: testfiles.WAV(), MIMEType: "audio/wav"},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "artifact:x", MIMEType: "application/pdf", Blob: blob}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "artifact:y", MIMEType: "text/plain", Text: "hello"}},
	}}
	if got, want := size(res), jsonLen(res)+envelope; got != want {
		t.Fatalf("size %d, want %d", got, want)
	}
}
