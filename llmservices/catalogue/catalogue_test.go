package catalogue_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/llmservices/catalogue"
)

// TestCommittedCatalogueIsConverted fails when llmservices/catalogue.json differs from what the
// converter makes of the committed snapshots: regenerate with `go generate ./llmservices`. (It also
// fails when the conversion is not deterministic: the committed file came from another run.)
func TestCommittedCatalogueIsConverted(t *testing.T) {
	t.Parallel()
	want, st, err := catalogue.Build("snapshots")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "catalogue.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("llmservices/catalogue.json is not what the converter makes of snapshots/ (%d bytes, want %d); run `go generate ./llmservices`", len(got), len(want))
	}
	if st.Entries < 2000 || st.Vision < 700 {
		t.Errorf("stats %+v: fewer entries or vision models than the snapshots hold", st)
	}
}

// TestStandaloneKeepsCurated: with the curated file given, the result is one standalone registry
// (for LLM_SERVICES_FILE) in which the curated entries win.
func TestStandaloneKeepsCurated(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join("snapshots", catalogue.ModelsDevSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	lite, err := os.ReadFile(filepath.Join("snapshots", catalogue.LiteLLMSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	curated := &llmservices.File{
		Providers: map[string]llmservices.Provider{"openai": {Family: "openai", Formats: llmservices.Modalities{Image: []string{"png"}}}},
		Services: []llmservices.Service{{ID: "grok-4", Provider: "xai", Note: "pinned text only",
			Capabilities: llmservices.Capabilities{Input: []string{"text"}, Output: []string{"text"}}}},
	}
	out, st, err := catalogue.Convert(md, lite, "test", curated)
	if err != nil {
		t.Fatal(err)
	}
	r, err := llmservices.Parse(out, "standalone.json")
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := r.Resolve("grok-4"); !ok || e.Note != "pinned text only" || len(e.Capabilities) != 1 {
		t.Errorf("grok-4 = %+v, want the curated text-only entry", e)
	}
	if !r.Has("gpt-5.1") || len(r.Services()) != st.Entries+1 {
		t.Errorf("the catalogue entries are missing: %d services, %d converted", len(r.Services()), st.Entries)
	}
	if got := r.Formats("gpt-4o", "").Image; len(got) != 1 || got[0] != "png" {
		t.Errorf("gpt-4o image formats %v, want the curated openai provider's [png]", got)
	}
}
