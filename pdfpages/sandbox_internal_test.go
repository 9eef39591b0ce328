package pdfpages

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klippa-app/go-pdfium"
	"github.com/klippa-app/go-pdfium/requests"
	"github.com/klippa-app/go-pdfium/webassembly"
	"github.com/tetratelabs/wazero"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// sharedCacheDir is the compilation cache the tests of the machine share: pdfpagestest.CacheDir,
// which this package's internal tests cannot import (it imports this package).
func sharedCacheDir() string { return filepath.Join(os.TempDir(), "artifact-worker-wasm-cache") }

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
	cacheDir := sharedCacheDir()

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

// wasmImport is one import of a WebAssembly module: the module it comes from, its name, its kind
// (0 function, 1 table, 2 memory, 3 global, 4 tag).
type wasmImport struct {
	module, name string
	kind         byte
}

// wasmImports reads the import section of a WebAssembly binary (the spec's binary format: the magic
// and version, then sections of id and size; section 2 is the imports, each a module name, a name
// and a description). It is written here, apart from wazero, so that the check does not rest on the
// runtime it checks.
func wasmImports(bin []byte) ([]wasmImport, error) {
	if len(bin) < 8 || string(bin[:4]) != "\x00asm" {
		return nil, errors.New("not a WebAssembly binary")
	}
	p := bin[8:]
	fail := errors.New("truncated import section")
	u32 := func() (uint32, bool) {
		var v uint32
		for shift := 0; shift < 35 && len(p) > 0; shift += 7 {
			b := p[0]
			p = p[1:]
			v |= uint32(b&0x7f) << shift
			if b&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	name := func() (string, bool) {
		n, ok := u32()
		if !ok || int(n) > len(p) {
			return "", false
		}
		s := string(p[:n])
		p = p[n:]
		return s, true
	}
	skip := func(n int) bool {
		if n > len(p) {
			return false
		}
		p = p[n:]
		return true
	}
	limits := func() bool {
		if len(p) == 0 {
			return false
		}
		flags := p[0]
		p = p[1:]
		if _, ok := u32(); !ok {
			return false
		}
		if flags&1 != 0 {
			_, ok := u32()
			return ok
		}
		return true
	}
	for len(p) > 0 {
		id := p[0]
		p = p[1:]
		size, ok := u32()
		if !ok || int(size) > len(p) {
			return nil, errors.New("truncated section")
		}
		if id != 2 {
			p = p[size:]
			continue
		}
		p = p[:size]
		count, ok := u32()
		if !ok {
			return nil, fail
		}
		imports := make([]wasmImport, 0, min(int(count), len(p)))
		for range count {
			var im wasmImport
			var ok1, ok2 bool
			im.module, ok1 = name()
			im.name, ok2 = name()
			if !ok1 || !ok2 || len(p) == 0 {
				return nil, fail
			}
			im.kind = p[0]
			p = p[1:]
			switch im.kind {
			case 0: // function: a type index
				_, ok = u32()
			case 1: // table: a reference type, limits
				ok = skip(1) && limits()
			case 2: // memory: limits
				ok = limits()
			case 3: // global: a value type, mutability
				ok = skip(2)
			case 4: // tag (exception handling): an attribute, a type index
				ok = skip(1)
				if ok {
					_, ok = u32()
				}
			default:
				return nil, fmt.Errorf("import %s.%s of unknown kind %d", im.module, im.name, im.kind)
			}
			if !ok {
				return nil, fail
			}
			imports = append(imports, im)
		}
		return imports, nil
	}
	return nil, nil
}

// pdfiumWASM returns the module go-pdfium embeds (the one the worker's binary carries), read from
// the module's source in the module cache: go-pdfium keeps it in an internal package.
func pdfiumWASM(t *testing.T) []byte {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/klippa-app/go-pdfium").Output()
	if err != nil {
		t.Fatalf("go list -m github.com/klippa-app/go-pdfium: %v", err)
	}
	bin, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "internal", "pdfium_wasm", "pdfium.wasm"))
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// TestModuleHasNoNetwork: the renderer's module cannot reach the network because it imports no
// function that could. A WebAssembly module acts on the world only through its imports; pdfium's
// come from WASI preview 1 and from go-pdfium's "env" host module. WASI preview 1 has no call that
// opens or connects a socket at all; its only socket calls (sock_accept, sock_recv, sock_send,
// sock_shutdown) act on sockets the host hands in (wazero: experimental/sock, which the renderer
// never configures), and the module imports none of them. The WASI calls it imports are pinned
// here: files (given nothing: TestModuleHasNoFilesystem), clocks, environment (empty) and exit, so
// that a new go-pdfium whose module asks for more fails this test and is looked at. "env" holds
// go-pdfium's callbacks (the _CB functions: Go code that calls what the caller registered, and the
// renderer registers none) and Emscripten's memory-growth notice.
//
//	go test -run TestModuleHasNoNetwork ./pdfpages/
func TestModuleHasNoNetwork(t *testing.T) {
	t.Parallel()
	imports, err := wasmImports(pdfiumWASM(t))
	if err != nil {
		t.Fatal(err)
	}
	allowedWASI := map[string]bool{}
	for _, name := range strings.Fields(`fd_close fd_write fd_read fd_seek fd_sync fd_fdstat_get
		fd_fdstat_set_flags fd_filestat_get fd_filestat_set_size fd_readdir fd_prestat_get
		fd_prestat_dir_name path_open path_filestat_get path_unlink_file path_remove_directory
		clock_time_get environ_get environ_sizes_get proc_exit`) {
		allowedWASI[name] = true
	}
	var wasi, env int
	for _, im := range imports {
		switch {
		case im.kind != 0:
			t.Errorf("the module imports %s.%s of kind %d, want functions only", im.module, im.name, im.kind)
		case im.module == "wasi_snapshot_preview1" && strings.HasPrefix(im.name, "sock_"):
			t.Errorf("the module imports the socket call %s", im.name)
		case im.module == "wasi_snapshot_preview1" && !allowedWASI[im.name]:
			t.Errorf("the module imports WASI's %s, not in the reviewed list", im.name)
		case im.module == "wasi_snapshot_preview1":
			wasi++
		case im.module == "env" && (strings.HasSuffix(im.name, "_CB") || im.name == "emscripten_notify_memory_growth"):
			env++
		default:
			t.Errorf("the module imports %s.%s, from outside WASI and go-pdfium's callbacks", im.module, im.name)
		}
	}
	// The reader found the section (a module that imported nothing could not even write a file).
	if wasi == 0 || env == 0 {
		t.Fatalf("read %d imports (%d WASI, %d env): the import section was not read", len(imports), wasi, env)
	}
	t.Logf("%d imports: %d WASI calls (files, clocks, environment, exit), %d go-pdfium callbacks and Emscripten's", len(imports), wasi, env)
}
