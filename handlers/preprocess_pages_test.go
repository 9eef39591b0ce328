package handlers_test

import (
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
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
	"github.com/agentworks/artifact-worker/routing"
)

func preprocess(t *testing.T, h *handlers.Preprocess, req map[string]any) contracts.PreprocessResult {
	t.Helper()
	req["request_id"] = "r1"
	body, _ := json.Marshal(req)
	out, err := h.Handle(context.Background(), handling.Request{RequestID: "r1", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	var res contracts.PreprocessResult
	if err := json.Unmarshal(out.(handling.Encoded), &res); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return res
}

// A PDF in the latest turn of a context (a tool's result, shaped as routing.Assemble shapes one)
// goes to a model that reads images but takes no PDF as its pages, in every dialect: in place of
// the file part, an introduction naming the PDF's placeholder, then each page's name and text
// layer and its image; the PDF is cached under the placeholder. A model that takes PDFs keeps the
// file; a text-only model gets the description, as before. An older turn's PDF is described.
func TestPreprocessSendsALatestPDFAsPages(t *testing.T) {
	t.Parallel()
	report := base64.StdEncoding.EncodeToString(testfiles.PDFFile("report.pdf"))
	chart := base64.StdEncoding.EncodeToString(testfiles.PDFFile("chart.pdf"))
	placeholderOf := func(b64 string) string {
		sum := md5.Sum([]byte(b64))
		return "[File:history_" + hex.EncodeToString(sum[:]) + "]"
	}
	placeholder, chartPlaceholder := placeholderOf(report), placeholderOf(chart)
	h := &handlers.Preprocess{Cache: memCache{}, Pages: pdfpagestest.Renderer(t)}
	variants := []struct{ dialect, toolResultMedia string }{
		{contracts.DialectOpenAIChat, ""},
		{contracts.DialectOpenAIResponses, ""},
		{contracts.DialectAnthropic, ""},
		{contracts.DialectGemini, routing.ToolResultMediaInline},
		{contracts.DialectGemini, routing.ToolResultMediaFollowUp},
		{contracts.DialectBedrockConverse, ""},
		{contracts.DialectLangChain, ""},
		{contracts.DialectLangChainJS, ""},
	}
	for _, v := range variants {
		t.Run(v.dialect+"/"+v.toolResultMedia, func(t *testing.T) {
			t.Parallel()
			in := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, Task: "Read the report.", Turns: 2,
				Media: func(i int) agentsession.Media {
					if i == 0 {
						return agentsession.Media{MIME: "application/pdf", Base64: chart, Filename: "chart.pdf"}
					}
					return agentsession.Media{MIME: "application/pdf", Base64: report, Filename: "report.pdf"}
				}})
			req := func(caps ...string) map[string]any {
				return map[string]any{"messages": in, "dialect": v.dialect, "capabilities": caps, "locale": "en"}
			}

			res := preprocess(t, h, req("text", "vision"))
			out := string(res.Messages)
			if strings.Contains(out, report) || strings.Contains(out, chart) {
				t.Fatalf("a PDF stayed in the context")
			}
			if res.Stats.PDFPages != 2 || res.Stats.FilesReplaced != 2 || res.Stats.MediaDescribed != 1 {
				t.Errorf("stats %+v", res.Stats)
			}
			if got := h.Cache.(memCache)[strings.TrimSuffix(strings.TrimPrefix(placeholder, "[File:history_"), "]")]; got.Data != report {
				t.Errorf("the PDF is not cached under %s", placeholder)
			}
			seq := sequence(t, contracts.Assembly{ToolContent: res.Messages})
			joined := strings.Join(seq, "\x00")
			if n := strings.Count(joined, "\x00I"); n != 2 {
				t.Errorf("%d images in the context, want 2: %q", n, seq)
			}
			// The name is the part's filename where the dialect's block carries one, else the id.
			if !strings.Contains(joined, " ("+placeholder+"): a PDF of 2 pages. Pages 1-2 follow in order") {
				t.Errorf("no introduction naming %s: %q", placeholder, seq)
			}
			if !strings.Contains(joined, "T:[Cannot read] ") || !strings.Contains(joined, " ("+chartPlaceholder+")\nType: PDF document") {
				t.Errorf("the older PDF is not described: %q", seq)
			}
			// Each page's name and text layer, then its image (inside a Gemini functionResponse the
			// images replace the part and the texts follow it: the images come first).
			var pages []string
			for i, s := range seq {
				if strings.Contains(s, ", page ") && (v.toolResultMedia == routing.ToolResultMediaInline || i+1 < len(seq) && seq[i+1] == "I") {
					pages = append(pages, s)
				}
			}
			if len(pages) != 2 || !strings.Contains(pages[0], ", page 1 of 2\nText layer:\nQuarterly Report") || !strings.Contains(pages[1], ", page 2 of 2\nText layer:\nPage two") {
				t.Errorf("pages: %q", pages)
			}
			// The result is still a context of the dialect.
			if _, _, err := historyimage.PreprocessWith(t.Context(), res.Messages, memCache{}, historyimage.Options{Dialect: v.dialect, KeepTurns: 1}); err != nil {
				t.Errorf("not a %s context any more: %v", v.dialect, err)
			}

			// A model that takes PDFs keeps the latest one; a text-only model gets it described.
			if res := preprocess(t, h, req("text", "vision", "file")); !strings.Contains(string(res.Messages), report) || res.Stats.PDFPages != 0 {
				t.Errorf("PDF-reading model: the PDF is gone (stats %+v)", res.Stats)
			}
			res = preprocess(t, h, req("text"))
			if strings.Contains(string(res.Messages), report) || res.Stats.PDFPages != 0 || res.Stats.MediaDescribed != 2 ||
				!strings.Contains(string(res.Messages), " ("+placeholder+")\\nType: PDF document") {
				t.Errorf("text-only model: stats %+v", res.Stats)
			}
		})
	}
}

// The pages of a kept PDF follow get_artifact's budget: a provider that takes 3 images a request
// gets pages 1-3 of 300 and the text naming the rest, to fetch by the placeholder with pages.
func TestPreprocessPagesBudget(t *testing.T) {
	t.Parallel()
	doc := base64.StdEncoding.EncodeToString(testfiles.PDFFile("pages300.pdf"))
	h := &handlers.Preprocess{Cache: memCache{}, Pages: pdfpagestest.Renderer(t),
		Formats: fixedFormats(routing.Formats{Image: []string{"png", "jpeg"}, Limits: routing.ImageLimits{MaxLongEdge: 1568}, Request: contracts.RequestLimits{MaxImages: 3}})}
	in := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "Read it.", Turns: 1,
		Media: func(int) agentsession.Media {
			return agentsession.Media{MIME: "application/pdf", Base64: doc, Filename: "long.pdf"}
		}})
	res := preprocess(t, h, map[string]any{"messages": in, "dialect": "anthropic", "capabilities": []string{"text", "vision"}, "locale": "en"})
	out := string(res.Messages)
	if res.Stats.PDFPages != 3 || !strings.Contains(out, `Pages 4-300 not included; ask with pages (for example pages \"4-300\").`) ||
		!strings.Contains(out, ", page 3 of 300") || strings.Contains(out, "page 4 of 300") {
		t.Errorf("stats %+v, context %.2000s", res.Stats, out)
	}
}

// A kept PDF whose pages cannot be drawn gets get_artifact's text saying why, with its
// placeholder: encrypted, damaged.
func TestPreprocessBadPDFsSayWhy(t *testing.T) {
	t.Parallel()
	h := &handlers.Preprocess{Cache: memCache{}, Pages: pdfpagestest.Renderer(t)}
	for name, want := range map[string]string{
		"locked.pdf": "[Cannot read] locked.pdf ([File:history_",
		"broken.pdf": `[File processing failed: broken.pdf]\nError: unable to read the file content\nPlease check whether the file is damaged\n[File:history_`,
	} {
		doc := base64.StdEncoding.EncodeToString(testfiles.PDFFile(name))
		in := agentsession.Build(agentsession.Session{Dialect: contracts.DialectOpenAIChat, Task: "Read it.", Turns: 1,
			Media: func(int) agentsession.Media {
				return agentsession.Media{MIME: "application/pdf", Base64: doc, Filename: name}
			}})
		res := preprocess(t, h, map[string]any{"messages": in, "dialect": "openai-chat", "capabilities": []string{"text", "vision"}, "locale": "en"})
		out := string(res.Messages)
		if strings.Contains(out, doc) || !strings.Contains(out, want) || res.Stats.PDFPages != 0 || res.Stats.MediaDescribed != 1 {
			t.Errorf("%s: stats %+v, context %.1500s", name, res.Stats, out)
		}
		if name == "locked.pdf" && !strings.Contains(out, `\nThe PDF is encrypted`) {
			t.Errorf("%s: not said to be encrypted: %.1500s", name, out)
		}
	}
}
