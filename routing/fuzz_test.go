package routing_test

import (
	"encoding/json"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/routing"
)

// FuzzDetect feeds Detect (and Route, which parses the same outside input) arbitrary names,
// declared types and bytes: it must never panic and must always return a well-formed Detection.
//
//	go test ./routing -run '^$' -fuzz FuzzDetect -fuzztime 30s
func FuzzDetect(f *testing.F) {
	for i, b := range fixtures {
		f.Add("file", declaredMIMEs[i%len(declaredMIMEs)], b, int64(len(b)))
	}
	f.Add("a.png", "image/png", []byte{}, int64(0))
	f.Add("", "", []byte("\xef\xbb\xbf"), int64(10))
	f.Add("x", "text/plain;;charset", []byte{0xff, 0xfe, 0}, int64(-1))
	kinds := map[string]bool{routing.KindText: true, contracts.BinaryImage: true, contracts.BinaryAudio: true,
		contracts.BinaryVideo: true, contracts.BinaryDocument: true, contracts.BinaryOther: true}
	sources := map[string]bool{routing.SourceMIME: true, routing.SourceExtension: true, routing.SourceContent: true}

	f.Fuzz(func(t *testing.T, filename, declared string, head []byte, size int64) {
		d := routing.Detect(routing.DetectInput{Filename: filename, DeclaredMIME: declared, Head: head, Size: size})
		if !kinds[d.Kind] || !sources[d.Source] || d.MIME == "" || d.Confidence < 0 || d.Confidence > 1 {
			t.Fatalf("malformed detection %+v", d)
		}
		if d.IsText != (d.Kind == routing.KindText) {
			t.Fatalf("IsText %v with kind %s", d.IsText, d.Kind)
		}
		whole := int64(len(head)) >= size
		if len(head) > 0 && whole && d.IsText && !isPlainText(head) {
			t.Fatalf("bytes %q detected as text", head)
		}
		dialect := contracts.Dialects[len(head)%len(contracts.Dialects)]
		r := routing.Route(routing.Input{ID: "f", Filename: filename, DeclaredMIME: declared, Content: head,
			Capabilities: routing.NewCapabilities("vision", "file", "audio", "video"), Dialect: dialect})
		if r.ContentType == contracts.ContentText && r.Content != string(head) {
			t.Fatalf("text content %q differs from %q", r.Content, head)
		}
		for _, d := range contracts.Dialects {
			for _, where := range []string{routing.ToolResultMediaInline, routing.ToolResultMediaFollowUp} {
				if a := routing.Assemble(r, d, "", routing.Formats{ToolResultMedia: where}); !json.Valid(a.ToolContent) {
					t.Fatalf("%s (%s) toolContent is not JSON: %s", d, where, a.ToolContent)
				}
			}
		}
	})
}
