package service_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// TestReadmeDocumentsExample: the README's "Documents" example is what the worker answers to
// get_artifact for it, over NATS: every member it shows has the value shown, a string shown ending in "..." (shortened base64)
// the value's start, an object shown ending in ",...}" the members it names.
//
//	go test -run TestReadmeDocumentsExample ./service/
func TestReadmeDocumentsExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(readme), "\n### Documents\n")
	_, block, _ := strings.Cut(section, "```json\n")
	block, _, _ = strings.Cut(block, "```")
	shown := strings.ReplaceAll(block, ",...}", "}")
	var want any
	if err := json.Unmarshal([]byte(shown), &want); err != nil {
		t.Fatalf("the README's Documents example is not JSON: %v\n%s", err, block)
	}

	w := startWorker(t, withSharedWasmCache)
	w.PutArtifact("report", "application/pdf", "report.pdf", testfiles.PDFFile("report.pdf"))
	// The request the README describes, over NATS to the worker.
	rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "artifact:report", Capabilities: []string{"text", "vision"}, Dialect: "anthropic", Locale: "en", Media: "assembly"})
	if !rep.OK {
		t.Fatalf("reply %+v", rep.Error)
	}
	raw, _ := json.Marshal(res)
	var got any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	for _, d := range shownDiffers("", want, got) {
		t.Error(d)
	}
}

var shortened = regexp.MustCompile(`^[A-Za-z0-9+/]+\.\.\.$`)

// shownDiffers lists where got does not hold what shown shows.
func shownDiffers(path string, shown, got any) []string {
	switch s := shown.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return []string{path + ": not an object"}
		}
		var out []string
		for k, v := range s {
			out = append(out, shownDiffers(path+"."+k, v, g[k])...)
		}
		return out
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(s) {
			return []string{path + ": not an array of " + jsonOf(len(s)) + " items: " + jsonOf(got)}
		}
		var out []string
		for i := range s {
			out = append(out, shownDiffers(path+"["+jsonOf(i)+"]", s[i], g[i])...)
		}
		return out
	case string:
		if g, ok := got.(string); ok && (g == s || shortened.MatchString(s) && strings.HasPrefix(g, strings.TrimSuffix(s, "..."))) {
			return nil
		}
	default:
		if jsonOf(shown) == jsonOf(got) {
			return nil
		}
	}
	return []string{path + ": README shows " + jsonOf(shown) + ", the answer has " + jsonOf(got)}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}
