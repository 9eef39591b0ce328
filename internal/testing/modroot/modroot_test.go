package modroot_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/modroot"
)

// From this package's directory (internal/testing/modroot) the root is three levels up, and holds go.mod.
func TestFindFromAPackageDirectory(t *testing.T) {
	root, err := modroot.Find()
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if want := filepath.Dir(filepath.Dir(filepath.Dir(wd))); root != want {
		t.Errorf("Find = %s, want %s", root, want)
	}
}
