package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/llmservices"
)

func runModels(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("LLM_SERVICES_FILE", "")
	var out, errb bytes.Buffer
	code = modelsTo(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestModelsList: the list filters by provider and capability and says where each entry comes from.
func TestModelsList(t *testing.T) {
	code, out, _ := runModels(t, "--provider", "xai", "--capability", "vision")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 5 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(out, "grok-4 ") {
		t.Fatalf("list:\n%s", out)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if f := strings.Fields(l); len(f) < 4 || f[1] != "xai" || !strings.Contains(f[2], "vision") {
			t.Errorf("row %q is not an xai vision model", l)
		}
	}
	code, out, _ = runModels(t, "--json", "--capability", "video")
	var rows []struct {
		ID           string   `json:"id"`
		Capabilities []string `json:"capabilities"`
		Source       string   `json:"source"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &rows) != nil || len(rows) < 50 {
		t.Fatalf("json list: exit %d, %d rows", code, len(rows))
	}
	sources := map[string]bool{}
	for _, r := range rows {
		sources[r.Source] = true
		if !slices.Contains(r.Capabilities, "video") {
			t.Errorf("%s has no video: %v", r.ID, r.Capabilities)
		}
	}
	if !sources["curated"] || !sources["catalogue"] {
		t.Errorf("sources %v, want curated and catalogue entries", sources)
	}
	if code, _, errOut := runModels(t, "--capability", "smell"); code != exitUsage || !strings.Contains(errOut, "smell") {
		t.Errorf("bad capability: exit %d, %q", code, errOut)
	}
}

// TestModelsExplain: a name that resolves shows its steps, entry, source, provider, inputs,
// formats and limits; one that does not says so and that it is text only.
func TestModelsExplain(t *testing.T) {
	code, out, _ := runModels(t, "explain", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"→ Bedrock version suffix: us.anthropic.claude-sonnet-4-5-20250929",
		"resolved:  claude-sonnet-4-5 (matched \"claude-sonnet-4-5-20250929\")",
		"source:    curated", "provider:  anthropic, served by bedrock (its formats apply)",
		"input:     text, vision, file", "file pdf, csv", "long edge <= 1568 px",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runModels(t, "explain", "acme-model-9")
	if code != exitOK || !strings.Contains(out, "resolved:  nothing") || !strings.Contains(out, "text only") {
		t.Errorf("explain of an unknown name (exit %d):\n%s", code, out)
	}
	code, out, _ = runModels(t, "explain", "--json", "openrouter/x-ai/grok-4:free")
	var got struct {
		Resolved bool
		Entry    struct{ ID, Provider, ServedBy string }
		Rules    []string
	}
	if code != exitOK || json.Unmarshal([]byte(out), &got) != nil || !got.Resolved || got.Entry.ID != "grok-4" || got.Entry.ServedBy != "openrouter" || len(got.Rules) != 3 {
		t.Errorf("explain --json (exit %d): %+v\n%s", code, got, out)
	}
}

// TestModelsImport: newer snapshots (here the committed ones) become one standalone registry
// file for LLM_SERVICES_FILE, with the curated entries over the catalogue.
func TestModelsImport(t *testing.T) {
	snap := filepath.Join("..", "..", "llmservices", "catalogue", "snapshots")
	outFile := filepath.Join(t.TempDir(), "llmservices.json")
	code, _, errOut := runModels(t, "import",
		"--models-dev", filepath.Join(snap, "models.dev-f3fc692.tar.gz"),
		"--litellm", filepath.Join(snap, "litellm-model_prices_and_context_window-2026-08-01.json.gz"),
		"-o", outFile)
	if code != exitOK || !strings.Contains(errOut, "catalogue entries") {
		t.Fatalf("import: exit %d, %s", code, errOut)
	}
	r, err := llmservices.Load(outFile)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := r.Resolve("deepseek-chat"); !ok || e.Source != outFile || len(e.Capabilities) != 1 {
		t.Errorf("deepseek-chat = %+v: the curated text-only entry must win", e)
	}
	if !slices.Contains(r.Capabilities("grok-4"), "vision") || len(r.Services()) < 2000 {
		t.Errorf("the catalogue is missing from the imported file (%d services)", len(r.Services()))
	}
	code, out, _ := runModels(t, "--registry", outFile, "--provider", "deepseek")
	if code != exitOK || !strings.Contains(out, "deepseek-chat") || !strings.Contains(out, outFile) {
		t.Errorf("list of the imported file:\n%s", out)
	}
	if code, _, _ := runModels(t, "import", "--models-dev", "x"); code != exitUsage {
		t.Errorf("import without --litellm: exit %d", code)
	}
	_ = os.Remove(outFile)
}
