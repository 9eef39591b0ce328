package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
	"github.com/agentworks/artifact-worker/routing"
	"github.com/agentworks/artifact-worker/workspace"
)

// fixedFormats gives every service the same formats (a provider's limits, for the page budget).
type fixedFormats routing.Formats

func (f fixedFormats) Formats(string, string) routing.Formats { return routing.Formats(f) }

func pagesHandler(t *testing.T, formats handlers.ModelFormats, files ...string) *handlers.GetArtifact {
	t.Helper()
	store, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		data := testfiles.PDFFile(name)
		if _, err := store.Put(context.Background(), objectstore.ArtifactKey(name), bytes.NewReader(data), int64(len(data)), "application/pdf", map[string]string{"filename": name}); err != nil {
			t.Fatal(err)
		}
	}
	return &handlers.GetArtifact{Blobs: store, MaxSize: 20 << 20, Formats: formats, Pages: pdfpagestest.Renderer(t)}
}

func getArtifact(t *testing.T, h *handlers.GetArtifact, req map[string]any) (contracts.GetArtifactResult, error) {
	t.Helper()
	req["request_id"] = "r1"
	body, _ := json.Marshal(req)
	out, err := h.Handle(context.Background(), handling.Request{RequestID: "r1", Body: body})
	if err != nil {
		return contracts.GetArtifactResult{}, err
	}
	var res contracts.GetArtifactResult
	if err := json.Unmarshal(out.(handling.Encoded), &res); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return res, nil
}

// pageTexts returns, in order, the text parts of seq (a sequence's "T:" entries, prefix removed)
// that come right before an image and start with name's page title ("report.pdf, page "): the
// page texts the images follow.
func pageTexts(seq []string, name string) []string {
	var texts []string
	for i, s := range seq {
		if s == "I" && i > 0 && strings.HasPrefix(seq[i-1], "T:"+name+", page ") {
			texts = append(texts, strings.TrimPrefix(seq[i-1], "T:"))
		}
	}
	return texts
}

// sequence lists an assembly's parts in order: "T:" and the text of each text part, "I" for each
// image part (a data:image URL, an image MIME type, or a Bedrock image format), in every dialect.
func sequence(t *testing.T, a contracts.Assembly) []string {
	t.Helper()
	var out []string
	walk := func(raw json.RawMessage) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		key := ""
		inKey := map[int]bool{} // depth -> next string is a key
		var stack []json.Delim
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				return
			}
			if err != nil {
				t.Fatalf("assembly JSON: %v", err)
			}
			switch v := tok.(type) {
			case json.Delim:
				if v == '{' || v == '[' {
					stack = append(stack, v)
					inKey[len(stack)] = v == '{'
				} else {
					stack = stack[:len(stack)-1]
					if len(stack) > 0 && stack[len(stack)-1] == '{' {
						inKey[len(stack)] = true
					}
				}
				continue
			case string:
				d := len(stack)
				if d > 0 && stack[d-1] == '{' && inKey[d] {
					key, inKey[d] = v, false
					continue
				}
				switch {
				case key == "text":
					out = append(out, "T:"+v)
				case strings.HasPrefix(v, "data:image/"),
					(key == "mimeType" || key == "media_type" || key == "mime_type") && strings.HasPrefix(v, "image/"),
					key == "format" && (v == "png" || v == "jpeg"):
					out = append(out, "I")
				}
				if d == 0 { // a string tool content
					out = append(out, "T:"+v)
				}
			}
			if d := len(stack); d > 0 && stack[d-1] == '{' {
				inKey[d] = true
			}
		}
	}
	walk(a.ToolContent)
	for _, m := range a.FollowUp {
		walk(m.Content)
		walk(m.Parts)
	}
	return out
}

func TestPagesForAVisionOnlyModelInEveryDialect(t *testing.T) {
	h := pagesHandler(t, nil, "report.pdf")
	for _, dialect := range contracts.Dialects {
		t.Run(dialect, func(t *testing.T) {
			res, err := getArtifact(t, h, map[string]any{"ref": "report.pdf", "capabilities": []string{"text", "vision"}, "dialect": dialect, "locale": "en"})
			if err != nil {
				t.Fatal(err)
			}
			if res.Routing != contracts.RoutePages || res.Pages == nil || res.Pages.Total != 2 || res.Pages.Sent != "1-2" || len(res.Pages.Images) != 2 {
				t.Fatalf("routing %s, pages %+v", res.Routing, res.Pages)
			}
			if !strings.HasPrefix(res.Content, "report.pdf (artifact:report.pdf): a PDF of 2 pages. Pages 1-2 follow") {
				t.Errorf("content %q", res.Content)
			}
			// Each page: its name and text layer, then its image, in order.
			seq := sequence(t, res.Assembly)
			pages := pageTexts(seq, "report.pdf")
			if len(pages) != 2 || !strings.HasPrefix(pages[0], "report.pdf, page 1 of 2\nText layer:\nQuarterly Report") ||
				!strings.HasPrefix(pages[1], "report.pdf, page 2 of 2\nText layer:\n") || !strings.Contains(pages[1], "Page two") {
				t.Errorf("pages in the assembly: %q (sequence %d parts)", pages, len(seq))
			}
			if n := strings.Count(strings.Join(seq, "\x00"), "I"); n != 2 {
				t.Errorf("%d images in the assembly, want 2", n)
			}
			if res.Usage.InputTokens <= 0 || res.Usage.TokensSaved <= 0 || res.Usage.Basis == contracts.UsageUnknown {
				t.Errorf("usage %+v", res.Usage)
			}
		})
	}
}

func TestPagesLeaveOtherModelsAlone(t *testing.T) {
	h := pagesHandler(t, nil, "report.pdf")
	// A model that takes PDFs gets the file.
	res, err := getArtifact(t, h, map[string]any{"ref": "report.pdf", "capabilities": []string{"text", "vision", "file"}, "dialect": "anthropic"})
	if err != nil || res.Routing != contracts.RouteFile || res.Pages != nil {
		t.Errorf("PDF-reading model: routing %s, pages %v, %v", res.Routing, res.Pages, err)
	}
	// A text-only model gets the description.
	res, err = getArtifact(t, h, map[string]any{"ref": "report.pdf", "capabilities": []string{"text"}, "locale": "en"})
	if err != nil || res.Routing != contracts.RouteText || !strings.HasPrefix(res.Content, "[Cannot read] report.pdf") {
		t.Errorf("text-only model: routing %s, content %q, %v", res.Routing, res.Content, err)
	}
	// extract_text true asks for the text alone.
	res, err = getArtifact(t, h, map[string]any{"ref": "report.pdf", "capabilities": []string{"text", "vision"}, "extract_text": true, "locale": "en"})
	if err != nil || res.Routing != contracts.RouteText || res.Metadata.Extracted == nil {
		t.Errorf("extract_text: routing %s, %v", res.Routing, err)
	}
}

func TestPagesSelectionBudgetAndLeftOut(t *testing.T) {
	// A provider that takes at most 3 images a request.
	h := pagesHandler(t, fixedFormats(routing.Formats{Image: []string{"png", "jpeg"}, Limits: routing.ImageLimits{MaxLongEdge: 1568}, Request: contracts.RequestLimits{MaxImages: 3}}), "pages300.pdf")
	res, err := getArtifact(t, h, map[string]any{"ref": "pages300.pdf", "capabilities": []string{"text", "vision"}, "locale": "en", "dialect": "anthropic"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages.Sent != "1-3" || res.Pages.Left != "4-300" || !strings.Contains(res.Content, `Pages 4-300 not included; ask with pages (for example pages "4-300").`) {
		t.Errorf("sent %s, left %s, content %q", res.Pages.Sent, res.Pages.Left, res.Content)
	}
	res, err = getArtifact(t, h, map[string]any{"ref": "pages300.pdf", "capabilities": []string{"text", "vision"}, "pages": "7,150-151", "media": "assembly"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pages.Sent != "7,150-151" || res.Pages.Left != "" || res.Pages.Images != nil || !strings.Contains(res.Content, "第 7,150-151 页") {
		t.Errorf("selection: sent %s, left %s, %d images in the result, content %q", res.Pages.Sent, res.Pages.Left, len(res.Pages.Images), res.Content)
	}
	_, err = getArtifact(t, h, map[string]any{"ref": "pages300.pdf", "capabilities": []string{"text", "vision"}, "pages": "5-2"})
	var ce *contracts.Error
	if !errors.As(err, &ce) || ce.Code != contracts.CodeInvalidRequest || ce.Field != "pages" || !strings.Contains(ce.Message, "runs backwards") {
		t.Errorf("bad pages: %v", err)
	}
}

func TestPagesOfBadPDFsAreDescribed(t *testing.T) {
	h := pagesHandler(t, nil, "locked.pdf", "broken.pdf", "zero.pdf")
	for name, want := range map[string]string{
		"locked.pdf": "[Cannot read] locked.pdf (artifact:locked.pdf)\nThe PDF is encrypted",
		"broken.pdf": "[File processing failed: broken.pdf]",
		"zero.pdf":   "[Cannot read] zero.pdf (artifact:zero.pdf)\nThe PDF has no pages.",
	} {
		res, err := getArtifact(t, h, map[string]any{"ref": name, "capabilities": []string{"text", "vision"}, "locale": "en"})
		if err != nil || res.Routing != contracts.RouteText || !strings.HasPrefix(res.Content, want) {
			t.Errorf("%s: routing %s, content %q, %v", name, res.Routing, res.Content, err)
		}
	}
}

// TestPagesOfTenThousandPages: a PDF of 10,000 pages (generated, about 1.3 MB) opens within the
// default RENDER_TIMEOUT and the default memory budget; only the budgeted pages are drawn (the
// renderer's PDF_MAX_PAGES, or fewer for a provider's image limit), the answer names the pages left
// out with the pages value that asks for them, and a selection at the end of the document works.
// There is no page-count cap (the renderer never walks all pages: a selection costs its ranges);
// the cap is the file's size (MAX_ARTIFACT_BYTES): a larger file is described as too large.
func TestPagesOfTenThousandPages(t *testing.T) {
	t.Parallel()
	data := testfiles.ManyPagesPDF(10_000)
	store, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Put(context.Background(), objectstore.ArtifactKey("big.pdf"), bytes.NewReader(data), int64(len(data)), "application/pdf", map[string]string{"filename": "big.pdf"}); err != nil {
		t.Fatal(err)
	}
	// The worker's defaults: RENDER_TIMEOUT 15 s, PDF_MAX_PAGES 20 (the shared test renderer's
	// timeout is minutes). The compile (or the cache's load) comes before the timeout starts.
	r, err := pdfpages.New(pdfpages.Config{CacheDir: pdfpagestest.CacheDir(), Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if r.Config().Timeout != pdfpages.DefaultTimeout || r.Config().MaxPages != pdfpages.DefaultMaxPages {
		t.Fatalf("config %+v", r.Config())
	}
	ask := func(h *handlers.GetArtifact, req map[string]any) contracts.GetArtifactResult {
		t.Helper()
		req["request_id"], req["ref"], req["capabilities"], req["locale"] = "r1", "big.pdf", []string{"text", "vision"}, "en"
		body, _ := json.Marshal(req)
		budget := membudget.New(512 << 20) // MEMORY_BUDGET's default
		ctx, release := budget.Attach(context.Background())
		defer release()
		start := time.Now()
		out, err := h.Handle(ctx, handling.Request{RequestID: "r1", Body: body})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("pages %v: answered in %s, %d bytes charged", req["pages"], time.Since(start).Round(time.Millisecond), budget.Used())
		var res contracts.GetArtifactResult
		if err := json.Unmarshal(out.(handling.Encoded), &res); err != nil {
			t.Fatal(err)
		}
		// Drawing was charged (beyond the read) before it started, within the default budget.
		if res.Routing == contracts.RoutePages && (budget.Used() <= membudget.ArtifactFactor*int64(len(data)) || budget.Used() > budget.Size()) {
			t.Errorf("%d bytes charged to a budget of %d", budget.Used(), budget.Size())
		}
		return res
	}
	h := &handlers.GetArtifact{Blobs: store, MaxSize: 20 << 20, Pages: r}

	res := ask(h, map[string]any{"dialect": "anthropic"})
	if res.Routing != contracts.RoutePages || res.Pages.Total != 10_000 || res.Pages.TimedOut || res.Pages.Sent != "1-20" || res.Pages.Left != "21-10000" || len(res.Pages.Images) != 20 {
		t.Fatalf("routing %s, total %d, timed out %v, sent %s, left %s, %d images", res.Routing, res.Pages.Total, res.Pages.TimedOut, res.Pages.Sent, res.Pages.Left, len(res.Pages.Images))
	}
	if !strings.Contains(res.Content, "a PDF of 10000 pages. Pages 1-20 follow") || !strings.Contains(res.Content, `Pages 21-10000 not included; ask with pages (for example pages "21-10000").`) {
		t.Errorf("content %q", res.Content)
	}

	// The end of the document, asked for.
	res = ask(h, map[string]any{"dialect": "openai-chat", "pages": "9999-10000"})
	if res.Pages.Sent != "9999-10000" || res.Pages.Left != "" || len(res.Pages.Images) != 2 || strings.Contains(res.Content, "not included") {
		t.Fatalf("sent %s, left %s, %d images, content %q", res.Pages.Sent, res.Pages.Left, len(res.Pages.Images), res.Content)
	}
	if p := res.Pages.Images[1]; p.Page != 10_000 || p.Text != "big.pdf, page 10000 of 10000\nText layer:\nPage 10000" {
		t.Errorf("last page %d: %q", p.Page, p.Text)
	}

	// A provider's image limit lowers the budget below PDF_MAX_PAGES.
	five := fixedFormats(routing.Formats{Image: []string{"png", "jpeg"}, Limits: routing.ImageLimits{MaxLongEdge: 1568}, Request: contracts.RequestLimits{MaxImages: 5}})
	res = ask(&handlers.GetArtifact{Blobs: store, MaxSize: 20 << 20, Pages: r, Formats: five}, map[string]any{"dialect": "anthropic", "pages": "9990-"})
	if res.Pages.Sent != "9990-9994" || res.Pages.Left != "9995-10000" || !strings.Contains(res.Content, `Pages 9995-10000 not included; ask with pages (for example pages "9995-10000").`) {
		t.Errorf("sent %s, left %s, content %q", res.Pages.Sent, res.Pages.Left, res.Content)
	}

	// Over MAX_ARTIFACT_BYTES: not read, not drawn, described as too large.
	res = ask(&handlers.GetArtifact{Blobs: store, MaxSize: int64(len(data)) - 1, Pages: r}, map[string]any{"dialect": "anthropic"})
	if res.Routing != contracts.RouteText || res.Pages != nil || !strings.Contains(res.Content, "The file exceeds the size limit and was not loaded.") {
		t.Errorf("too large: routing %s, content %q", res.Routing, res.Content)
	}
}

// TestPagesOfAWorkspaceFile: a PDF named by a ws: reference (a file an agent wrote) goes to a model
// that reads images but takes no PDF as its pages, as an artifact does.
//
//	go test -run TestPagesOfAWorkspaceFile ./handlers/
func TestPagesOfAWorkspaceFile(t *testing.T) {
	h := pagesHandler(t, nil)
	data := testfiles.PDFFile("report.pdf")
	if _, err := h.Blobs.(*objectstore.Local).Put(context.Background(), objectstore.WorkspaceKey("ws-1", "docs/report.pdf"), bytes.NewReader(data), int64(len(data)), "application/pdf", nil); err != nil {
		t.Fatal(err)
	}
	id, err := workspace.EncodeID("ws-1", "docs/report.pdf")
	if err != nil {
		t.Fatal(err)
	}
	res, err := getArtifact(t, h, map[string]any{"ref": id, "capabilities": []string{"text", "vision"}, "dialect": "gemini", "locale": "en", "pages": "2"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Routing != contracts.RoutePages || res.Pages == nil || res.Pages.Total != 2 || res.Pages.Sent != "2" || len(res.Pages.Images) != 1 ||
		!strings.HasPrefix(res.Pages.Images[0].Text, "report.pdf, page 2 of 2\nText layer:\nPage two") {
		t.Fatalf("routing %s, pages %+v, content %q", res.Routing, res.Pages, res.Content)
	}
	if seq := sequence(t, res.Assembly); len(seq) < 2 || seq[len(seq)-1] != "I" || seq[len(seq)-2] != "T:"+res.Pages.Images[0].Text {
		t.Errorf("assembly %q", seq)
	}
}
