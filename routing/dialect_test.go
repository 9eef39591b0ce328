package routing_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testfiles"
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
	if err := json.Unmarshal(routing.Assemble(res, "gemini", routing.ToolResultMediaInline).ToolContent, &fr); err != nil || len(fr.Parts) != 1 || fr.Parts[0].InlineData.MimeType != "image/heic" {
		t.Errorf("gemini 3 assembly: %+v, %v", fr, err)
	}
	if a := routing.Assemble(res, "gemini", routing.ToolResultMediaFollowUp); len(a.FollowUp) != 1 || !strings.Contains(string(a.FollowUp[0].Parts), `"mimeType":"image/heic"`) {
		t.Errorf("gemini 2 assembly: %s %+v", a.ToolContent, a.FollowUp)
	}
	// The same routed result cannot go to OpenAI: the text says it was not sent.
	if a := routing.Assemble(res, "openai-chat", ""); len(a.FollowUp) != 0 || !strings.Contains(string(a.ToolContent), "内容未发送") {
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
			a := routing.Assemble(png, d, where)
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
