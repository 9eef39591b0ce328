package service_test

import (
	"slices"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/service"
)

// TestUsageFollowsTheModelsProvider: with the built-in registry, a model's image is counted as its
// own provider counts it in every dialect (a Claude model in langchain, a Gemini model in
// openai-chat), and an assembly that carries media says the provider's per-request limits.
func TestUsageFollowsTheModelsProvider(t *testing.T) {
	t.Parallel()
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = "" })
	w.PutArtifact("shot", "image/png", "shot.png", testfiles.PNG(1000, 750))
	for _, tt := range []struct {
		service, dialect string
		tokens           int64
		basis            string
		limits           contracts.RequestLimits
	}{
		{"claude-sonnet-4", contracts.DialectLangChain, 1000, contracts.UsageAnthropicPixels, contracts.RequestLimits{MaxImages: 100, MaxBytes: 32 << 20, MaxPDFPages: 100, ManyImages: 20, ManyImagesMaxEdge: 2000}},
		{"claude-sonnet-4", contracts.DialectOpenAIChat, 1000, contracts.UsageAnthropicPixels, contracts.RequestLimits{MaxImages: 100, MaxBytes: 32 << 20, MaxPDFPages: 100, ManyImages: 20, ManyImagesMaxEdge: 2000}},
		{"gemini-2.5-flash", contracts.DialectOpenAIChat, 2 * 258, contracts.UsageGeminiTiles, contracts.RequestLimits{MaxBytes: 20 << 20}},
		{"gpt-4o", contracts.DialectAnthropic, 85 + 170*4, contracts.UsageOpenAITiles, contracts.RequestLimits{MaxImages: 500, MaxImageBytes: 50 << 20}},
	} {
		t.Run(tt.service+"/"+tt.dialect, func(t *testing.T) {
			rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "shot", ServiceID: tt.service, Dialect: tt.dialect})
			if !rep.OK || res.Routing != contracts.RouteImageURL {
				t.Fatalf("%+v, routing %s", rep.Error, res.Routing)
			}
			sent := res.ImageProcessing.Sent
			if sent.Width != 1000 || sent.Height != 750 {
				t.Fatalf("sent %dx%d, want it as it is", sent.Width, sent.Height)
			}
			if text := res.Usage.InputTokens - tt.tokens; res.Usage.Basis != tt.basis || text <= 0 || text > 20 { // the label is a few tokens

				t.Errorf("usage %+v, want %d image tokens by %s", res.Usage, tt.tokens, tt.basis)
			}
			if res.Assembly.RequestLimits == nil || *res.Assembly.RequestLimits != tt.limits {
				t.Errorf("requestLimits %+v, want %+v", res.Assembly.RequestLimits, tt.limits)
			}
		})
	}
}

// TestStrictToolOrderingProvider: with the built-in registry, a Mistral model's openai-chat
// assembly puts an assistant message before the user message that carries the image (Mistral
// refuses a user message right after a tool message); another provider's does not.
func TestStrictToolOrderingProvider(t *testing.T) {
	t.Parallel()
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = "" })
	w.PutArtifact("shot", "image/png", "shot.png", testfiles.PNG(64, 48))
	for service, want := range map[string][]string{"pixtral-large-latest": {"assistant", "user"}, "gpt-4o": {"user"}} {
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "shot", ServiceID: service, Dialect: contracts.DialectOpenAIChat, Locale: contracts.LocaleEN, Media: contracts.MediaAssembly})
		var roles []string
		for _, m := range res.Assembly.FollowUp {
			roles = append(roles, m.Role)
		}
		if !rep.OK || !slices.Equal(roles, want) {
			t.Errorf("%s: %+v, follow-up roles %v, want %v", service, rep.Error, roles, want)
		}
	}
}
