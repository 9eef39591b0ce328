package catalogue_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"slices"
	"testing"

	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/llmservices/catalogue"
)

// snapshot builds a small models.dev tarball: files by path, symlinks by path → target.
func snapshot(t *testing.T, files map[string]string, links map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"LICENSE"} {
		_ = tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: 3, Typeflag: tar.TypeReg})
		_, _ = tw.Write([]byte("MIT"))
	}
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(content))
	}
	for name, target := range links {
		_ = tw.WriteHeader(&tar.Header{Name: name, Linkname: target, Typeflag: tar.TypeSymlink})
	}
	_ = tw.Close()
	_ = zw.Close()
	return buf.Bytes()
}

// TestConversionRules: each rule of the package documentation on a small pair of snapshots.
func TestConversionRules(t *testing.T) {
	t.Parallel()
	mod := func(in string) string { return "[modalities]\ninput = [" + in + "]\noutput = [\"text\"]\n" }
	md := snapshot(t, map[string]string{
		"providers/openai/models/gpt-x.toml":              mod(`"text", "image"`),
		"providers/azure/models/gpt-x.toml":               mod(`"text", "image", "audio"`), // its own provider says no audio
		"providers/helicone/models/grok-z.toml":           mod(`"text", "image"`),          // xAI's record is silent
		"providers/openrouter/models/acme/inherit.toml":   "base_model = \"openai/gpt-x\"\n",
		"providers/openrouter/models/acme/from-lite.toml": "base_model = \"acme/lite-only\"\n",
		"providers/openai/models/gpt-image-x.toml":        "[modalities]\ninput = [\"text\"]\noutput = [\"image\"]\n",
		"providers/foo/models/nomod.toml":                 "name = \"no modalities\"\n",
		"providers/openai/models/text-embedding-q.toml":   mod(`"text"`), // models.dev: text in, text out; LiteLLM: an embedding model
		"providers/openrouter/models/openai/flagged.toml": mod(`"text", "image"`),
		"providers/p1/models/meta-llama/vis-m.toml":       mod(`"text", "image"`),
		"providers/p2/models/vis-m.toml":                  mod(`"text", "image"`),
		"providers/p3/models/meta/vis-m.toml":             mod(`"text", "image", "audio"`), // one gateway's slip
	}, map[string]string{
		"providers/bar/models/gpt-x.toml": "../../openai/models/gpt-x.toml",
		"providers/bar/models/gone.toml":  "../../openai/models/gone.toml",
	})
	lite := []byte(`{
 "sample_spec": {"mode": "one of: chat, embedding"},
 "xai/grok-z": {"litellm_provider": "xai", "mode": "chat"},
 "xai/grok-z-latest": {"litellm_provider": "xai", "mode": "chat"},
 "flagged-latest": {"litellm_provider": "openai", "mode": "chat"},
 "dashscope/kimi-q": {"litellm_provider": "dashscope", "mode": "chat"},
 "moonshot/kimi-q": {"litellm_provider": "moonshot", "mode": "chat"},
 "gpt-x": {"litellm_provider": "openai", "mode": "chat", "supports_pdf_input": true},
 "text-embedding-q": {"litellm_provider": "openai", "mode": "embedding", "supports_vision": true},
 "us.anthropic.claude-q-v1:0": {"litellm_provider": "bedrock_converse", "mode": "chat", "supports_vision": true},
 "flagged": {"litellm_provider": "openai", "mode": "chat", "supports_vision": false},
 "lite-only": {"litellm_provider": "openai", "mode": "chat", "supported_modalities": ["text", "audio"]},
 "tts-q": {"litellm_provider": "openai", "mode": "chat", "supported_output_modalities": ["audio"]}
}`)
	out, st, err := catalogue.Convert(md, lite, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := llmservices.Parse(out, "converted.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, provider string
		caps           []string // nil: no entry
	}{
		{"gpt-x", "openai", []string{"text", "vision", "file"}}, // a flag in one source, a modality in the other; azure's audio denied
		{"grok-z", "xai", []string{"text", "vision"}},           // first-party silent: the gateway's image counts
		{"inherit", "openai", []string{"text", "vision"}},       // base_model's own file
		{"from-lite", "openrouter", []string{"text", "audio"}},  // base_model without a file: LiteLLM's record of it
		{"claude-q", "anthropic", []string{"text", "vision"}},   // Bedrock spelling, maker from the vendor part
		{"flagged", "openai", []string{"text"}},                 // its own provider's false flag wins over a gateway
		{"grok-z-latest", "xai", []string{"text", "vision"}},    // an alias its records are silent about reads what its model reads
		{"flagged-latest", "openai", []string{"text"}},          // and nothing its model does not
		{"kimi-q", "moonshotai", []string{"text"}},              // its maker, not a provider earlier in Preferred that serves it
		{"gpt-image-x", "", nil}, {"nomod", "", nil}, {"text-embedding-q", "", nil}, {"tts-q", "", nil}, {"gone", "", nil},
	}
	for _, tt := range tests {
		e, ok := r.Resolve(tt.name)
		if ok != (tt.caps != nil) {
			t.Errorf("%s: entry %v, want %v", tt.name, ok, tt.caps != nil)
			continue
		}
		if ok && (!slices.Equal(e.Capabilities, tt.caps) || e.Provider != tt.provider) {
			t.Errorf("%s: %v from %q, want %v from %q", tt.name, e.Capabilities, e.Provider, tt.caps, tt.provider)
		}
	}
	if st.ModelsDevUnknown != 1 || st.ModelsDevLinks != 1 || st.LiteLLMKeys != 11 {
		t.Errorf("stats %+v: want one file without modalities, one broken link, 11 LiteLLM keys", st)
	}
	if e, _ := r.Resolve("gpt-x"); e.Detail != "litellm+models.dev" {
		t.Errorf("gpt-x source %q, want both catalogues", e.Detail)
	}
}
