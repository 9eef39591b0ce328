package objectstore_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/objectstore/storetest"
)

var _ storetest.Store = (*objectstore.Local)(nil)

func newLocal(t *testing.T) *objectstore.Local {
	t.Helper()
	l, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLocalContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storetest.Store { return newLocal(t) })
}

func TestLocalLayout(t *testing.T) {
	dir := t.TempDir()
	l, err := objectstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	const key = "workspaces/ws1/src/a b/报告.md"
	if _, err := l.Put(storetest.Ctx(t), key, strings.NewReader("# hi"), 4, "text/markdown", nil); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "objects", filepath.FromSlash(key)))
	if err != nil || string(got) != "# hi" {
		t.Fatalf("objects/{key}: %q, %v", got, err)
	}
	// Nothing is left behind in tmp/, and the sidecar is outside objects/.
	if entries, err := os.ReadDir(filepath.Join(dir, "tmp")); err != nil || len(entries) != 0 {
		t.Errorf("tmp/ holds %v (err %v)", entries, err)
	}
	metas, _ := filepath.Glob(filepath.Join(dir, "meta", "*.json"))
	if len(metas) != 1 {
		t.Errorf("meta/ holds %v, want one sidecar", metas)
	}
}

// Keys whose sidecar name would be a directory prefix of another's must not collide.
func TestLocalSidecarsDoNotCollide(t *testing.T) {
	l := newLocal(t)
	for _, key := range []string{"a", "a.json/x", "meta/a"} {
		if _, err := l.Put(storetest.Ctx(t), key, strings.NewReader(key), int64(len(key)), "text/plain", map[string]string{"filename": key}); err != nil {
			t.Fatalf("Put %q: %v", key, err)
		}
	}
	for _, key := range []string{"a", "a.json/x", "meta/a"} {
		data, info, err := l.ReadAll(storetest.Ctx(t), key, 100)
		if err != nil || string(data) != key || info.Filename() != key {
			t.Errorf("%q: %q %+v %v", key, data, info, err)
		}
	}
}

func TestLocalPrefixConflict(t *testing.T) {
	l := newLocal(t)
	ctx := storetest.Ctx(t)
	if _, err := l.Put(ctx, "w/file", strings.NewReader("x"), 1, "", nil); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, key string }{
		{"object below an object", "w/file/child"},
		{"object at a prefix", "w"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := l.Put(ctx, tc.key, strings.NewReader("x"), 1, "", nil)
			if !errors.Is(err, objectstore.ErrInvalidKey) {
				t.Errorf("Put %q: %v, want ErrInvalidKey", tc.key, err)
			}
		})
	}
}

func TestLocalPermission(t *testing.T) {
	if os.Geteuid() == 0 && runUnprivileged(t, "TestLocalPermission") {
		return // root ignores file permissions: the test ran as nobody
	}
	dir := t.TempDir()
	l, err := objectstore.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Put(storetest.Ctx(t), "artifacts/x", strings.NewReader("x"), 1, "", nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "objects", "artifacts", "x")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(p, 0o644) })
	_, _, err = l.Open(storetest.Ctx(t), "artifacts/x")
	if !errors.Is(err, objectstore.ErrPermission) || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Open unreadable file: %v, want ErrPermission", err)
	}
}
