package routing_test

import (
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

func TestImageUsageFormulas(t *testing.T) {
	tests := []struct {
		name      string
		w, h      int
		dialect   string
		want      int64
		wantBasis string
	}{
		{"openai 1024x1024 is 765 (docs/providers.md)", 1024, 1024, contracts.DialectOpenAIChat, 765, contracts.UsageOpenAITiles},
		{"openai 2048x4096 fits to 768x1536: 6 tiles", 2048, 4096, contracts.DialectOpenAIResponses, 85 + 170*6, contracts.UsageOpenAITiles},
		{"openai small image is one tile", 100, 100, contracts.DialectLangChain, 255, contracts.UsageOpenAITiles},
		{"anthropic w*h/750", 1000, 750, contracts.DialectAnthropic, 1000, contracts.UsageAnthropicPixels},
		{"anthropic capped near 1600", 1568, 1568, contracts.DialectBedrockConverse, 1600, contracts.UsageAnthropicPixels},
		{"gemini small is 258", 384, 300, contracts.DialectGemini, 258, contracts.UsageGeminiTiles},
		{"gemini 768 tiles", 1000, 800, contracts.DialectGemini, 4 * 258, contracts.UsageGeminiTiles},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := routing.ImageUsage(tt.w, tt.h, 10000, "", tt.dialect, routing.Formats{})
			if u.InputTokens != tt.want || u.Basis != tt.wantBasis || u.Base64TextTokens != 7100 || u.TokensSaved != 7100-tt.want {
				t.Errorf("usage %+v, want %d tokens by %s, 7100 as text", u, tt.want, tt.wantBasis)
			}
		})
	}
}

func TestEstimateUsage(t *testing.T) {
	all := routing.NewCapabilities("vision", "file", "audio", "video")
	route := func(name string, data []byte, dialect string) contracts.ContentRouteResult {
		return routing.Route(routing.Input{ID: "a", Filename: name, Content: data, Capabilities: all, Dialect: dialect, Locale: "en",
			Formats: routing.Formats{Image: []string{"png"}, File: []string{"pdf"}, Audio: []string{"wav", "mp3", "flac"}, Video: []string{"mp4"}}})
	}
	png := testfiles.PNG(100, 100)
	tests := []struct {
		name      string
		res       contracts.ContentRouteResult
		dialect   string
		basis     string
		mediaWant int64 // tokens of the media part, -1 when not checked
		saves     bool
	}{
		{"png for openai", route("a.png", png, "openai-chat"), "openai-chat", contracts.UsageOpenAITiles, 255, true},
		{"png for anthropic", route("a.png", png, "anthropic"), "anthropic", contracts.UsageAnthropicPixels, 14, true},
		{"wav of 100 ms is 4 tokens", route("a.wav", testfiles.WAV(), "gemini"), "gemini", contracts.UsageAudioSeconds, 4, true},
		{"flac of 1 s is 32 tokens", route("a.flac", testfiles.FLAC(), "gemini"), "gemini", contracts.UsageAudioSeconds, 32, true},
		{"mp3 by its bitrate", route("a.mp3", testfiles.MP3(), "gemini"), "gemini", contracts.UsageAudioSeconds, 2, true},
		{"pdf has no formula", route("a.pdf", testfiles.PDF(), "anthropic"), "anthropic", contracts.UsageUnknown, -1, false},
		{"text only", route("a.txt", testfiles.Text(), "openai-chat"), "openai-chat", contracts.UsageText, 0, false},
		{"described zip", route("a.zip", testfiles.ZIP(), "gemini"), "gemini", contracts.UsageText, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := routing.EstimateUsage(tt.res, tt.dialect, routing.Formats{})
			text := routing.TextUsage(tt.res.Content).InputTokens
			if u.Basis != tt.basis {
				t.Fatalf("usage %+v, want basis %s", u, tt.basis)
			}
			if tt.mediaWant >= 0 && u.InputTokens-text != tt.mediaWant {
				t.Errorf("media tokens %d, want %d (usage %+v)", u.InputTokens-text, tt.mediaWant, u)
			}
			wantSaved := int64(0)
			if tt.saves {
				wantSaved = u.Base64TextTokens - u.InputTokens
			}
			if (u.TokensSaved > 0) != tt.saves || u.TokensSaved != wantSaved {
				t.Errorf("usage %+v, saves=%v", u, tt.saves)
			}
		})
	}
}

// TestUsageFollowsTheModelsProvider: once the registry names the model's provider (Formats.Tokens),
// its rule counts the image in every dialect; without it, the dialect's rule does.
func TestUsageFollowsTheModelsProvider(t *testing.T) {
	claude, gemini := routing.DefaultFormats(), routing.DefaultFormats()
	claude.Tokens, gemini.Tokens = contracts.UsageAnthropicPixels, contracts.UsageGeminiTiles
	for _, tt := range []struct {
		name, dialect string
		f             routing.Formats
		want          int64
		basis         string
	}{
		{"claude in langchain", contracts.DialectLangChain, claude, 1000, contracts.UsageAnthropicPixels},
		{"claude in openai-chat", contracts.DialectOpenAIChat, claude, 1000, contracts.UsageAnthropicPixels},
		{"gemini in openai-chat", contracts.DialectOpenAIChat, gemini, 2 * 258, contracts.UsageGeminiTiles},
		{"gemini in langchain", contracts.DialectLangChain, gemini, 2 * 258, contracts.UsageGeminiTiles},
		{"unknown provider in anthropic", contracts.DialectAnthropic, routing.DefaultFormats(), 1000, contracts.UsageAnthropicPixels},
		{"unknown provider in langchain", contracts.DialectLangChain, routing.DefaultFormats(), 85 + 170*4, contracts.UsageOpenAITiles},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := routing.ImageUsage(1000, 750, 10000, "", tt.dialect, tt.f)
			if u.InputTokens != tt.want || u.Basis != tt.basis {
				t.Errorf("usage %+v, want %d by %s", u, tt.want, tt.basis)
			}
			res := routing.Route(routing.Input{ID: "a", Filename: "a.png", Content: testfiles.PNG(1000, 750), Capabilities: routing.NewCapabilities("vision"), Dialect: tt.dialect, Formats: tt.f})
			if e := routing.EstimateUsage(res, tt.dialect, tt.f); e.Basis != tt.basis {
				t.Errorf("EstimateUsage basis %s, want %s", e.Basis, tt.basis)
			}
		})
	}
}
