package routing_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

func TestParseDialect(t *testing.T) {
	for _, d := range contracts.Dialects {
		if got, err := routing.ParseDialect(" " + strings.ToUpper(d) + " "); err != nil || got != d {
			t.Errorf("ParseDialect(%q) = %q, %v", d, got, err)
		}
	}
	if got, err := routing.ParseDialect(""); err != nil || got != contracts.DialectOpenAIChat {
		t.Errorf("empty: %q, %v", got, err)
	}
	if _, err := routing.ParseDialect("openai"); err == nil || !strings.Contains(err.Error(), "openai-responses") {
		t.Errorf("unknown dialect: %v, want an error listing the dialects", err)
	}
}

// A HEIC image goes as it is to a Gemini model, and only there: OpenAI describes it.
func TestHEICForGemini(t *testing.T) {
	heic := []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00heicmif1")
	gemini := routing.Formats{Image: []string{"png", "jpeg", "webp", "heic", "heif"}}
	vision := routing.NewCapabilities("vision")
	res := routing.Route(routing.Input{ID: "h", Filename: "a.heic", Content: heic, Capabilities: vision, Dialect: "gemini", Formats: gemini})
	if res.Routing != contracts.RouteImageURL || !strings.HasPrefix(res.ImageURL.ImageURL.URL, "data:image/heic;base64,") {
		t.Fatalf("gemini: routing %s, content %q", res.Routing, res.Content)
	}
	var fr struct {
		Parts []struct {
			InlineData struct{ MimeType string } `json:"inlineData"`
		} `json:"parts"`
	}
	if err := json.Unmarshal(routing.Assemble(res, "gemini", "", routing.Formats{ToolResultMedia: routing.ToolResultMediaInline}).ToolContent, &fr); err != nil || len(fr.Parts) != 1 || fr.Parts[0].InlineData.MimeType != "image/heic" {
		t.Errorf("gemini 3 assembly: %+v, %v", fr, err)
	}
	if a := routing.Assemble(res, "gemini", "", routing.Formats{ToolResultMedia: routing.ToolResultMediaFollowUp}); len(a.FollowUp) != 1 || !strings.Contains(string(a.FollowUp[0].Parts), `"mimeType":"image/heic"`) {
		t.Errorf("gemini 2 assembly: %s %+v", a.ToolContent, a.FollowUp)
	}
	// The same routed result cannot go to OpenAI: the text says it was not sent.
	if a := routing.Assemble(res, "openai-chat", "", routing.Formats{}); len(a.FollowUp) != 0 || !strings.Contains(string(a.ToolContent), "内容未发送") {
		t.Errorf("openai-chat carried a HEIC: %s %v", a.ToolContent, a.FollowUp)
	}
	res = routing.Route(routing.Input{ID: "h", Filename: "a.heic", Content: heic, Capabilities: vision, Dialect: "openai-chat", Locale: "en"})
	if res.Routing != contracts.RouteText || !strings.Contains(res.Content, "does not accept the HEIC format") {
		t.Errorf("openai-chat: routing %s, content %q", res.Routing, res.Content)
	}
}

// Every dialect assembles routed media into its own shape, and a text-only result into text.
func TestAssembleEveryDialect(t *testing.T) {
	png := routing.Route(routing.Input{ID: "a", Filename: "a.png", Content: testfiles.PNG(4, 4), Capabilities: routing.NewCapabilities("vision")})
	want := map[string]string{
		contracts.DialectOpenAIChat:      `"image_url"`,
		contracts.DialectOpenAIResponses: `"input_image"`,
		contracts.DialectAnthropic:       `"type":"image"`,
		contracts.DialectGemini:          `"inlineData"`,
		contracts.DialectBedrockConverse: `"image":{"format":"png"`,
		contracts.DialectLangChain:       `"type":"image","base64"`,
	}
	for _, d := range contracts.Dialects {
		for _, where := range []string{routing.ToolResultMediaInline, routing.ToolResultMediaFollowUp} {
			a := routing.Assemble(png, d, "", routing.Formats{ToolResultMedia: where})
			all := string(a.ToolContent)
			for _, m := range a.FollowUp {
				all += string(m.Content) + string(m.Parts)
			}
			if a.Dialect != d || !strings.Contains(all, want[d]) {
				t.Errorf("%s (%s): %s", d, where, all)
			}
			// Where the media goes is the dialect's, except for gemini, where the model decides.
			wantFollowUp := d == contracts.DialectOpenAIChat || d == contracts.DialectGemini && where == routing.ToolResultMediaFollowUp
			if (len(a.FollowUp) == 1) != wantFollowUp || len(a.FollowUp) > 1 {
				t.Errorf("%s (%s): %d follow-ups, want one: %v", d, where, len(a.FollowUp), wantFollowUp)
			}
		}
		if txt := routing.AssembleText("hi", d); !json.Valid(txt.ToolContent) || !strings.Contains(string(txt.ToolContent), `"hi"`) || strings.Contains(string(txt.ToolContent), "base64") {
			t.Errorf("%s text-only: %s", d, txt.ToolContent)
		}
	}
}

// TestStrictToolOrdering: for a provider that rejects a user message right after a tool message,
// the openai-chat follow-up starts with an assistant message in the request's locale; the other
// dialects, and text results, are as for any provider.
func TestStrictToolOrdering(t *testing.T) {
	strict := routing.DefaultFormats()
	strict.StrictToolOrdering = true
	png := routing.Route(routing.Input{ID: "a1", Filename: "a.png", Content: testfiles.PNG(4, 4), Capabilities: routing.NewCapabilities("vision"), Locale: "en", Formats: strict})
	a := routing.Assemble(png, contracts.DialectOpenAIChat, "en", strict)
	if len(a.FollowUp) != 2 || a.FollowUp[0].Role != "assistant" || a.FollowUp[1].Role != "user" {
		t.Fatalf("followUp %+v, want assistant then user", a.FollowUp)
	}
	if string(a.FollowUp[0].Content) != `"The tool results' content follows in the next message."` {
		t.Errorf("bridge %s", a.FollowUp[0].Content)
	}
	plain := routing.Assemble(png, contracts.DialectOpenAIChat, "en", routing.DefaultFormats())
	if !reflect.DeepEqual(a.FollowUp[1], plain.FollowUp[0]) || !bytes.Equal(a.ToolContent, plain.ToolContent) {
		t.Error("the media message or the tool message differ from a lenient provider's")
	}
	if zh := routing.AssembleImage("image/png", "iVBORw0KGgo=", "[Picture:history_x]", contracts.DialectOpenAIChat, "zh", strict); len(zh.FollowUp) != 2 || string(zh.FollowUp[0].Content) != `"工具结果中的内容见下一条消息。"` {
		t.Errorf("history image for a strict provider: %+v", zh.FollowUp)
	}
	for _, d := range contracts.Dialects[1:] {
		if got, want := routing.Assemble(png, d, "en", strict), routing.Assemble(png, d, "en", routing.DefaultFormats()); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: strict ordering changed the assembly", d)
		}
	}
	text := contracts.ContentRouteResult{ContentType: "text", Routing: "text", Content: "hi"}
	if got := routing.Assemble(text, contracts.DialectOpenAIChat, "en", strict); len(got.FollowUp) != 0 {
		t.Errorf("a text result got a follow-up: %+v", got.FollowUp)
	}
}

// TestLangChainJS: langchain-js carries what langchain does, in LangChain.js's block shape (data,
// mimeType, metadata.filename) instead of langchain-core Python's (base64, mime_type, extras).
func TestLangChainJS(t *testing.T) {
	pdf := routing.Route(routing.Input{ID: "a1", Filename: "r.pdf", Content: testfiles.PDF(), Capabilities: routing.NewCapabilities("file"), Dialect: "langchain-js"})
	png := routing.Route(routing.Input{ID: "a2", Filename: "c.png", Content: testfiles.PNG(2, 2), Capabilities: routing.NewCapabilities("vision"), Dialect: "langchain-js"})
	for _, tt := range []struct {
		res  contracts.ContentRouteResult
		want string
	}{
		{pdf, `[{"type":"text","text":` + jsonOf(pdf.Content) + `},{"type":"file","data":"` + pdf.File.File.Data + `","mimeType":"application/pdf","metadata":{"filename":"r.pdf"}}]`},
		{png, `[{"type":"text","text":` + jsonOf(png.Content) + `},{"type":"image","data":"` + strings.TrimPrefix(png.ImageURL.ImageURL.URL, "data:image/png;base64,") + `","mimeType":"image/png"}]`},
	} {
		a := routing.Assemble(tt.res, " LangChain-JS ", "", routing.DefaultFormats())
		if a.Dialect != contracts.DialectLangChainJS || string(a.ToolContent) != tt.want || len(a.FollowUp) != 0 {
			t.Errorf("assembly %s %s, want %s", a.Dialect, a.ToolContent, tt.want)
		}
		py := routing.Assemble(tt.res, contracts.DialectLangChain, "", routing.DefaultFormats())
		if strings.Contains(string(a.ToolContent), `"base64"`) || !strings.Contains(string(py.ToolContent), `"base64"`) {
			t.Error("the two LangChain shapes are not told apart")
		}
	}
	if a := routing.AssembleText("", contracts.DialectLangChainJS); string(a.ToolContent) != `[]` {
		t.Errorf("empty text: %s", a.ToolContent)
	}
}

// TestAssemblyCarriesRequestLimits: an assembly that carries media tells the turn helpers the
// provider's per-request limits; a text-only one does not.
func TestAssemblyCarriesRequestLimits(t *testing.T) {
	f := routing.DefaultFormats()
	f.Request = contracts.RequestLimits{MaxImages: 2, MaxBytes: 1 << 20}
	png := routing.Route(routing.Input{ID: "a1", Filename: "a.png", Content: testfiles.PNG(4, 4), Capabilities: routing.NewCapabilities("vision"), Formats: f})
	for _, d := range contracts.Dialects {
		if a := routing.Assemble(png, d, "", f); a.RequestLimits == nil || *a.RequestLimits != f.Request {
			t.Errorf("%s: requestLimits %+v", d, a.RequestLimits)
		}
		if a := routing.AssembleImage("image/png", "iVBORw0KGgo=", "x", d, "", f); a.RequestLimits == nil {
			t.Errorf("%s: history image without requestLimits", d)
		}
		if a := routing.Assemble(contracts.ContentRouteResult{ContentType: "text", Routing: "text", Content: "hi"}, d, "", f); a.RequestLimits != nil {
			t.Errorf("%s: a text result has requestLimits", d)
		}
	}
}
