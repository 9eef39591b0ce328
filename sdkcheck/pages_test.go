package sdkcheck

import (
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// TestPDFPagesDecodeIntoSDKTypes: a PDF sent as page images (routing pages: text, image, text,
// image) decodes into every provider's official types, with both pages' images where the provider
// takes them.
func TestPDFPagesDecodeIntoSDKTypes(t *testing.T) {
	png := testfiles.PNG(60, 80)
	page := func(n int) routing.RenderedPage {
		info := imaging.Info{Format: "png", Width: 60, Height: 80, Bytes: int64(len(png))}
		return routing.RenderedPage{Number: n, Text: "page text", Image: imaging.Result{Data: png, Format: "png", Original: info, Sent: info}}
	}
	described := routing.Route(routing.Input{ID: "a1", Filename: "report.pdf", Content: testfiles.PDF(), Capabilities: routing.NewCapabilities("text", "vision"), Locale: "en"})
	res := routing.WithPages(described, routing.RenderedPages{Total: 9, Pages: []routing.RenderedPage{page(1), page(2)}, Left: "3-9"}, "en")
	for _, v := range variants {
		t.Run(v.String(), func(t *testing.T) {
			a := routing.Assemble(res, v.dialect, "en", v.formats())
			turn, err := client.Turn([]client.ToolResult{{CallID: "call_1", Name: "get_artifact", Assembly: a}})
			if err != nil {
				t.Fatal(err)
			}
			roles, p := decoders[v.dialect](t, turn)
			if p.images != 2 || p.total() != 2 {
				t.Errorf("%+v media parts, want 2 images", p)
			}
			if want := 1 + len(v.mediaMessages()); len(roles) != want {
				t.Errorf("roles %v, want %d messages", roles, want)
			}
			checkOrdering(t, v, roles)
			text := string(joined(turn))
			for _, want := range []string{"report.pdf, page 1 of 9", "report.pdf, page 2 of 9", `Pages 3-9 not included`} {
				if !strings.Contains(text, want) {
					t.Errorf("the turn lacks %q", want)
				}
			}
		})
	}
	if res.Routing != contracts.RoutePages {
		t.Fatalf("routing %s", res.Routing)
	}
}
