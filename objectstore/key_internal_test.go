package objectstore

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidateKey(t *testing.T) {
	tests := []struct {
		key string
		ok  bool
	}{
		{"artifacts/abc", true},
		{"workspaces/ws1/src/a b/报告.md", true},
		{"a", true},
		{"a/.hidden/..x/x..", true},
		{"", false},
		{"/a", false},
		{"a/../b", false},
		{"..", false},
		{".", false},
		{"a/./b", false},
		{"a//b", false},
		{"a/", false},
		{"a\x00", false},
		{"\xff", false},
		{strings.Repeat("a", MaxKeyLen), true},
		{strings.Repeat("a", MaxKeyLen+1), false},
	}
	for _, tc := range tests {
		err := ValidateKey(tc.key)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateKey(%q) = %v, want ok %v", tc.key, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrInvalidKey) {
			t.Errorf("ValidateKey(%q) = %v, not ErrInvalidKey", tc.key, err)
		}
	}
}

func TestKeyHelpers(t *testing.T) {
	if got := ArtifactKey("a1"); got != "artifacts/a1" {
		t.Errorf("ArtifactKey = %q", got)
	}
	if got := WorkspaceKey("ws1", "/src/a b.md"); got != "workspaces/ws1/src/a b.md" {
		t.Errorf("WorkspaceKey = %q", got)
	}
}

// FuzzValidateKey checks that every accepted key maps to a path strictly inside Local's objects
// directory, unchanged by cleaning.
func FuzzValidateKey(f *testing.F) {
	for _, s := range []string{"artifacts/x", "a/../b", "/etc/passwd", "a//b", "..", "ws/报告.md", "a/.", "a\\..\\b"} {
		f.Add(s)
	}
	l := &Local{objects: "/store/objects"}
	f.Fuzz(func(t *testing.T, key string) {
		if ValidateKey(key) != nil {
			return
		}
		p := l.objectPath(key)
		rel, err := filepath.Rel(l.objects, p)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
			t.Fatalf("key %q maps to %q, outside %q", key, p, l.objects)
		}
		if filepath.ToSlash(rel) != key {
			t.Fatalf("key %q maps to %q (rel %q): the path is not the key", key, p, rel)
		}
	})
}
