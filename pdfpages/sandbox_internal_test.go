package pdfpages

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// openByPath asks one of pool's instances to open path itself (FPDF_LoadDocument: the module
// reads the file through its WASI filesystem, not through the worker).
func openByPath(ctx context.Context, t *testing.T, pool pdfium.Pool, path string) error {
	t.Helper()
	inst, err := pool.GetInstanceWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = inst.Close() }()
	doc, err := inst.OpenDocument(&requests.OpenDocument{FilePath: &path})
	if err == nil {
		_, _ = inst.FPDF_CloseDocument(&requests.FPDF_CloseDocument{Document: doc.Document})
	}
	return err
}

// TestModuleHasNoFilesystem: the renderer's module cannot open a file of the host, even a PDF the
// worker can read. go-pdfium's default configuration mounts / into the module; the control shows
// that with it the same probe opens the file (so the probe is not failing for another reason).
//
//	go test -run TestModuleHasNoFilesystem ./pdfpages/
func TestModuleHasNoFilesystem(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a cold compile takes seconds
	defer cancel()
	path := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(path, testfiles.PDFFile("report.pdf"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The compilation cache the tests share (pdfpagestest.CacheDir, which imports this package).
	cacheDir := filepath.Join(os.TempDir(), "artifact-worker-wasm-cache")

	r, err := New(Config{CacheDir: cacheDir, Instances: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	if err := r.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := openByPath(ctx, t, r.pool, path); err == nil {
		t.Errorf("the renderer's module opened %s from the host's filesystem", path)
	}

	// Control: go-pdfium's default filesystem (/ mounted), everything else the renderer's, opens it.
	rc := r.runtimeConfig() // the same compiled code: the cache holds it
	if cache, err := wazero.NewCompilationCacheWithDir(cacheDir); err == nil {
		t.Cleanup(func() { _ = cache.Close(context.Background()) })
		rc = rc.WithCompilationCache(cache)
	}
	open, err := webassembly.Init(webassembly.Config{MaxTotal: 1, RuntimeConfig: rc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = open.Close() })
	if err := openByPath(ctx, t, open, path); err != nil {
		t.Fatalf("control: go-pdfium's default configuration did not open %s either (%v): the probe shows nothing", path, err)
	}
}
