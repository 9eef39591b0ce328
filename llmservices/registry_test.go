package llmservices_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/routing"
)

// writeFile writes content to a new file in a test directory and returns its path.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "llmservices.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		content string
		// want lists substrings the error must hold (besides the file path).
		want []string
	}{
		{"bad JSON", `{"services": [`, []string{"unexpected EOF"}},
		{"data after the object", `{"services": []} {}`, []string{"data after the JSON object"}},
		{"not an object", `[]`, []string{"cannot unmarshal"}},
		{
			"duplicate id",
			`{"services": [{"id": "gpt-4o", "capabilities": {"input": ["text"]}}, {"id": "GPT-4o", "capabilities": {"input": ["text"]}}]}`,
			[]string{`service "GPT-4o" (services[1])`, `"GPT-4o" already used by services[0]`},
		},
		{
			"alias clashes with an id",
			`{"services": [{"id": "a", "capabilities": {"input": ["text"]}}, {"id": "b", "aliases": ["a"], "capabilities": {"input": ["text"]}}]}`,
			[]string{`service "b" (services[1])`, `"a" already used by services[0]`},
		},
		{
			"unknown input capability",
			`{"services": [{"id": "gpt-4o", "capabilities": {"input": ["text", "visio"], "output": ["text"]}}]}`,
			[]string{`service "gpt-4o" (services[0])`, `unknown input capability "visio"`},
		},
		{
			"unknown output capability",
			`{"services": [{"id": "m", "capabilities": {"input": ["text"], "output": ["telepathy"]}}]}`,
			[]string{`service "m"`, `unknown output capability "telepathy"`},
		},
		{"missing id", `{"services": [{"capabilities": {"input": ["text"]}}]}`, []string{"services[0]", "missing id"}},
		{
			"bad toolResultMedia",
			`{"providers": {"google": {"formats": {}, "toolResultMedia": "parts"}}, "services": [{"id": "g", "toolResultMedia": "Inline", "capabilities": {"input": ["text"]}}]}`,
			[]string{`provider "google"`, `bad toolResultMedia "parts"`, `service "g"`, `bad toolResultMedia "Inline" (use "inline" or "followUp")`},
		},
		{
			"every problem is reported",
			`{"services": [{"id": "a", "capabilities": {"input": ["sight"]}}, {"id": "b", "capabilities": {"input": ["smell"]}}]}`,
			[]string{`service "a"`, `"sight"`, `service "b"`, `"smell"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, tt.content)
			r, err := llmservices.Load(path)
			if err == nil {
				t.Fatalf("Load = %v, want an error", r.Services())
			}
			if !errors.Is(err, llmservices.ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			for _, s := range append([]string{path}, tt.want...) {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q lacks %q", err, s)
				}
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := llmservices.Load(filepath.Join(t.TempDir(), "nope.json"))
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, llmservices.ErrInvalid) {
		t.Errorf("err = %v, want fs.ErrNotExist and not ErrInvalid", err)
	}
}

func TestCapabilities(t *testing.T) {
	path := writeFile(t, `{"services": [
		{"id": "vis", "aliases": ["vis-2026-01-01"], "capabilities": {"input": ["file", "vision"], "output": ["text"]}},
		{"id": "omni", "capabilities": {"input": ["video", "audio", "text", "file", "vision"], "output": ["text", "audio"]}},
		{"id": "plain", "capabilities": {"input": [], "output": ["text"]}}
	]}`)
	r, err := llmservices.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		service string
		want    []string
	}{
		{"vis", []string{"text", "vision", "file"}},
		{"vis-2026-01-01", []string{"text", "vision", "file"}},
		{"  VIS ", []string{"text", "vision", "file"}},
		{"omni", []string{"text", "vision", "file", "audio", "video"}},
		{"plain", []string{"text"}},
		{"unknown", []string{"text"}},
		{"", []string{"text"}},
	}
	for _, tt := range tests {
		t.Run(tt.service, func(t *testing.T) {
			if got := r.Capabilities(tt.service); !slices.Equal(got, tt.want) {
				t.Errorf("Capabilities(%q) = %v, want %v", tt.service, got, tt.want)
			}
		})
	}
	if got := r.Services(); !slices.Equal(got, []string{"vis", "omni", "plain"}) {
		t.Errorf("Services = %v", got)
	}
	if !r.Has("vis-2026-01-01") || r.Has("unknown") {
		t.Error("Has")
	}

	t.Run("the result is a copy", func(t *testing.T) {
		r.Capabilities("vis")[0] = "changed"
		if got := r.Capabilities("vis")[0]; got != "text" {
			t.Errorf("registry changed through a returned slice: %q", got)
		}
	})
	t.Run("nil registry is text only", func(t *testing.T) {
		var nilReg *llmservices.Registry
		if got := nilReg.Capabilities("gpt-4o"); !slices.Equal(got, []string{"text"}) || nilReg.Has("gpt-4o") || nilReg.Services() != nil {
			t.Errorf("nil registry: %v", got)
		}
	})
}

// TestDefault pins the embedded registry to docs/providers.md's table of input modalities.
func TestDefault(t *testing.T) {
	r := llmservices.Default()
	if len(r.Services()) == 0 {
		t.Fatal("the embedded default registry is empty (or failed to parse)")
	}
	tests := map[string][]string{
		"gpt-4.1":                   {"text", "vision", "file"},
		"gpt-4o":                    {"text", "vision", "file"},
		"gpt-4o-mini":               {"text", "vision", "file"},
		"gpt-4o-audio-preview":      {"text", "audio"},
		"gpt-4o-mini-audio-preview": {"text", "audio"},
		"gpt-3.5-turbo":             {"text"},
		"claude-3-haiku":            {"text", "vision"},
		"claude-3-haiku-20240307":   {"text", "vision"},
		"claude-haiku-4-5":          {"text", "vision", "file"},
		"claude-sonnet-4":           {"text", "vision", "file"},
		"claude-sonnet-4-20250514":  {"text", "vision", "file"},
		"claude-opus-4":             {"text", "vision", "file"},
		"gemini-2.5-flash":          {"text", "vision", "file", "audio", "video"},
		"gemini-2.5-pro":            {"text", "vision", "file", "audio", "video"},
		"deepseek-chat":             {"text"},
		"deepseek-reasoner":         {"text"},
		"qwen-max":                  {"text"},
		"qwen-vl-max":               {"text", "vision"},
		"qwen-vl-plus":              {"text", "vision"},
		"o3-mini":                   {"text"},
	}
	for id, want := range tests {
		t.Run(id, func(t *testing.T) {
			if !r.Has(id) {
				t.Fatalf("%s is missing from the default registry", id)
			}
			if got := r.Capabilities(id); !slices.Equal(got, want) {
				t.Errorf("Capabilities(%q) = %v, want %v", id, got, want)
			}
		})
	}
	if again := llmservices.Default(); again != r {
		t.Error("Default is built more than once")
	}
}

// TestDeployedConfigExtendsDefault: config/llmservices.json (the deployment's LLM_SERVICES_FILE)
// is layered over the built-in registry, so a deployment knows what the binary knows.
func TestDeployedConfigExtendsDefault(t *testing.T) {
	path := filepath.Join("..", "config", "llmservices.json")
	deployed, err := llmservices.Load(path)
	if err != nil {
		t.Fatalf("config/llmservices.json: %v", err)
	}
	if w := deployed.Warnings(); len(w) > 0 {
		t.Errorf("config/llmservices.json has fields the worker does not use: %v", w)
	}
	d := llmservices.Default()
	if got, want := len(deployed.Services()), len(d.Services()); got < want {
		t.Errorf("config/llmservices.json knows %d models, the built-in registry %d: it must extend it", got, want)
	}
	for _, id := range []string{"gpt-4o", "claude-sonnet-4", "gemini-2.5-pro", "grok-4", "deepseek-chat"} {
		if got, want := deployed.Capabilities(id), d.Capabilities(id); !slices.Equal(got, want) {
			t.Errorf("%s: deployed %v, built-in %v", id, got, want)
		}
	}
}

// TestUnknownFieldsWarn: a registry file shared with a runtime (its own settings such as baseURL
// beside each model) loads, and one warning names every field the worker does not use.
func TestUnknownFieldsWarn(t *testing.T) {
	t.Parallel()
	r, err := llmservices.Parse([]byte(`{"version": 2, "providers": {"openai": {"formats": {}, "apiKey": "x"}},
 "services": [{"id": "a", "baseURL": "http://x", "capabilites": {}, "capabilities": {"input": ["vision"], "output": ["text"], "maxTokens": 1}},
              {"id": "b", "baseURL": "http://y", "capabilities": {"input": ["text"]}}]}`), "shared.json")
	if err != nil {
		t.Fatal(err)
	}
	w := r.Warnings()
	if len(w) != 1 {
		t.Fatalf("Warnings = %q, want one line", w)
	}
	for _, name := range []string{"shared.json", "version", "providers.openai.apiKey", "services[].baseURL", "services[].capabilites", "services[].capabilities.maxTokens"} {
		if !strings.Contains(w[0], name) {
			t.Errorf("warning %q does not name %q", w[0], name)
		}
	}
	if strings.Count(w[0], "baseURL") != 1 {
		t.Errorf("warning %q names baseURL more than once", w[0])
	}
	if got := r.Capabilities("a"); !slices.Equal(got, []string{"text", "vision"}) {
		t.Errorf("Capabilities(a) = %v: the known fields must still load", got)
	}
	clean, err := llmservices.Parse([]byte(`{"services": [{"id": "a", "capabilities": {"input": ["text"]}}]}`), "clean.json")
	if err != nil || len(clean.Warnings()) != 0 {
		t.Errorf("a clean file: %v, %v", clean.Warnings(), err)
	}
}

func TestExtractText(t *testing.T) {
	t.Parallel()
	r, err := llmservices.Parse([]byte(`{"services":[
 {"id":"reader","aliases":["reader-2"],"extractText":true,"capabilities":{"input":["text"],"output":["text"]}},
 {"id":"plain","capabilities":{"input":["text"],"output":["text"]}}]}`), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]bool{"reader": true, " READER-2 ": true, "plain": false, "unknown": false} {
		if got := r.ExtractText(id); got != want {
			t.Errorf("ExtractText(%q) = %v, want %v", id, got, want)
		}
	}
	if (*llmservices.Registry)(nil).ExtractText("reader") {
		t.Error("a nil registry asks for extraction")
	}
}

// TestToolResultMedia: a service's toolResultMedia replaces its provider's, an unknown service
// takes its fallback provider's, and the shipped Gemini models (all 2.x, which take no media inside
// a function response: docs/providers.md) get the follow-up.
func TestToolResultMedia(t *testing.T) {
	t.Parallel()
	r, err := llmservices.Parse([]byte(`{"providers":{"google":{"formats":{},"toolResultMedia":"followUp"}},"services":[
 {"id":"gemini-3-x","aliases":["g3"],"provider":"google","toolResultMedia":"inline","capabilities":{"input":["text","vision"],"output":["text"]}},
 {"id":"gemini-2-x","provider":"google","capabilities":{"input":["text","vision"],"output":["text"]}},
 {"id":"other","capabilities":{"input":["text"],"output":["text"]}}]}`), "test.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ id, fallback, want string }{
		{"gemini-3-x", "", routing.ToolResultMediaInline},
		{" G3 ", "openai", routing.ToolResultMediaInline},
		{"gemini-2-x", "", routing.ToolResultMediaFollowUp},
		{"unknown", "google", routing.ToolResultMediaFollowUp},
		{"other", "google", ""},
	} {
		if got := r.Formats(tt.id, tt.fallback).ToolResultMedia; got != tt.want {
			t.Errorf("Formats(%q, %q).ToolResultMedia = %q, want %q", tt.id, tt.fallback, got, tt.want)
		}
	}
	d := llmservices.Default()
	for _, id := range d.Services() {
		if strings.HasPrefix(id, "gemini-2") && d.Formats(id, "").ToolResultMedia != routing.ToolResultMediaFollowUp {
			t.Errorf("%s: toolResultMedia %q, want followUp (Gemini 2.x takes no media in a function response)", id, d.Formats(id, "").ToolResultMedia)
		}
	}
	if got := d.Formats("", "google").ToolResultMedia; got != routing.ToolResultMediaFollowUp {
		t.Errorf("an unknown Gemini model: %q, want followUp", got)
	}
}

// TestProviderErrorNamesFile: an error in a provider entry names the file and the provider.
func TestProviderErrorNamesFile(t *testing.T) {
	t.Parallel()
	_, err := llmservices.Parse([]byte(`{"providers":{"openai":{"formats":{"image":["PNG"]}}},"services":[]}`), "reg.json")
	if !errors.Is(err, llmservices.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "llmservices: reg.json: provider \"openai\"") {
		t.Errorf("err = %q, want it to name the file reg.json and the provider", msg)
	}
}

// TestProviderRulesFollowTheModel: a model's provider decides its token rule and whether its
// backend takes a user message right after a tool message, whatever the dialect asked in; an
// unknown model takes its fallback provider's, and a provider without a rule leaves the dialect's.
func TestProviderRulesFollowTheModel(t *testing.T) {
	t.Parallel()
	d := llmservices.Default()
	for _, tt := range []struct {
		id, fallback, tokens string
		strict               bool
	}{
		{"claude-sonnet-4", "", contracts.UsageAnthropicPixels, false},
		{"claude-sonnet-4", "openai", contracts.UsageAnthropicPixels, false},
		{"gemini-2.5-flash", "openai", contracts.UsageGeminiTiles, false},
		{"gpt-4o", "google", contracts.UsageOpenAITiles, false},
		{"unknown-model", "anthropic", contracts.UsageAnthropicPixels, false},
		{"unknown-model", "", "", false},
		{"unknown-model", "mistral", "", true},
	} {
		f := d.Formats(tt.id, tt.fallback)
		if f.Tokens != tt.tokens || f.StrictToolOrdering != tt.strict {
			t.Errorf("Formats(%q, %q): tokens %q strict %v, want %q %v", tt.id, tt.fallback, f.Tokens, f.StrictToolOrdering, tt.tokens, tt.strict)
		}
	}
	_, err := llmservices.Parse([]byte(`{"providers":{"x":{"formats":{},"tokens":"per-word"}},"services":[]}`), "t.json")
	if !errors.Is(err, llmservices.ErrInvalid) || !strings.Contains(err.Error(), `bad tokens "per-word"`) {
		t.Errorf("a bad tokens rule: %v", err)
	}
	r, err := llmservices.Parse([]byte(`{"providers":{"mistral":{"formats":{},"strictToolOrdering":true}},"services":[
 {"id":"pixtral-large","provider":"mistral","capabilities":{"input":["text","vision"],"output":["text"]}}]}`), "t.json")
	if err != nil || !r.Formats("pixtral-large", "openai").StrictToolOrdering {
		t.Errorf("a service of a strict provider: %v", err)
	}
}

// TestExtendsBuiltin: a file with "extends": "builtin" is layered over the built-in registry:
// its entries and provider blocks win, every other name resolves in the built-in one.
func TestExtendsBuiltin(t *testing.T) {
	t.Parallel()
	r, err := llmservices.Parse([]byte(`{"extends": "builtin",
 "providers": {"xai": {"family": "openai", "formats": {"image": ["png"], "file": [], "audio": [], "video": []}}},
 "services": [
  {"id": "grok-4", "provider": "xai", "note": "pinned", "capabilities": {"input": ["text"], "output": ["text"]}},
  {"id": "acme-vision-1", "aliases": ["acme/vision-1"], "capabilities": {"input": ["text", "vision"], "output": ["text"]}}]}`), "ops.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"grok-4":          {"text"},           // the file's entry wins over the catalogue's
		"x-ai/grok-4":     {"text"},           // also as a runtime writes it
		"acme/vision-1":   {"text", "vision"}, // the file's own model
		"gpt-5.1":         {"text", "vision", "file"},
		"claude-sonnet-4": {"text", "vision", "file"}, // curated, under the file
	} {
		if got := r.Capabilities(name); !slices.Equal(got, want) {
			t.Errorf("Capabilities(%q) = %v, want %v", name, got, want)
		}
	}
	if d := r.Decide("grok-4"); d.Source != llmservices.SourceFile || d.Entry != "grok-4" {
		t.Errorf("Decide(grok-4) = %+v, want the file's entry", d)
	}
	if d := r.Decide("gpt-5.1"); d.Source != llmservices.SourceCatalogue {
		t.Errorf("Decide(gpt-5.1) = %+v, want the catalogue's entry", d)
	}
	if d := r.Decide("claude-sonnet-4"); d.Source != llmservices.SourceCurated {
		t.Errorf("Decide(claude-sonnet-4) = %+v, want the curated entry", d)
	}
	// The file's xai block applies to the built-in xai models too.
	if got := r.Formats("grok-code-fast-1", "").Image; !slices.Equal(got, []string{"png"}) {
		t.Errorf("grok-code-fast-1 image formats %v, want the file's xai block [png]", got)
	}
	if got := llmservices.Default().Formats("grok-code-fast-1", "").Image; !slices.Equal(got, []string{"png", "jpeg"}) {
		t.Errorf("built-in grok-code-fast-1 image formats %v, want [png jpeg]", got)
	}
	if _, err := llmservices.Parse([]byte(`{"extends": "catalogue", "services": []}`), "x.json"); !errors.Is(err, llmservices.ErrInvalid) || !strings.Contains(err.Error(), `"builtin"`) {
		t.Errorf("extends catalogue: %v, want ErrInvalid naming the one value", err)
	}
}

// TestServedByKeepsTheModelsTokenRule: a name that says who serves the model takes that host's
// formats and limits, and the model's own provider's token rule.
func TestServedByKeepsTheModelsTokenRule(t *testing.T) {
	t.Parallel()
	r := llmservices.Default()
	for _, tt := range []struct{ name, image, tokens string }{
		{"openrouter/anthropic/claude-3.5-sonnet", "webp", contracts.UsageAnthropicPixels}, // openrouter's images, Claude's tokens
		{"us.anthropic.claude-sonnet-4-5-20250929-v1:0", "gif", contracts.UsageAnthropicPixels},
		{"openrouter/openai/gpt-4o", "webp", contracts.UsageOpenAITiles},
		{"vertex_ai/gemini-2.5-pro", "heic", contracts.UsageGeminiTiles}, // no vertex block: Google's own
	} {
		f := r.Formats(tt.name, "")
		if !slices.Contains(f.Image, tt.image) || f.Tokens != tt.tokens {
			t.Errorf("%s: images %v tokens %q, want %s among them and %q", tt.name, f.Image, f.Tokens, tt.image, tt.tokens)
		}
	}
}

// TestRequestLimits: the providers' per-request limits are in the provider table, a service
// takes its provider's, and a negative one is refused.
func TestRequestLimits(t *testing.T) {
	t.Parallel()
	d := llmservices.Default()
	if got := d.Formats("claude-sonnet-4", "").Request; got.MaxBytes != 32<<20 || got.MaxPDFPages != 100 || got.MaxImages != 100 || got.ManyImages != 20 || got.ManyImagesMaxEdge != 2000 {
		t.Errorf("anthropic: %+v", got)
	}
	if got := d.Formats("gpt-4o", "").Request; got.MaxImages != 500 || got.MaxImageBytes != 50<<20 {
		t.Errorf("openai: %+v", got)
	}
	if got := d.Formats("", "google").Request; got.MaxBytes != 20<<20 {
		t.Errorf("google: %+v", got)
	}
	_, err := llmservices.Parse([]byte(`{"providers":{"x":{"formats":{},"requestLimits":{"maxImages":-1}}},"services":[]}`), "t.json")
	if !errors.Is(err, llmservices.ErrInvalid) || !strings.Contains(err.Error(), "request limits must not be negative") {
		t.Errorf("a negative limit: %v", err)
	}
}

// TestRuntimeProviderSettingsKeepBuiltinFacts: a file shared with a runtime names providers for
// the runtime's own settings (apiKey, baseURL). Such a block sets nothing the worker uses, so the
// built-in facts of that provider (formats, limits, family, token rule) stay: before, it replaced
// OpenAI's with the defaults (MP4 video for gpt-4o, no GIF, no family).
func TestRuntimeProviderSettingsKeepBuiltinFacts(t *testing.T) {
	t.Parallel()
	r, err := llmservices.Parse([]byte(`{"extends": "builtin",
 "providers": {"openai": {"apiKey": "k", "baseURL": "https://proxy.example/v1"}, "acme": {"apiKey": "k"}},
 "services": [{"id": "acme-1", "provider": "acme", "capabilities": {"input": ["text", "vision"], "output": ["text"]}}]}`), "shared.json")
	if err != nil {
		t.Fatal(err)
	}
	builtin := llmservices.Default()
	for _, name := range []string{"gpt-4o", "gpt-5.1", "openai/gpt-4.1"} {
		if got, want := r.Formats(name, ""), builtin.Formats(name, ""); !reflect.DeepEqual(got, want) {
			t.Errorf("Formats(%q) = %+v, want the built-in %+v", name, got, want)
		}
	}
	if e, _ := r.Resolve("gpt-4o"); e.Family != "openai" {
		t.Errorf("gpt-4o's API family %q, want openai", e.Family)
	}
	if !r.HasProvider("acme") || !slices.Equal(r.Capabilities("acme-1"), []string{"text", "vision"}) {
		t.Error("the file's own provider or service is gone")
	}
	if len(r.Warnings()) != 1 {
		t.Errorf("warnings %q, want one naming the fields", r.Warnings())
	}
}

// TestLike: an entry that says "like" takes the facts of the entry its name resolves to (and the
// host that name says serves it), overridden by what it lists itself; a name nobody knows is an
// error that names the entry.
func TestLike(t *testing.T) {
	t.Parallel()
	r, err := llmservices.Parse([]byte(`{"extends": "builtin", "services": [
	 {"id": "my-gpt4o-deployment", "like": "azure/gpt-4o"},
	 {"id": "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3", "like": "us.anthropic.claude-sonnet-4-5-20250929-v1:0"},
	 {"id": "my-text-gpt", "like": "gpt-4o", "capabilities": {"input": ["text"]}},
	 {"id": "my-alias-of-alias", "like": "my-gpt4o-deployment"}]}`), "like.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, provider, servedBy string
		caps                     []string
	}{
		{"my-gpt4o-deployment", "openai", "azure", []string{"text", "vision", "file"}},
		{"azure/my-gpt4o-deployment", "openai", "azure", []string{"text", "vision", "file"}},
		{"arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3", "anthropic", "bedrock", []string{"text", "vision", "file"}},
		{"my-text-gpt", "openai", "", []string{"text"}},
		{"my-alias-of-alias", "openai", "azure", []string{"text", "vision", "file"}},
	} {
		e, ok := r.Resolve(tt.name)
		if !ok || e.Provider != tt.provider || e.ServedBy != tt.servedBy || !slices.Equal(e.Capabilities, tt.caps) {
			t.Errorf("%s: %+v (ok %v), want %v from %s served by %q", tt.name, e, ok, tt.caps, tt.provider, tt.servedBy)
		}
	}
	arn := "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3"
	if f := r.Formats(arn, "openai"); f.Request.MaxImages != 20 || !slices.Contains(f.File, "docx") {
		t.Errorf("the inference profile gets %+v, want Bedrock's formats and request limits", f)
	}
	_, err = llmservices.Parse([]byte(`{"extends": "builtin", "services": [{"id": "x-deploy", "like": "no-such-model-anywhere"}]}`), "bad.json")
	if err == nil || !strings.Contains(err.Error(), `"x-deploy"`) || !strings.Contains(err.Error(), "no-such-model-anywhere") {
		t.Errorf("an unknown like: %v", err)
	}
}

// TestUnregisteredARNIsBedrocks: an application inference profile nobody registered is text
// only, with Bedrock's formats and request limits whatever the request's dialect.
func TestUnregisteredARNIsBedrocks(t *testing.T) {
	t.Parallel()
	r := llmservices.Default()
	arn := "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/zz9999"
	if r.Has(arn) || !slices.Equal(r.Capabilities(arn), []string{"text"}) {
		t.Fatalf("%s resolves: %v", arn, r.Capabilities(arn))
	}
	if f := r.Formats(arn, "anthropic"); f.Request.MaxImages != 20 || !slices.Contains(f.File, "docx") {
		t.Errorf("formats %+v, want Bedrock's", f)
	}
}

// TestLocalFamiliesNameTheirSource: each row of the curated Ollama family table says where its
// capabilities come from: the family's Ollama library page and the date it was read.
func TestLocalFamiliesNameTheirSource(t *testing.T) {
	t.Parallel()
	f, err := llmservices.Curated()
	if err != nil {
		t.Fatal(err)
	}
	dated := regexp.MustCompile(`, read 20\d\d-[01]\d-[0-3]\d\b`)
	families := 0
	for _, s := range f.Services {
		family, ok := strings.CutPrefix(s.ID, "ollama/")
		if !ok {
			continue
		}
		families++
		page := "/library/" + strings.SplitN(family, ":", 2)[0] + ","
		if !strings.HasPrefix(s.Source, "Ollama library page ") || !strings.Contains(s.Source, page) || !dated.MatchString(s.Source) {
			t.Errorf("%s: source %q, want its Ollama library page (…%s) and the date it was read", s.ID, s.Source, page)
		}
	}
	if families < 20 {
		t.Errorf("%d Ollama family rows, want the table's 20 and more", families)
	}
}

// TestBedrockNamesGetBedrocksLimits: a Claude model named by a Bedrock ARN (inference profile,
// foundation model, GovCloud) or a us-gov. profile gets Bedrock's formats and request limits
// (20 images, documents), not Anthropic's (100 images, 32 MB), whatever the request's dialect.
func TestBedrockNamesGetBedrocksLimits(t *testing.T) {
	t.Parallel()
	r := llmservices.Default()
	if f := r.Formats("claude-3-5-sonnet-20240620", contracts.DialectAnthropic); f.Request.MaxImages != 100 || f.Request.MaxBytes != 32<<20 {
		t.Fatalf("the model at Anthropic: %+v, want Anthropic's limits", f.Request)
	}
	for _, name := range []string{
		"arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0",
		"arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-3-haiku-20240307-v1:0",
		"arn:aws-us-gov:bedrock:us-gov-west-1:123456789012:inference-profile/us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0",
		"us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0",
	} {
		if f := r.Formats(name, contracts.DialectAnthropic); f.Request.MaxImages != 20 || !slices.Contains(f.File, "docx") {
			t.Errorf("%s: request limits %+v, files %v; want Bedrock's", name, f.Request, f.File)
		}
	}
}

// TestLocalHostsTakeNoPDFPart: a local server (Ollama, vLLM, LM Studio: OpenAI-compatible chat
// APIs) takes no PDF file part, even for a model that reads PDFs; the same model named without
// the host gets one.
func TestLocalHostsTakeNoPDFPart(t *testing.T) {
	t.Parallel()
	r, err := llmservices.Parse([]byte(`{"extends": "builtin", "services": [
	 {"id": "ollama/docreader", "capabilities": {"input": ["text", "vision", "file"]}},
	 {"id": "acme/docreader-7b", "provider": "acme", "capabilities": {"input": ["text", "vision", "file"]}}]}`), "local.json")
	if err != nil {
		t.Fatal(err)
	}
	pdf := testfiles.PDF()
	for _, tt := range []struct {
		name, servedBy string
		filePart       bool
	}{
		{"docreader:7b", "ollama", false},
		{"ollama_chat/docreader", "ollama", false},
		{"hosted_vllm/acme/docreader-7b", "vllm", false},
		{"lm_studio/acme/docreader-7b", "lmstudio", false},
		{"acme/docreader-7b", "", true},
	} {
		e, ok := r.Resolve(tt.name)
		doc := routing.Route(routing.Input{ID: "doc", Filename: "report.pdf", DeclaredMIME: "application/pdf", Content: pdf,
			Capabilities: routing.NewCapabilities(r.Capabilities(tt.name)...), Formats: r.Formats(tt.name, contracts.DialectOpenAIChat), Dialect: contracts.DialectOpenAIChat})
		if !ok || e.ServedBy != tt.servedBy || (doc.Routing == contracts.RouteFile) != tt.filePart {
			t.Errorf("%s: served by %q (ok %v), a PDF routed %q; want served by %q, a file part %v", tt.name, e.ServedBy, ok, doc.Routing, tt.servedBy, tt.filePart)
		}
	}
}
