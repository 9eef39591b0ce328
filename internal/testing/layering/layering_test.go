package layering_test

import (
	"encoding/json"
	"io"
	"os/exec"
	pathpkg "path"
	"strings"
	"testing"
)

const module = "github.com/agentworks/artifact-worker"

// pkg is what `go list -json` says of one package that these rules read.
type pkg struct {
	ImportPath string
	Imports    []string // the non-test files' imports
	Deps       []string
}

func list(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: the module is not where the test looks", len(pkgs))
	}
	return pkgs
}

// harness reports whether path is a test harness: code that only tests and benchmarks import.
// Harnesses live under internal/testing/ or beside the package they run, named for it with "test"
// (service/servicetest, pdfpages/pdfpagestest), as net/http/httptest is.
func harness(path string) bool {
	if strings.HasPrefix(path, module+"/internal/testing/") {
		return true
	}
	parent, last := pathpkg.Split(path)
	return last == pathpkg.Base(strings.TrimSuffix(parent, "/"))+"test"
}

// production reports whether path is a package the worker or its clients ship.
func production(path string) bool {
	for _, p := range []string{"/internal/testing/", "/bench", "/integration", "/contracts/internal/"} {
		if strings.HasPrefix(path, module+p) {
			return false
		}
	}
	return !harness(path)
}

func TestProductionImportsNoHarness(t *testing.T) {
	for _, p := range list(t) {
		if !production(p.ImportPath) {
			continue
		}
		for _, imp := range p.Imports {
			if harness(imp) {
				t.Errorf("%s imports the test harness %s", p.ImportPath, imp)
			}
		}
	}
}

func TestInternalDoesNotImportService(t *testing.T) {
	for _, p := range list(t) {
		if !strings.HasPrefix(p.ImportPath, module+"/internal/") {
			continue
		}
		for _, imp := range p.Imports {
			if imp == module+"/service" {
				t.Errorf("%s imports service: internal/ holds helpers below the composition root", p.ImportPath)
			}
		}
	}
}

func TestNoProviderSDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "all").Output()
	if err != nil {
		t.Fatalf("go list -m all: %v", err)
	}
	for _, sdk := range []string{"github.com/anthropics/", "github.com/openai/", "google.golang.org/genai", "github.com/aws/aws-sdk-go-v2"} {
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, sdk) {
				t.Errorf("the main module requires %s: SDK checks belong in the nested module sdkcheck/", line)
			}
		}
	}
}
