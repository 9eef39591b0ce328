package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/modroot"
)

// TestGeneratedFilesUpToDate fails while a committed generated file differs from what the generator
// makes from the Go types: a wire type changed without `go generate ./contracts`, or a generated
// file was edited by hand.
func TestGeneratedFilesUpToDate(t *testing.T) {
	root, err := modroot.Find()
	if err != nil {
		t.Fatal(err)
	}
	files, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(filepath.Join(root, path))
		if err != nil {
			t.Errorf("%s: %v (run go generate ./contracts)", path, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what contractgen makes of the Go types, first at line %d: run go generate ./contracts (and edit contracts/*.go, not the generated file)", path, firstDiffLine(got, want))
		}
	}
	// Every schema file is generated: a hand-written one would have no Go type behind it.
	onDisk, err := filepath.Glob(filepath.Join(root, schemaDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range onDisk {
		rel, _ := filepath.Rel(root, p)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			t.Errorf("%s is not generated: give it a Go type in contractgen's documents, or remove it", rel)
		}
	}
}

func firstDiffLine(a, b []byte) int {
	la, lb := bytes.Split(a, []byte("\n")), bytes.Split(b, []byte("\n"))
	for i := range min(len(la), len(lb)) {
		if !bytes.Equal(la[i], lb[i]) {
			return i + 1
		}
	}
	return min(len(la), len(lb)) + 1
}

func TestComments(t *testing.T) {
	src := `package p

// T is a thing.
//
// Go: only for Go readers.
//
// Second paragraph,
// wrapped.
//
//schema:minProperties 1
//schema:allOf [
//schema:allOf   {"required": ["a"]}
//schema:allOf ]
//ts:name Thing
type T struct{}
`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseComment(f.Decls[0].(*ast.GenDecl).Doc)
	if err != nil {
		t.Fatal(err)
	}
	if want := "T is a thing.\n\nSecond paragraph, wrapped."; c.text != want {
		t.Errorf("text = %q, want %q", c.text, want)
	}
	if v, _ := c.get("schema", "allOf"); v != "[\n  {\"required\": [\"a\"]}\n]" {
		t.Errorf("allOf = %q: lines of one key join", v)
	}
	if v, ok := c.get("ts", "name"); !ok || v != "Thing" {
		t.Errorf("ts:name = %q, %v", v, ok)
	}
	if _, ok := c.get("schema", "name"); ok {
		t.Error("a ts: directive read as schema:")
	}
}

func TestDirectiveValue(t *testing.T) {
	if v, err := directiveValue(directive{"schema", "enum", "Locales"}); err != nil || !strings.Contains(mustString(t, v), `"zh", "en"`) {
		t.Errorf("named enum = %v, %v", v, err)
	}
	if v, err := directiveValue(directive{"schema", "maxLength", "MaxIDLen"}); err != nil || mustString(t, v) != "256\n" {
		t.Errorf("named limit = %v, %v", v, err)
	}
	if v, err := directiveValue(directive{"schema", "if", `{"properties": {"dialect": {"enum": "${DialectsMediaInToolResult}"}}}`}); err != nil ||
		!strings.Contains(mustString(t, v), `"anthropic"`) || strings.Contains(mustString(t, v), `"openai-chat"`) || strings.Contains(mustString(t, v), "${") {
		t.Errorf("a name inside JSON = %v, %v", mustString(t, v), err)
	}
	if _, err := directiveValue(directive{"schema", "if", `{"enum": "${NoSuchName}"}`}); err == nil {
		t.Error("an unknown name inside JSON must fail the generator")
	}
	if _, err := directiveValue(directive{"schema", "enum", "NoSuchName"}); err == nil {
		t.Error("an unknown name must fail the generator, not be written as a string")
	}
}

func mustString(t *testing.T, v any) string {
	t.Helper()
	b, err := encode(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
