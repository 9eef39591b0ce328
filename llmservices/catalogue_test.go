package llmservices_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/routing"
)

// TestCatalogueRoutesEveryModel runs every model of the built-in registry through routing for a
// PNG, a PDF, a WAV and an MP4 in every dialect: each gets the part its capabilities, its
// provider's formats and the dialect allow, and a description otherwise; the assembly is
// built and never carries base64 in text.
func TestCatalogueRoutesEveryModel(t *testing.T) {
	t.Parallel()
	r := llmservices.Default()
	entries := r.Entries()
	if len(entries) < 2000 {
		t.Fatalf("the built-in registry has %d entries; the catalogue should bring over 2,000", len(entries))
	}
	artifacts := []struct {
		name, mime, kind, format, capability string
		content                              []byte
	}{
		{"chart.png", "image/png", contracts.BinaryImage, "png", contracts.CapVision, testfiles.PNG(64, 48)},
		{"report.pdf", "application/pdf", contracts.BinaryDocument, "pdf", contracts.CapFile, testfiles.PDF()},
		{"note.wav", "audio/wav", contracts.BinaryAudio, "wav", contracts.CapAudio, testfiles.WAV()},
		{"clip.mp4", "video/mp4", contracts.BinaryVideo, "mp4", contracts.CapVideo, testfiles.MP4()},
	}
	routed := map[string]int{}
	for _, e := range entries {
		caps := routing.NewCapabilities(r.Capabilities(e.ID)...)
		for _, a := range artifacts {
			for _, dialect := range contracts.Dialects {
				formats := r.Formats(e.ID, routing.DialectProvider(dialect))
				res := routing.Route(routing.Input{
					ID: "a1", Filename: a.name, DeclaredMIME: a.mime, Content: a.content,
					Capabilities: caps, Formats: formats, Dialect: dialect, Locale: "en",
				})
				want := contracts.RouteText
				if caps.Has(a.capability) && formats.Accepts(dialect, a.kind, a.format) {
					want = contracts.RouteFile
					if a.kind == contracts.BinaryImage {
						want = contracts.RouteImageURL
					}
				}
				if res.Routing != want {
					t.Errorf("%s (%s, provider %q) in %s: routing %q, want %q (capabilities %v)", a.name, e.ID, e.Provider, dialect, res.Routing, want, e.Capabilities)
					continue
				}
				if res.Routing == contracts.RouteText && !strings.Contains(res.Content, a.name) {
					t.Errorf("%s (%s) in %s: the description does not name the file: %q", a.name, e.ID, dialect, res.Content)
				}
				if strings.Contains(res.Content, "base64") || len(res.Content) > 2000 {
					t.Errorf("%s (%s) in %s: content looks like data: %.80q", a.name, e.ID, dialect, res.Content)
				}
				asm := routing.Assemble(res, dialect, contracts.LocaleZH, formats)
				if _, err := json.Marshal(asm); err != nil {
					t.Errorf("%s (%s) in %s: assembly: %v", a.name, e.ID, dialect, err)
				}
				if res.Routing != contracts.RouteText {
					routed[a.format]++
				}
			}
		}
	}
	// The catalogue is the point: most vision models get the image, many the PDF, some the
	// audio and the video.
	for format, atLeast := range map[string]int{"png": 700 * 4, "pdf": 300, "wav": 100, "mp4": 50} {
		if routed[format] < atLeast {
			t.Errorf("%s was routed as a part %d times over all models and dialects, want at least %d", format, routed[format], atLeast)
		}
	}
}

// TestResolveRealNames: model names as runtimes, SDKs and gateways write them, each with the
// entry it must resolve to and whether a PNG reaches the model as an image (openai-chat).
func TestResolveRealNames(t *testing.T) {
	t.Parallel()
	r := llmservices.Default()
	png := testfiles.PNG(32, 32)
	tests := []struct {
		name     string
		entry    string // "" when nothing may match
		provider string
		servedBy string
		image    bool
	}{
		// The ten names of issue 17, each of which must get the image.
		{"gpt-4o-2024-08-06", "gpt-4o-2024-08-06", "openai", "", true},
		{"openai/gpt-4o", "gpt-4o", "openai", "openai", true},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet-20240620", "anthropic", "bedrock", true},
		{"claude-opus-4-5", "claude-opus-4-5", "anthropic", "", true},
		{"gpt-5.1", "gpt-5.1", "openai", "", true},
		{"gemini-3-pro-preview", "gemini-3-pro-preview", "google", "", true},
		{"llama-4-maverick", "llama-4-maverick", "meta", "", true},
		{"pixtral-large-latest", "pixtral-large-latest", "mistral", "", true},
		{"qwen3-vl-plus", "qwen3-vl-plus", "alibaba", "", true},
		{"grok-4", "grok-4", "xai", "", true},
		// Case and spaces.
		{"  GPT-4o ", "gpt-4o", "openai", "", true},
		{"Claude-Sonnet-4-5", "claude-sonnet-4-5", "anthropic", "", true},
		// Provider prefixes.
		{"anthropic/claude-sonnet-4-20250514", "claude-sonnet-4", "anthropic", "anthropic", true},
		{"google/gemini-2.5-flash", "gemini-2.5-flash", "google", "google", true},
		{"models/gemini-2.5-pro", "gemini-2.5-pro", "google", "google", true},
		{"vertex_ai/gemini-3-pro-preview", "gemini-3-pro-preview", "google", "vertex", true},
		{"azure/gpt-4.1", "gpt-4.1", "openai", "azure", true},
		{"openrouter/anthropic/claude-3.5-sonnet", "claude-3.5-sonnet", "anthropic", "openrouter", true},
		{"openrouter/x-ai/grok-4", "grok-4", "xai", "openrouter", true},
		{"x-ai/grok-4", "grok-4", "xai", "xai", true},
		{"meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama-4-maverick-17b-128e-instruct-fp8", "meta", "meta", true},
		{"mistral/pixtral-large-2411", "pixtral-large-2411", "mistral", "mistral", true},
		{"dashscope/qwen-vl-max", "qwen-vl-max", "alibaba", "alibaba", true},
		{"groq/meta-llama/llama-4-scout-17b-16e-instruct", "llama-4-scout-17b-16e-instruct", "meta", "groq", true},
		// Regions, inference profiles and Bedrock versions.
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "anthropic", "bedrock", true},
		{"eu.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet", "anthropic", "bedrock", true},
		{"apac.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4", "anthropic", "bedrock", true},
		{"global.anthropic.claude-opus-4-5-20251101-v1:0", "claude-opus-4-5-20251101", "anthropic", "bedrock", true},
		{"bedrock/us.amazon.nova-pro-v1:0", "nova-pro", "bedrock", "bedrock", true},
		{"anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku", "anthropic", "bedrock", true},
		// Vertex @ versions.
		{"claude-opus-4-5@20251101", "claude-opus-4-5-20251101", "anthropic", "vertex", true},
		{"vertex_ai/claude-sonnet-4@20250514", "claude-sonnet-4", "anthropic", "vertex", true},
		{"gemini-2.0-flash@001", "gemini-2.0-flash", "google", "vertex", true},
		{"vertex_ai/gemini-1.5-pro-002", "gemini-1.5-pro", "google", "vertex", true}, // retired, curated
		{"gemini-1.5-flash", "gemini-1.5-flash", "google", "", true},
		{"claude-3-5-sonnet-v2@20241022", "claude-3-5-sonnet", "anthropic", "vertex", true},
		// Dated snapshots and -latest.
		{"claude-sonnet-4-5-20250929", "claude-sonnet-4-5", "anthropic", "", true},
		{"gpt-4.1-2025-04-14", "gpt-4.1-2025-04-14", "openai", "", true},
		{"claude-3-7-sonnet-latest", "claude-3-7-sonnet", "anthropic", "", true},
		{"qwen-vl-max-latest", "qwen-vl-max", "alibaba", "", true},
		{"grok-4-latest", "grok-4-latest", "xai", "", true},
		{"gpt-4o-2099-01-01", "gpt-4o", "openai", "", true},
		// Gateway variants and ~ aliases.
		{"openrouter/google/gemini-2.5-flash:free", "gemini-2.5-flash", "google", "openrouter", true},
		{"anthropic/claude-3.7-sonnet:thinking", "claude-3.7-sonnet", "anthropic", "anthropic", true},
		{"~anthropic/claude-opus-4-5", "claude-opus-4-5", "anthropic", "anthropic", true},
		// provider:model, as LangChain's init_chat_model, Pydantic AI and the AI SDK's provider
		// registry write it: the provider is a prefix, not a gateway variant.
		{"openai:gpt-4o", "gpt-4o", "openai", "openai", true},
		{"anthropic:claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic", "anthropic", true},
		{"google-gla:gemini-2.5-flash", "gemini-2.5-flash", "google", "google", true},
		{"google_genai:gemini-2.5-pro", "gemini-2.5-pro", "google", "google", true},
		{"bedrock:us.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4", "anthropic", "bedrock", true},
		{"mistral:pixtral-large-latest", "pixtral-large-latest", "mistral", "mistral", true},
		{"openrouter:google/gemini-2.5-flash:free", "gemini-2.5-flash", "google", "openrouter", true},
		{"deepseek:deepseek-chat", "deepseek-chat", "deepseek", "deepseek", false},
		// Text-only models stay text only.
		{"deepseek-chat", "deepseek-chat", "deepseek", "", false},
		{"deepseek/deepseek-reasoner", "deepseek-reasoner", "deepseek", "deepseek", false},
		{"o3-mini-2025-01-31", "o3-mini-2025-01-31", "openai", "", false},
		{"gpt-3.5-turbo-0125", "gpt-3.5-turbo-0125", "openai", "", false},
		{"qwen-plus", "qwen-plus", "alibaba", "", false},
		// Nothing known: text only, never a guess.
		{"my-company-model", "", "", "", false},
		{"acme/gpt-4o-turbo-ultra", "", "", "", false},
		{"", "", "", "", false},
	}
	if len(tests) < 40 {
		t.Fatalf("%d names, want at least 40", len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, ok := r.Resolve(tt.name)
			if ok != (tt.entry != "") || e.ID != tt.entry {
				t.Fatalf("Resolve(%q) = %q (ok %v, rules %v), want %q", tt.name, e.ID, ok, e.Rules, tt.entry)
			}
			if e.Provider != tt.provider || e.ServedBy != tt.servedBy {
				t.Errorf("Resolve(%q): provider %q served by %q, want %q served by %q", tt.name, e.Provider, e.ServedBy, tt.provider, tt.servedBy)
			}
			res := routing.Route(routing.Input{
				ID: "shot", Filename: "shot.png", DeclaredMIME: "image/png", Content: png,
				Capabilities: routing.NewCapabilities(r.Capabilities(tt.name)...),
				Formats:      r.Formats(tt.name, "openai"), Dialect: contracts.DialectOpenAIChat,
			})
			if got := res.Routing == contracts.RouteImageURL; got != tt.image {
				t.Errorf("%q: a PNG is routed %q, want image %v", tt.name, res.Routing, tt.image)
			}
			if ok && !slices.Equal(e.Capabilities, r.Capabilities(tt.name)) {
				t.Errorf("Resolve and Capabilities disagree: %v, %v", e.Capabilities, r.Capabilities(tt.name))
			}
		})
	}
}
