package service_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// repoFiles lists the repository's tracked files (paths relative to its root), without vendored
// third-party code and lockfiles.
func repoFiles(t *testing.T) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Skipf("git ls-files: %v (not a git checkout)", err)
	}
	var files []string
	for _, f := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(f, "third_party/") || strings.HasSuffix(f, "package-lock.json") || strings.Contains(f, "/snapshots/") {
			continue
		}
		files = append(files, f)
	}
	return files
}

// absentDocument matches citations of documents the repository does not contain: the design
// documents and the provider notes this project was specified from. docs/design.md and
// docs/providers.md record what the code relies on of them; cite those.
var absentDocument = regexp.MustCompile(`PROVIDERS\.md|(?i:design documents? 00[0-4])|(?i:\bthe seeds?\b|\bseed's\b)|shared/(seeds|STYLE|catalogue|vendor)`)

// absentDocumentWords are what every match of absentDocument contains, lowercased: a line without
// any of them (after lowercasing, and ſ, which (?i) folds to s, read as s) has no match, and the
// regexp is not run on it (under -race, running it on every line of the repository took 20 s).
var absentDocumentWords = []string{"providers.md", "design document", "seed", "shared/"}

// mayCite reports whether s contains one of absentDocumentWords, without regard to case.
func mayCite(s string) bool {
	folded := strings.ToLower(strings.ReplaceAll(s, "ſ", "s"))
	return slices.ContainsFunc(absentDocumentWords, func(w string) bool { return strings.Contains(folded, w) })
}

// TestNoCitationOfAbsentDocuments: no Go comment, schema, script or doc cites a document the
// repository does not contain.
func TestNoCitationOfAbsentDocuments(t *testing.T) {
	t.Parallel()
	for _, f := range repoFiles(t) {
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil || !mayCite(string(b)) {
			continue // deleted in the work tree, or no line can match
		}
		for i, line := range strings.Split(string(b), "\n") {
			if !mayCite(line) {
				continue
			}
			if m := absentDocument.FindString(line); m != "" && f != "service/citations_test.go" {
				t.Errorf("%s:%d cites %q, which is not in the repository (cite docs/design.md or docs/providers.md)", f, i+1, m)
			}
		}
	}
}

// mdLink matches a Markdown link's target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestMarkdownLinksResolve: every relative link of the repository's Markdown files names a file or
// folder the repository has.
func TestMarkdownLinksResolve(t *testing.T) {
	for _, f := range repoFiles(t) {
		if !strings.HasSuffix(f, ".md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join("..", f))
		if err != nil {
			continue
		}
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			p := filepath.Join("..", filepath.Dir(f), target)
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s, which does not exist", f, m[1])
			}
		}
	}
}
