package catalogue

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/llmservices"
)

// TestEveryCatalogueNameResolves: each chat model of both snapshots, by the name its catalogue
// writes ("openrouter/x-ai/grok-4", "us.anthropic.claude-...-v1:0", "accounts/fireworks/models/..."),
// resolves to an entry of the converted catalogue; nearly every one that reads images gets them
// (the others: where the model's own provider says it does not, or more of its catalogue records
// list it without images than with).
func TestEveryCatalogueNameResolves(t *testing.T) {
	t.Parallel()
	md, err := os.ReadFile(filepath.Join("snapshots", ModelsDevSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	lite, err := os.ReadFile(filepath.Join("snapshots", LiteLLMSnapshot))
	if err != nil {
		t.Fatal(err)
	}
	var st Stats
	liteRecords, notChat, err := readLiteLLM(lite, &st)
	if err != nil {
		t.Fatal(err)
	}
	mdRecords, err := readModelsDev(md, liteRecords, notChat, &st)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := Convert(md, lite, "test", nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := llmservices.Parse(out, "catalogue.json")
	if err != nil {
		t.Fatal(err)
	}
	vision, seen := 0, 0
	for _, rec := range slices.Concat(liteRecords, mdRecords) {
		if rec.hostOnly {
			continue
		}
		if k := fileKey(rec); isOneWord(llmservices.Canonical(rec.name)) {
			rec.name = k // a one-word id resolves only by its full name
		}
		if !r.Has(rec.name) {
			t.Errorf("%s (%s, %s) resolves to nothing", rec.name, rec.source, rec.provider)
		}
		if rec.inputs[contracts.CapVision] {
			seen++
			if slices.Contains(r.Capabilities(rec.name), contracts.CapVision) {
				vision++
			}
		}
	}
	if seen < 2000 || float64(vision) < 0.98*float64(seen) {
		t.Errorf("%d of %d records that read images get them, want at least 98%%", vision, seen)
	}
	t.Logf("%d of %d records that read images get them", vision, seen)
}
