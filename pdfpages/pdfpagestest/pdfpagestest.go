// Package pdfpagestest shares one PDF renderer among the tests of a package: the module is compiled
// once per test binary, and read from a compilation cache that every test binary of the machine
// shares (under the system's temporary directory), so only the first test run compiles it.
package pdfpagestest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/pdfpages"
)

var (
	once     sync.Once
	renderer *pdfpages.Renderer
	err      error
)

// CacheDir is the compilation cache the tests share.
func CacheDir() string { return filepath.Join(os.TempDir(), "artifact-worker-wasm-cache") }

// Renderer returns the package's shared renderer (started; never closed: it lives as long as the
// test binary). Its timeout is long: a test under -race on a loaded machine is slow, and tests never
// fail on timing.
func Renderer(tb testing.TB) *pdfpages.Renderer {
	tb.Helper()
	once.Do(func() {
		renderer, err = pdfpages.New(pdfpages.Config{CacheDir: CacheDir(), Instances: 2, Timeout: 5 * time.Minute})
		if err == nil {
			renderer.Start()
		}
	})
	if err != nil {
		tb.Fatal(err)
	}
	return renderer
}

// Pdftoppm draws pages first..last of the PDF at path in as PNG with pdftoppm (poppler-utils, the
// benchmarks' anchor) at w x h pixels, into a temporary directory, once. The benchmark is skipped
// when pdftoppm is not installed (scripts/install-poppler.sh installs it).
func Pdftoppm(b *testing.B, in string, first, last, w, h int) {
	b.Helper()
	bin, err := exec.LookPath("pdftoppm")
	if err != nil {
		b.Skip("pdftoppm is not installed (scripts/install-poppler.sh)")
	}
	out := filepath.Join(b.TempDir(), "page")
	cmd := exec.Command(bin, "-png", "-scale-to-x", strconv.Itoa(w), "-scale-to-y", strconv.Itoa(h), "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), in, out)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("pdftoppm: %v: %s", err, msg)
	}
}
