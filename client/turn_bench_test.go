package client_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/routing"
)

// BenchmarkTurn: a turn of three calls carrying 4.4 MB of base64 each, in anthropic, without limits
// and with the provider's per-request limits. Targets: Turn allocates about 2x the media it
// carries (each answer, then the message grouping them), and a turn within the limits costs what
// one without limits does (a scan of the bytes decides it; only a turn that may pass them is
// parsed).
func BenchmarkTurn(b *testing.B) {
	data := base64.StdEncoding.EncodeToString([]byte(strings.Repeat("\x89PNG-media-", 300_000)))
	limits := routing.DefaultFormats()
	limits.Request = contracts.RequestLimits{MaxImages: 100, MaxBytes: 32 << 20, MaxPDFPages: 100}
	for _, tt := range []struct {
		name string
		f    routing.Formats
	}{{"no limits", routing.DefaultFormats()}, {"within limits", limits}} {
		b.Run(tt.name, func(b *testing.B) {
			var results []client.ToolResult
			for _, id := range []string{"c1", "c2", "c3"} {
				a := routing.AssembleImage("image/png", data, "x", contracts.DialectAnthropic, "en", tt.f)
				results = append(results, client.ToolResult{CallID: id, Name: "get_artifact", Assembly: a})
			}
			b.SetBytes(int64(3 * len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := client.Turn(results); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
