package tooldefs_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/tooldefs"
)

// shipped is the file in contracts/tools holding dialect's definitions in locale.
func shipped(dialect, locale string) string {
	return filepath.Join("..", "contracts", "tools", dialect+"."+locale+".json")
}

// TestShippedFilesAreCurrent: the files in contracts/tools are what `worker tools` prints.
// ARTIFACT_WORKER_UPDATE_TOOLS=1 go test ./tooldefs rewrites them.
func TestShippedFilesAreCurrent(t *testing.T) {
	for _, d := range tooldefs.Dialects {
		for _, l := range contracts.Locales {
			want, err := tooldefs.Render(d, l)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			if os.Getenv("ARTIFACT_WORKER_UPDATE_TOOLS") != "" {
				if err := os.WriteFile(shipped(d, l), want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(shipped(d, l))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is not current (%v): run ARTIFACT_WORKER_UPDATE_TOOLS=1 go test ./tooldefs", shipped(d, l), err)
			}
		}
	}
}

func TestRenderRefusesUnknown(t *testing.T) {
	if _, err := tooldefs.Render("gemini-ultra", "zh"); err == nil {
		t.Error("unknown dialect accepted")
	}
	if _, err := tooldefs.Render(tooldefs.DialectAnthropic, "fr"); err == nil {
		t.Error("unknown locale accepted")
	}
}
