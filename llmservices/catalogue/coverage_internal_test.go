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
// list it without images than with). Each serving provider of either snapshot, as the first path
// segment its catalogue names it by, says who serves a model of its own ("cerebras/...",
// "sambanova/...", "nvidia_nim/..."): the host table holds them all, not a hand list of a few.
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
	hosts := map[string]bool{} // provider and segment checked
	for _, rec := range slices.Concat(liteRecords, mdRecords) {
		if rec.hostOnly {
			continue
		}
		for _, seg := range rec.segments {
			if hosts[rec.provider+" "+seg] || rec.inherits {
				continue
			}
			hosts[rec.provider+" "+seg] = true
			if e, ok := r.Resolve(seg + "/" + rec.name); !ok || e.ServedBy != rec.provider {
				t.Errorf("%s (%s): %s/%s served by %q (ok %v), want %q", rec.full, rec.source, seg, rec.name, e.ServedBy, ok, rec.provider)
			}
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
	if len(hosts) < 150 {
		t.Errorf("%d serving providers' segments checked, want the snapshots' 150 and more", len(hosts))
	}
	t.Logf("%d of %d records that read images get them; %d serving providers' segments say who serves", vision, seen, len(hosts))
}
