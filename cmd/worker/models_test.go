package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
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
	if code, _, errOut := runModels(t, "--provider", "acmecorp"); code != exitUsage || !strings.Contains(errOut, `"acmecorp"`) {
		t.Errorf("unknown provider: exit %d, %q", code, errOut)
	}
	// A name or substring filter, before or after the flags, matching ids and aliases.
	code, out, _ = runModels(t, "CLAUDE-SONNET-4", "--provider", "anthropic")
	if code != exitOK || !strings.Contains(out, "claude-sonnet-4-5 ") || strings.Contains(out, "gpt-4o") {
		t.Errorf("filtered list (exit %d):\n%s", code, out)
	}
	code, out, _ = runModels(t, "--json", "qwen2.5-vl")
	if code != exitOK || json.Unmarshal([]byte(out), &rows) != nil || !slices.ContainsFunc(rows, func(r struct {
		ID           string   `json:"id"`
		Capabilities []string `json:"capabilities"`
		Source       string   `json:"source"`
	}) bool {
		return r.ID == "ollama/qwen2.5vl"
	}) {
		t.Errorf("a filter matches aliases too (exit %d): %v", code, rows)
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
		"input:     text, vision, file", "file pdf, csv", "long edge <= 1568 px", "pdf:       sent as a file",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	// Which layer and which rule decided: a conflict rule names itself and the sources it counted;
	// a curated fact outranks the catalogue and carries its source and date.
	code, out, _ = runModels(t, "explain", "gpt-4o-mini-search-preview-2025-03-11")
	if code != exitOK || !strings.Contains(out, "decided:   the catalogue's conflict rules") || !strings.Contains(out, "input:     text\n") ||
		!strings.Contains(out, "vision: listed without it by 4 sources (models.dev:kilo, models.dev:nano-gpt, models.dev:openrouter, models.dev:vercel), flagged by 2") {
		t.Errorf("explain of a model a conflict rule decided (exit %d):\n%s", code, out)
	}
	code, out, _ = runModels(t, "explain", "grok-beta")
	if code != exitOK || !strings.Contains(out, "decided:   a curated entry") || !strings.Contains(out, "source:    curated (curated fact, 2026-11-28:") {
		t.Errorf("explain of a curated fact (exit %d):\n%s", code, out)
	}
	code, out, _ = runModels(t, "explain", "--json", "grok-beta")
	if code != exitOK || !strings.Contains(out, `"decision": "decided by a curated entry`) {
		t.Errorf("explain --json of a curated fact (exit %d):\n%s", code, out)
	}
	// A model that reads images but takes no PDF gets the pages as images.
	code, out, _ = runModels(t, "explain", "pixtral-large-latest")
	if code != exitOK || !strings.Contains(out, "pdf:       its pages as images, each with its text layer (routing pages)") {
		t.Errorf("pixtral: exit %d:\n%s", code, out)
	}
	code, out, _ = runModels(t, "explain", "--json", "pixtral-large-latest")
	if code != exitOK || !strings.Contains(out, `"pdf": "pages"`) {
		t.Errorf("pixtral --json: exit %d:\n%s", code, out)
	}
	code, out, _ = runModels(t, "explain", "acme-model-9")
	if code != exitFailure || !strings.Contains(out, "resolved:  nothing") || !strings.Contains(out, "text only") {
		t.Errorf("explain of an unknown name (exit %d, want 1):\n%s", code, out)
	}
	if code, _, _ := runModels(t, "explain"); code != exitUsage {
		t.Errorf("explain without a name: exit %d, want 2", code)
	}
	if code, _, _ := runModels(t, "explain", "a", "b"); code != exitUsage {
		t.Errorf("explain with two names: exit %d, want 2", code)
	}
	// Flags after the name; one key style (camelCase, as the list's and the registry file's).
	code, out, _ = runModels(t, "explain", "acme/custom")
	if code != exitFailure || !strings.Contains(out, `"custom" is a one-word id`) {
		t.Errorf("explain of a proxy alias ending in a one-word id (exit %d):\n%s", code, out)
	}
	code, out, _ = runModels(t, "explain", "litellm_proxy/small", "--json")
	var unresolved map[string]any
	if code != exitFailure || json.Unmarshal([]byte(out), &unresolved) != nil || unresolved["resolved"] != false {
		t.Errorf("explain NAME --json of an alias nobody knows (exit %d, want 1):\n%s", code, out)
	}
	code, out, _ = runModels(t, "explain", "ollama/llava:13b", "--json")
	var raw map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &raw) != nil {
		t.Fatalf("explain NAME --json (exit %d):\n%s", code, out)
	}
	var keys func(v any)
	keys = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "" || k[0] < 'a' || k[0] > 'z' || strings.ContainsAny(k, "_ ") {
					t.Errorf("key %q is not camelCase", k)
				}
				keys(x)
			}
		case []any:
			for _, x := range v {
				keys(x)
			}
		}
	}
	keys(raw)
	if entry, _ := raw["entry"].(map[string]any); entry["id"] != "ollama/llava" || entry["servedBy"] != "ollama" {
		t.Errorf("explain ollama/llava:13b: %v", raw["entry"])
	} else if f, _ := entry["formats"].(map[string]any); f["file"] == nil || len(f["file"].([]any)) != 0 {
		t.Errorf("explain ollama/llava:13b: formats %v, want an explicit empty file list (no PDF part to Ollama)", f)
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

// TestModelsImportRefusesBadInput: an import that would shrink the catalogue fails (exit 1,
// naming the input, nothing written); a GitHub archive of models.dev, its tree under one
// top-level folder, is accepted.
func TestModelsImportRefusesBadInput(t *testing.T) {
	snap := filepath.Join("..", "..", "llmservices", "catalogue", "snapshots")
	realMD, err := os.ReadFile(filepath.Join(snap, "models.dev-f3fc692.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	realLite, err := os.ReadFile(filepath.Join(snap, "litellm-model_prices_and_context_window-2026-08-01.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	goodMD, goodLite := write("md.tar.gz", realMD), write("lite.json.gz", realLite)
	tests := []struct {
		name, md, lite string
		ok             bool
		blame          string // the input the message must name
	}{
		{"LiteLLM of the wrong shape (a list)", goodMD, write("list.json", []byte(`[{"mode": "chat"}]`)), false, "list.json"},
		{"LiteLLM of the wrong shape (no chat model)", goodMD, write("other.json", []byte(`{"a": {"b": 1}, "c": {"mode": "embedding"}}`)), false, "other.json"},
		{"empty LiteLLM", goodMD, write("empty.json", nil), false, "empty.json"},
		{"empty models.dev", write("empty.tar.gz", nil), goodLite, false, "empty.tar.gz"},
		{"both empty", write("e1.tar.gz", nil), write("e2.json", nil), false, "e2.json"},
		{"truncated LiteLLM", goodMD, write("cut.json.gz", realLite[:len(realLite)/2]), false, "cut.json.gz"},
		{"truncated models.dev", write("cut.tar.gz", realMD[:len(realMD)/2]), goodLite, false, "cut.tar.gz"},
		{"models.dev without providers/", write("layout.tar.gz", tarball(t, map[string]string{"src/models/a.toml": "x = 1"})), goodLite, false, "layout.tar.gz"},
		{"shrunken models.dev", write("few.tar.gz", tarball(t, map[string]string{"providers/openai/models/gpt-x.toml": "[modalities]\ninput = [\"text\"]\noutput = [\"text\"]\n"})), goodLite, false, "few.tar.gz"},
		{"shrunken LiteLLM", goodMD, write("few.json", []byte(`{"gpt-x": {"litellm_provider": "openai", "mode": "chat"}}`)), false, "few.json"},
		{"GitHub archive: one top-level folder", write("archive.tar.gz", underFolder(t, realMD, "models.dev-f3fc692/")), goodLite, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "llmservices.json")
			code, _, errOut := runModels(t, "import", "--models-dev", tt.md, "--litellm", tt.lite, "-o", out)
			_, statErr := os.Stat(out)
			if tt.ok {
				if code != exitOK || statErr != nil || !strings.Contains(errOut, "0 removed") {
					t.Fatalf("exit %d (written: %v): %s", code, statErr == nil, errOut)
				}
				return
			}
			if code != exitFailure || !strings.Contains(errOut, filepath.Join(dir, tt.blame)) || !strings.Contains(errOut, "nothing written") || statErr == nil {
				t.Errorf("exit %d, file written %v, message %q: want exit 1 naming %s and nothing written", code, statErr == nil, errOut, tt.blame)
			}
		})
	}
}

// tarball is a gzipped tar of the files given.
func tarball(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		_, _ = tw.Write([]byte(content))
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	_ = zw.Close()
	return buf.Bytes()
}

// underFolder rewrites a gzipped tarball with every entry under folder, as GitHub's archives are.
func underFolder(t *testing.T, tgz []byte, folder string) []byte {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(tgz))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		h.Name = folder + strings.TrimPrefix(h.Name, "./")
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(tw, tr); err != nil {
			t.Fatal(err)
		}
	}
	_ = tw.Close()
	_ = zw.Close()
	return buf.Bytes()
}

// TestModelsImportReportsChanges: the import says what it changes against the -o file it
// replaces, by the entries that file resolves to: an entry only it has is removed, one whose
// input capabilities its own layer overrides has changed (here an operator's file over the
// built-in registry, the import bringing the built-in facts back).
func TestModelsImportReportsChanges(t *testing.T) {
	snap := filepath.Join("..", "..", "llmservices", "catalogue", "snapshots")
	outFile := filepath.Join(t.TempDir(), "llmservices.json")
	prev := `{"extends": "builtin", "services": [
	 {"id": "acme-old", "provider": "openai", "capabilities": {"input": ["text", "vision"], "output": ["text"]}},
	 {"id": "gpt-4o", "provider": "openai", "capabilities": {"input": ["text"], "output": ["text"]}}]}`
	if err := os.WriteFile(outFile, []byte(prev), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runModels(t, "import",
		"--models-dev", filepath.Join(snap, "models.dev-f3fc692.tar.gz"),
		"--litellm", filepath.Join(snap, "litellm-model_prices_and_context_window-2026-08-01.json.gz"),
		"-o", outFile)
	if code != exitOK {
		t.Fatalf("import: exit %d, %s", code, errOut)
	}
	for _, want := range []string{
		"against " + outFile + ": 0 added, 1 removed, 1 with other input capabilities\n",
		"  removed: acme-old\n",
		"  capabilities changed: gpt-4o (text → text,vision,file)\n",
	} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the report lacks %q:\n%s", want, errOut)
		}
	}
}
