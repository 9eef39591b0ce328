package service_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
	"github.com/agentworks/artifact-worker/service"
)

// TestGetArtifactPDFPagesEndToEnd: a PDF in the store, a request over NATS for a model that reads
// images but takes no PDF, the reply with the page asked for as an image, through the service's
// wiring (the renderer Build makes, its cache under DATA_DIR).
func TestGetArtifactPDFPagesEndToEnd(t *testing.T) {
	w := startWorker(t, func(c *service.Config) {
		// The compiled module the other tests of the machine share, when there is one: a cold
		// compile takes seconds (the request would wait for it, within its delivery's time).
		_ = os.CopyFS(filepath.Join(c.DataDir, "wasm-cache"), os.DirFS(pdfpagestest.CacheDir()))
	})
	w.PutArtifact("rep", "application/pdf", "report.pdf", testfiles.PDFFile("report.pdf"))
	rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "artifact:rep", Capabilities: []string{"text", "vision"}, Locale: "en", Dialect: "anthropic", Pages: "2"})
	if !rep.OK {
		t.Fatalf("reply %+v", rep.Error)
	}
	if res.Routing != contracts.RoutePages || res.Pages == nil || res.Pages.Sent != "2" || len(res.Pages.Images) != 1 ||
		!strings.HasPrefix(res.Pages.Images[0].Text, "report.pdf, page 2 of 2\nText layer:\nPage two") {
		t.Fatalf("routing %s, pages %+v", res.Routing, res.Pages)
	}
	if !strings.Contains(string(res.Assembly.ToolContent), `"type":"image"`) {
		t.Errorf("assembly %.300s", res.Assembly.ToolContent)
	}
}
