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
	if err := json.Unmarshal(routing.Assemble(res, "gemini").ToolContent, &fr); err != nil || len(fr.Parts) != 1 || fr.Parts[0].InlineData.MimeType != "image/heic" {
		t.Errorf("gemini assembly: %+v, %v", fr, err)
	}
	// The same routed result cannot go to OpenAI: the text says it was not sent.
	if a := routing.Assemble(res, "openai-chat"); len(a.FollowUp) != 0 || !strings.Contains(string(a.ToolContent), "内容未发送") {
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
		a := routing.Assemble(png, d)
		all := string(a.ToolContent)
		for _, m := range a.FollowUp {
			all += string(m.Content)
		}
		if a.Dialect != d || !strings.Contains(all, want[d]) {
			t.Errorf("%s: %s", d, all)
		}
		if d != contracts.DialectOpenAIChat && len(a.FollowUp) != 0 {
			t.Errorf("%s has a follow-up", d)
		}
		if txt := routing.AssembleText("hi", d); !json.Valid(txt.ToolContent) || !strings.Contains(string(txt.ToolContent), `"hi"`) || strings.Contains(string(txt.ToolContent), "base64") {
			t.Errorf("%s text-only: %s", d, txt.ToolContent)
		}
	}
}
