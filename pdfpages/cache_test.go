// A cold compile of the module takes about 5 s of a core, and about 50 s under the race detector:
// this test runs without it (make test's integration lane runs it; the race lane leaves it out).

//go:build !race

package pdfpages_test

import (
	"context"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/pdfpages"
)

// cacheEntry is what a file of the compilation cache looks like from outside.
type cacheEntry struct {
	size    int64
	modTime time.Time
}

// cacheFiles lists the files under dir (recursively) with their size and modification time.
func cacheFiles(t *testing.T, dir string) map[string]cacheEntry {
	t.Helper()
	files := map[string]cacheEntry{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		files[rel] = cacheEntry{size: info.Size(), modTime: info.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// startRenderer starts a renderer on cacheDir, waits until its module is ready and closes it.
func startRenderer(ctx context.Context, t *testing.T, cacheDir string) {
	t.Helper()
	r, err := pdfpages.New(pdfpages.Config{CacheDir: cacheDir, Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	if err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRestartReadsTheCompiledModule: the first renderer on an empty compilation cache (a worker's
// first start on a fresh DATA_DIR) compiles the module and writes it there; a second renderer on the
// same directory (the restart) reads it: it writes no file and rewrites none. (wazero writes an
// entry only when it compiled the module because the cache did not hold it.)
//
//	go test -run TestRestartReadsTheCompiledModule ./pdfpages/
func TestRestartReadsTheCompiledModule(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a cold compile on a loaded machine
	defer cancel()
	dir := filepath.Join(t.TempDir(), "wasm-cache")

	startRenderer(ctx, t, dir)
	first := cacheFiles(t, dir)
	var written int64
	for _, e := range first {
		written += e.size
	}
	if len(first) == 0 || written < 1<<20 {
		t.Fatalf("the first start left %d files (%d bytes) in the compilation cache, want the compiled module", len(first), written)
	}

	startRenderer(ctx, t, dir)
	second := cacheFiles(t, dir)
	for name, e := range second {
		before, ok := first[name]
		switch {
		case !ok:
			t.Errorf("the restart wrote %s (%d bytes): it compiled again", name, e.size)
		case before != e:
			t.Errorf("the restart rewrote %s (%d bytes at %v, was %d at %v)", name, e.size, e.modTime, before.size, before.modTime)
		}
	}
	if len(second) != len(first) {
		t.Errorf("the cache held %d files after the first start, %d after the restart", len(first), len(second))
	}
}
