package handlers_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// pdfCase is what a model that reads images but takes no PDF gets for one of the repository's
// PDFs: its pages (each page's text part, in order) or, for a PDF that cannot be drawn, a
// description.
type pdfCase struct {
	total       int
	sent, left  string
	texts       []string // each page's text part, exactly; nil: checked by prefix only (pages300.pdf)
	format      string   // the first page's image format; "": png or jpeg, whichever is smaller
	portrait    bool     // the first page is taller than wide
	description string   // routing text: the content's start
}

var pdfCases = map[string]pdfCase{
	"report.pdf":   {total: 2, sent: "1-2", format: "png", portrait: true},
	"chart.pdf":    {total: 1, sent: "1", texts: []string{"chart.pdf, page 1 of 1"}, format: "png", portrait: true},
	"scanned.pdf":  {total: 1, sent: "1", texts: []string{"scanned.pdf, page 1 of 1"}, portrait: true},
	"rotated.pdf":  {total: 1, sent: "1", texts: []string{"rotated.pdf, page 1 of 1\nText layer:\nRotated page"}, format: "png", portrait: true},
	"pages300.pdf": {total: 300, sent: "1-4", left: "5-300", format: "png"}, // the provider's 4 images
	"locked.pdf":   {description: "[Cannot read] locked.pdf (artifact:locked.pdf)\nThe PDF is encrypted"},
	"broken.pdf":   {description: "[File processing failed: broken.pdf]"},
}

// TestEveryPDFForEveryKindOfModelInEveryDialect: each of the repository's PDFs (a text report, a
// vector chart without text, a scanned page without a text layer, a rotated page, an encrypted
// file, 300 pages, a broken file), asked for by a model that reads images but takes no PDF, one
// that takes PDFs and a text-only one, in every dialect. The first gets the pages (each page's
// name and text layer, then its image, in order; the left-out pages named; usage by the provider's
// formula per page) or a description saying why there are none; the other two get exactly what a
// worker without the renderer answers (the PDF-reading model the file itself, unchanged).
//
//	go test -run TestEveryPDFForEveryKindOfModelInEveryDialect ./handlers/
func TestEveryPDFForEveryKindOfModelInEveryDialect(t *testing.T) {
	t.Parallel()
	var names []string
	for name := range pdfCases {
		names = append(names, name)
	}
	// A provider that takes at most 4 images a request (otherwise the defaults): the page budget
	// follows it (PDF_MAX_PAGES's 20 is TestPagesOfTenThousandPages's).
	h := pagesHandler(t, fixedFormats(fourImages()), names...)
	without := *h
	without.Pages = nil // today's answers, from a worker without the renderer

	ask := func(t *testing.T, h *handlers.GetArtifact, req map[string]any) ([]byte, contracts.GetArtifactResult) {
		t.Helper()
		req["request_id"], req["locale"] = "r1", "en"
		body, _ := json.Marshal(req)
		out, err := h.Handle(context.Background(), handling.Request{RequestID: "r1", Body: body})
		if err != nil {
			t.Fatal(err)
		}
		raw := []byte(out.(handling.Encoded))
		var res contracts.GetArtifactResult
		if err := json.Unmarshal(raw, &res); err != nil {
			t.Fatal(err)
		}
		return raw, res
	}
	for name, want := range pdfCases {
		for _, dialect := range contracts.Dialects {
			t.Run(name+"/"+dialect, func(t *testing.T) {
				t.Parallel()
				req := func(caps ...string) map[string]any {
					return map[string]any{"ref": name, "capabilities": caps, "dialect": dialect}
				}

				// A model that takes PDFs, and a text-only one: unchanged.
				for _, caps := range [][]string{{"text", "vision", "file"}, {"text"}} {
					got, res := ask(t, h, req(caps...))
					before, _ := ask(t, &without, req(caps...))
					if !bytes.Equal(got, before) || res.Pages != nil {
						t.Errorf("%v: the answer changed with the renderer:\n%s\nwithout it:\n%s", caps, got, before)
					}
					if n := strings.Count(strings.Join(sequence(t, res.Assembly), "\x00"), "I"); n != 0 {
						t.Errorf("%v: %d images in the assembly", caps, n)
					}
					switch {
					case caps[0] == "text" && len(caps) == 1 && res.Routing != contracts.RouteText:
						t.Errorf("text-only model: routing %s", res.Routing)
					case len(caps) == 3 && name != "broken.pdf" && res.Routing != contracts.RouteFile:
						t.Errorf("PDF-reading model: routing %s", res.Routing)
					case len(caps) == 3 && res.Routing == contracts.RouteFile:
						data := base64.StdEncoding.EncodeToString(testfiles.PDFFile(name))
						if !strings.Contains(string(res.Assembly.ToolContent)+followUp(res.Assembly), data) {
							t.Errorf("PDF-reading model: the file's bytes are not in the assembly")
						}
					}
				}

				// A model that reads images but takes no PDF.
				_, res := ask(t, h, req("text", "vision"))
				seq := sequence(t, res.Assembly)
				images := strings.Count(strings.Join(seq, "\x00"), "I")
				if want.description != "" {
					if res.Routing != contracts.RouteText || res.Pages != nil || !strings.HasPrefix(res.Content, want.description) || images != 0 {
						t.Errorf("routing %s, %d images, content %q", res.Routing, images, res.Content)
					}
					return
				}
				if res.Routing != contracts.RoutePages || res.Pages == nil {
					t.Fatalf("routing %s, content %q", res.Routing, res.Content)
				}
				p := res.Pages
				if p.Total != want.total || p.Sent != want.sent || p.Left != want.left || len(p.Images) != images {
					t.Fatalf("total %d, sent %s, left %s, %d page images, %d images in the assembly", p.Total, p.Sent, p.Left, len(p.Images), images)
				}
				if want.left != "" && !strings.Contains(res.Content, "Pages "+want.left+" not included; ask with pages") {
					t.Errorf("content %q does not name the pages left out", res.Content)
				}
				// Each page's text part comes right before its image, in order.
				texts := pageTexts(seq, name)
				if len(texts) != len(p.Images) {
					t.Fatalf("%d images preceded by their page's name, want %d: %q", len(texts), len(p.Images), texts)
				}
				for i, img := range p.Images {
					if img.Page != i+1 || texts[i] != img.Text || !strings.HasPrefix(img.Text, name+", page ") {
						t.Errorf("page %d (#%d): text %q, in the assembly %q", img.Page, i, img.Text, texts[i])
					}
				}
				if want.texts != nil && !slices.Equal(texts, want.texts) {
					t.Errorf("page texts %q, want %q", texts, want.texts)
				}
				if name == "report.pdf" && (!strings.Contains(texts[0], "\nText layer:\n") || !strings.Contains(texts[0], "Revenue grew by 12 percent")) {
					t.Errorf("report page 1: %q", texts[0])
				}
				// usage counts each page by the provider's formula (the dialect's, without a registry), plus
				// the texts (at most a token a byte).
				var imageTokens, textBytes int64 = 0, int64(len(res.Content))
				for _, img := range p.Images {
					imageTokens += routing.ImageTokens(img.ImageProcessing.Sent.Width, img.ImageProcessing.Sent.Height, res.Usage.Basis)
					textBytes += int64(len(img.Text))
				}
				if wantBasis := routing.TokenRule(dialect, routing.DefaultFormats()); res.Usage.Basis != wantBasis || imageTokens == 0 ||
					res.Usage.InputTokens < imageTokens || res.Usage.InputTokens > imageTokens+textBytes {
					t.Errorf("usage %+v: the pages cost %d tokens by %s's formula, the texts %d bytes", res.Usage, imageTokens, wantBasis, textBytes)
				}
				sent := p.Images[0].ImageProcessing.Sent
				if want.format == "" && (sent.Format == "png" || sent.Format == "jpeg") {
					want.format = sent.Format // a clean 60-dpi scan of text: PNG comes out smaller
				}
				if sent.Format != want.format || (sent.Height > sent.Width) != want.portrait {
					t.Errorf("page 1 sent as %s %dx%d, want %s (portrait %v)", sent.Format, sent.Width, sent.Height, want.format, want.portrait)
				}
			})
		}
	}
}

func followUp(a contracts.Assembly) string {
	var b strings.Builder
	for _, m := range a.FollowUp {
		b.Write(m.Content)
		b.Write(m.Parts)
	}
	return b.String()
}

// fourImages is routing's default formats with a limit of 4 images a request.
func fourImages() routing.Formats {
	f := routing.DefaultFormats()
	f.Request.MaxImages = 4
	return f
}
