package service_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
	"github.com/agentworks/artifact-worker/service"
)

// withSharedWasmCache gives the worker the compiled module the other tests of the machine share
// (pdfpagestest.CacheDir), when there is one: a cold compile takes seconds, and the first PDF drawn
// would wait for it (within its delivery's time).
func withSharedWasmCache(c *service.Config) {
	_ = os.CopyFS(filepath.Join(c.DataDir, "wasm-cache"), os.DirFS(pdfpagestest.CacheDir()))
}

// TestGetArtifactPDFPagesEndToEnd: a PDF in the store, a request over NATS for a model that reads
// images but takes no PDF, the reply with the page asked for as an image, through the service's
// wiring (the renderer Build makes, its cache under DATA_DIR).
func TestGetArtifactPDFPagesEndToEnd(t *testing.T) {
	w := startWorker(t, withSharedWasmCache)
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

// TestGetHistoryImagePDFPagesEndToEnd: a PDF that preprocess took out of an older turn
// ([File:history_...]) and fetched for a model that reads images but takes no PDF comes back as
// its pages, each after the same text as tool.get_artifact sends (its name and text layer).
func TestGetHistoryImagePDFPagesEndToEnd(t *testing.T) {
	w := startWorker(t, withSharedWasmCache)
	data := testfiles.PDFFile("report.pdf")
	pdf := base64.StdEncoding.EncodeToString(data)
	// openai-chat: its file parts carry the filename, cached with the PDF.
	ctx := agentsession.Build(agentsession.Session{Dialect: contracts.DialectOpenAIChat, Task: "Summarise the report.", Turns: 2,
		Media: func(i int) agentsession.Media {
			if i == 0 {
				return agentsession.Media{MIME: "application/pdf", Base64: pdf, Filename: "report.pdf"}
			}
			return agentsession.Media{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(testfiles.PNG(33, 21))}
		}})
	rep, pre := preprocessIn(t, w, ctx, `"dialect":"openai-chat"`)
	placeholder := "[File:history_" + md5hex(pdf) + "]"
	if !rep.OK || !strings.Contains(string(pre.Messages), placeholder) {
		t.Fatalf("preprocess %+v: %.300s", rep.Error, pre.Messages)
	}
	w.PutArtifact("rep", "application/pdf", "report.pdf", data)
	rep, art := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "artifact:rep", Capabilities: []string{"text", "vision"}, Locale: "en", Dialect: "anthropic"})
	if !rep.OK || art.Pages == nil || len(art.Pages.Images) != 2 {
		t.Fatalf("get_artifact %+v %+v", rep.Error, art.Pages)
	}

	hrep, got := historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: placeholder, Capabilities: []string{"text", "vision"}, Locale: "en", Dialect: "anthropic"})
	if !hrep.OK {
		t.Fatalf("%+v", hrep.Error)
	}
	if got.Pages == nil || got.Pages.Total != 2 || got.Pages.Sent != "1-2" || len(got.Pages.Images) != 2 || len(got.Content) != 2 {
		t.Fatalf("pages %+v, %d content blocks", got.Pages, len(got.Content))
	}
	for i, p := range got.Pages.Images {
		if want := art.Pages.Images[i].Text; p.Text != want {
			t.Errorf("page %d text %q, get_artifact sends %q", i+1, p.Text, want)
		}
		if c := got.Content[i]; c.Type != "image" || !strings.HasPrefix(c.MimeType, "image/") || "data:"+c.MimeType+";base64,"+c.Base64 != p.ImageURL.ImageURL.URL {
			t.Errorf("content %d: %s %.40s", i, c.Type, c.Base64)
		}
	}
	tool := string(got.Assembly.ToolContent)
	first, second := strings.Index(tool, "report.pdf, page 1 of 2"), strings.Index(tool, `report.pdf, page 2 of 2\nText layer:\nPage two`)
	if first < 0 || second < first || strings.Count(tool, `"type":"image"`) != 2 || strings.Contains(tool, `"type":"document"`) {
		t.Errorf("anthropic assembly: %.600s", tool)
	}

	// pages selects, as in get_artifact; a malformed value is invalid_request.
	hrep, got = historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: placeholder, Capabilities: []string{"text", "vision"}, Locale: "en", Dialect: "anthropic", Pages: "2", Media: "assembly"})
	if !hrep.OK || got.Pages == nil || got.Pages.Sent != "2" || len(got.Pages.Images) != 0 || len(got.Content) != 0 ||
		!strings.Contains(string(got.Assembly.ToolContent), "report.pdf, page 2 of 2") {
		t.Errorf("pages 2: %+v %+v %.300s", hrep.Error, got.Pages, got.Assembly.ToolContent)
	}
	if hrep, _ = historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: placeholder, Pages: "two"}); hrep.OK || hrep.Error.Field != "pages" {
		t.Errorf("pages two: %+v", hrep.Error)
	}
}

// TestPDFPagesIntoTheNextTurnEndToEnd: a PDF asked for through the Go client by a model that reads
// images but takes no PDF, in every dialect, turned by client.Turn into the messages of the next
// turn: each page's name and text layer, then its image (gemini's functionResponse holds the texts
// in its response and the images in its parts), both images kept.
func TestPDFPagesIntoTheNextTurnEndToEnd(t *testing.T) {
	w := startWorker(t, withSharedWasmCache)
	w.PutArtifact("turn-rep", "application/pdf", "report.pdf", testfiles.PDFFile("report.pdf"))
	for _, dialect := range contracts.Dialects {
		t.Run(dialect, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			var res contracts.GetArtifactResult
			req := contracts.GetArtifactRequest{RequestID: "turn-" + randomHex(6), Ref: "artifact:turn-rep", Capabilities: []string{"text", "vision"}, Locale: "en", Dialect: dialect}
			if err := w.Client.Call(ctx, contracts.SubjectGetArtifact, req, &res); err != nil {
				t.Fatal(err)
			}
			if res.Routing != contracts.RoutePages {
				t.Fatalf("routing %s", res.Routing)
			}
			turn, err := client.Turn([]client.ToolResult{{CallID: "call_1", Name: "get_artifact", Assembly: res.Assembly}})
			if err != nil {
				t.Fatal(err)
			}
			var seq []string
			for _, m := range turn {
				var v any
				if err := json.Unmarshal(m, &v); err != nil {
					t.Fatal(err)
				}
				seq = append(seq, partSequence(v, "")...)
			}
			joined := strings.Join(seq, "|")
			if n := strings.Count(joined, "I"); n != 2 {
				t.Errorf("%d images in the turn, want 2: %s", n, joined)
			}
			for _, page := range []string{"T:report.pdf, page 1 of 2", "T:report.pdf, page 2 of 2"} {
				i := strings.Index(joined, page)
				switch {
				case i < 0:
					t.Errorf("no %q in the turn: %s", page, joined)
				case dialect != contracts.DialectGemini && !strings.HasPrefix(joined[i+len(page):], "|I"):
					t.Errorf("%q is not followed by its image: %s", page, joined)
				}
			}
		})
	}
}

// partSequence lists, in order, "T:" and the first line of each text and "I" for each image in
// a decoded message of any dialect (a data:image URL, an image MIME type, a Bedrock image format).
func partSequence(v any, key string) []string {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			out = append(out, partSequence(e, "")...)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var out []string
		for _, k := range keys {
			out = append(out, partSequence(x[k], k)...)
		}
		return out
	case string:
		switch {
		case strings.HasPrefix(x, "data:image/"),
			(key == "mimeType" || key == "media_type" || key == "mime_type") && strings.HasPrefix(x, "image/"),
			key == "format" && (x == "png" || x == "jpeg"):
			return []string{"I"}
		case key == "text" || key == "output" || key == "content":
			var out []string
			for _, l := range strings.Split(x, "\n") {
				if strings.Contains(l, ", page ") {
					out = append(out, "T:"+l)
				}
			}
			return out
		}
	}
	return nil
}

// TestReadyBeforeTheRendererLoads: a worker on a fresh DATA_DIR is ready with nothing of the PDF
// renderer compiled or loaded (DATA_DIR/wasm-cache does not exist yet), and a PDF that needs no
// drawing (a PDF-reading model, a text-only one) leaves it so. The compiled module is then placed
// in DATA_DIR/wasm-cache (the renderer's cache directory), after the start: the first PDF drawn
// finds it there and compiles nothing (the cache gains no file, as on a miss it would:
// pdfpages.TestRestartReadsTheCompiledModule), so the renderer was first read when that PDF needed
// it.
func TestReadyBeforeTheRendererLoads(t *testing.T) {
	// The machine's shared compilation cache, compiled here if this is the first test run.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := pdfpagestest.Renderer(t).Wait(ctx); err != nil {
		t.Fatal(err)
	}
	w := startWorker(t)
	cache := filepath.Join(w.Config.DataDir, "wasm-cache")
	if got := w.Config.Renderer().CacheDir; got != cache {
		t.Fatalf("the renderer's compilation cache is %q, want %q", got, cache)
	}
	if entries, err := os.ReadDir(cache); !os.IsNotExist(err) {
		t.Fatalf("ready with %s holding %d entries (%v): the renderer ran at start", cache, len(entries), err)
	}
	w.PutArtifact("rep", "application/pdf", "report.pdf", testfiles.PDFFile("report.pdf"))
	for _, caps := range [][]string{{"text", "vision", "file"}, {"text"}} {
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "artifact:rep", Capabilities: caps, Locale: "en", Dialect: "anthropic"})
		if !rep.OK || res.Routing == contracts.RoutePages {
			t.Fatalf("capabilities %v: %+v, routing %s", caps, rep.Error, res.Routing)
		}
	}
	if _, err := os.Stat(cache); !os.IsNotExist(err) {
		t.Fatalf("a PDF that needed no drawing made %s (%v)", cache, err)
	}

	if err := os.CopyFS(cache, os.DirFS(pdfpagestest.CacheDir())); err != nil {
		t.Fatal(err)
	}
	files := func() []string {
		var names []string
		_ = filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				names = append(names, p)
			}
			return nil
		})
		return names
	}
	before := files()
	rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "artifact:rep", Capabilities: []string{"text", "vision"}, Locale: "en", Dialect: "anthropic", Pages: "1"})
	if !rep.OK || res.Routing != contracts.RoutePages || res.Pages == nil || len(res.Pages.Images) != 1 {
		t.Fatalf("the first PDF drawn: %+v, routing %s", rep.Error, res.Routing)
	}
	if after := files(); len(before) == 0 || !slices.Equal(after, before) {
		t.Fatalf("the cache held %v when the first PDF was drawn and %v after: the module was compiled, not loaded", before, after)
	}
}
