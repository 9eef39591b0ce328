package handlers_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
)

// TestHistoryPDFPagesInEveryDialect: tool.get_history_image of a cached PDF ([File:history_...])
// answers a model that reads images but takes no PDF with its pages in every dialect (each page's
// name and text layer, then its image, in order), and a PDF-reading or text-only model exactly as a
// worker without the renderer does.
//
//	go test -run TestHistoryPDFPagesInEveryDialect ./handlers/
func TestHistoryPDFPagesInEveryDialect(t *testing.T) {
	t.Parallel()
	data := base64.StdEncoding.EncodeToString(testfiles.PDFFile("report.pdf"))
	sum := md5.Sum([]byte(data))
	id := hex.EncodeToString(sum[:])
	cache := memCache{id: historyimage.Image{Data: data, MimeType: "application/pdf", Filename: "report.pdf"}}
	h := &handlers.GetHistoryImage{Cache: cache, Pages: pdfpagestest.Renderer(t)}
	without := &handlers.GetHistoryImage{Cache: cache}
	ask := func(t *testing.T, h *handlers.GetHistoryImage, dialect string, caps ...string) ([]byte, contracts.GetHistoryImageResult) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"request_id": "r1", "image_md5": id, "capabilities": caps, "dialect": dialect, "locale": "en", "media": "assembly"})
		out, err := h.Handle(context.Background(), handling.Request{RequestID: "r1", Body: body})
		if err != nil {
			t.Fatal(err)
		}
		res := out.(contracts.GetHistoryImageResult)
		raw, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return raw, res
	}
	for _, dialect := range contracts.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			_, res := ask(t, h, dialect, "text", "vision")
			if res.Pages == nil || res.Pages.Total != 2 || res.Pages.Sent != "1-2" {
				t.Fatalf("pages %+v", res.Pages)
			}
			seq := sequence(t, res.Assembly)
			texts := pageTexts(seq, "report.pdf")
			if len(texts) != 2 || !strings.HasPrefix(texts[0], "report.pdf, page 1 of 2\nText layer:\nQuarterly Report") ||
				!strings.HasPrefix(texts[1], "report.pdf, page 2 of 2\nText layer:\nPage two") || strings.Count(strings.Join(seq, "\x00"), "I") != 2 {
				t.Errorf("assembly %q", seq)
			}
			for _, caps := range [][]string{{"text", "vision", "file"}, {"text"}} {
				got, res := ask(t, h, dialect, caps...)
				before, _ := ask(t, without, dialect, caps...)
				if !bytes.Equal(got, before) || res.Pages != nil {
					t.Errorf("%v: the answer changed with the renderer:\n%s\nwithout it:\n%s", caps, got, before)
				}
			}
		})
	}
}
