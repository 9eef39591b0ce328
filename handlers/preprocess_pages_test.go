package handlers_test

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
			// Through Get (its lock): the other variants' requests write to the same cache meanwhile.
			if got, _ := h.Cache.(memCache).Get(context.Background(), strings.TrimSuffix(strings.TrimPrefix(placeholder, "[File:history_"), "]")); got.Data != report {
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

// The request's limits count the page images that replace a kept PDF, not the PDF: a provider
// that takes 5 images a request, a person's message with 4 screenshots and a tool result with a
// 3-page PDF (drawn whole: each PDF's budget is 5) carry 7 images, so the 2 oldest screenshots are
// taken out to make room. Two PDFs of 3 and 4 pages carry 7 images that nothing can be taken out of:
// both are listed in over_limits, the provider would refuse the request.
func TestPreprocessCountsDrawnPagesAgainstRequestLimits(t *testing.T) {
	t.Parallel()
	h := &handlers.Preprocess{Cache: memCache{}, Pages: pdfpagestest.Renderer(t),
		Formats: fixedFormats(routing.Formats{Image: []string{"png", "jpeg"}, Limits: routing.ImageLimits{MaxLongEdge: 1568}, Request: contracts.RequestLimits{MaxImages: 5}})}
	image := func(w int) string {
		return `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(testfiles.PNG(w, 20)) + `"}}`
	}
	document := func(pages int, title string) string {
		return `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + base64.StdEncoding.EncodeToString(testfiles.ManyPagesPDF(pages)) + `"},"title":"` + title + `"}`
	}
	conversation := func(person []string, results ...string) json.RawMessage {
		return json.RawMessage(`[{"role":"user","content":[` + strings.Join(append([]string{`{"type":"text","text":"Compare these."}`}, person...), ",") + `]},` +
			`{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"get_artifact","input":{"ref":"a.pdf"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":[` + strings.Join(results, ",") + `]}]}]`)
	}
	req := func(messages json.RawMessage) map[string]any {
		return map[string]any{"messages": messages, "dialect": "anthropic", "capabilities": []string{"text", "vision"}, "locale": "en"}
	}

	res := preprocess(t, h, req(conversation([]string{image(30), image(31), image(32), image(33)}, document(3, "a.pdf"))))
	seq := strings.Join(sequence(t, contracts.Assembly{ToolContent: res.Messages}), "\x00")
	if res.Stats.PDFPages != 3 || res.Stats.MediaOverLimits != 2 || len(res.OverLimits) != 2 || strings.Count(seq, "\x00I") != 5 {
		t.Fatalf("stats %+v, over_limits %+v, %d images in the context", res.Stats, res.OverLimits, strings.Count(seq, "\x00I"))
	}
	for i, o := range res.OverLimits {
		if want := fmt.Sprintf("messages[0].content[%d]", i+1); o.Path != want || o.Reason != fmt.Sprintf("taken out: the request would carry %d images, over the provider's 5", 7-i) {
			t.Errorf("over_limits[%d] = %+v, want %s taken out", i, o, want)
		}
	}

	res = preprocess(t, h, req(conversation(nil, document(3, "a.pdf"), document(4, "b.pdf"))))
	if res.Stats.PDFPages != 7 || res.Stats.MediaOverLimits != 0 || len(res.OverLimits) != 2 {
		t.Fatalf("stats %+v, over_limits %+v", res.Stats, res.OverLimits)
	}
	for i, o := range res.OverLimits {
		if want := fmt.Sprintf("messages[2].content[0].content[%d]", i); o.Path != want ||
			!strings.HasPrefix(o.Reason, fmt.Sprintf("left in (its pages drawn as %d images, ", 3+i)) ||
			!strings.HasSuffix(o.Reason, "): the request carries 7 images, over the provider's 5") {
			t.Errorf("over_limits[%d] = %+v, want %s left in", i, o, want)
		}
	}
}
