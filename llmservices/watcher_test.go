package llmservices_test

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/llmservices"
)

const (
	regA  = `{"services": [{"id": "a", "capabilities": {"input": ["text", "vision"], "output": ["text"]}}]}`
	regAB = `{"services": [{"id": "a", "capabilities": {"input": ["text"], "output": ["text"]}},
		{"id": "b", "capabilities": {"input": ["text", "audio"], "output": ["text"]}}]}`
)

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// startWatcher runs w until the test ends and checks that Run then returns nil.
func startWatcher(t *testing.T, w *llmservices.Watcher) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v, want nil after cancel", err)
			}
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
}

func replace(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil { // atomic, as deployments write config
		t.Fatal(err)
	}
}

func TestNewWatcherErrors(t *testing.T) {
	t.Run("missing file", func(t *testing.T) {
		_, err := llmservices.NewWatcher(filepath.Join(t.TempDir(), "none.json"), nil, time.Second)
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("err = %v, want fs.ErrNotExist", err)
		}
	})
	t.Run("invalid file", func(t *testing.T) {
		_, err := llmservices.NewWatcher(writeFile(t, `{"services": [{"id": "x", "capabilities": {"input": ["smell"]}}]}`), nil, time.Second)
		if !errors.Is(err, llmservices.ErrInvalid) {
			t.Errorf("err = %v, want ErrInvalid", err)
		}
	})
}

func TestWatcherReloadsOnChange(t *testing.T) {
	path := writeFile(t, regA)
	w, err := llmservices.NewWatcher(path, nil, 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Current().Capabilities("a"); !slices.Equal(got, []string{"text", "vision"}) {
		t.Fatalf("initial a = %v", got)
	}
	startWatcher(t, w)

	replace(t, path, regAB)
	eventually(t, "the reload", func() bool { return w.Current().Has("b") })
	if got := w.Current().Capabilities("a"); !slices.Equal(got, []string{"text"}) {
		t.Errorf("a after reload = %v, want [text]", got)
	}
}

func TestWatcherKeepsLastGoodRegistry(t *testing.T) {
	path := writeFile(t, regA)
	logs := &recorder{}
	w, err := llmservices.NewWatcher(path, slog.New(logs), 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	var reloads, failures atomic.Int32
	w.OnReload = func(err error) {
		if err != nil {
			failures.Add(1)
		} else {
			reloads.Add(1)
		}
	}
	good := w.Current()
	startWatcher(t, w)

	replace(t, path, `{"services": [{"id": "a", "capabilities": {"input": ["sight"]}}]}`)
	eventually(t, "the error log", func() bool { return logs.count(slog.LevelError) > 0 })
	if w.Current() != good || !slices.Equal(w.Current().Capabilities("a"), []string{"text", "vision"}) {
		t.Error("a bad reload replaced the registry")
	}

	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the missing-file log", func() bool { return logs.count(slog.LevelError) > 1 })
	if w.Current() != good {
		t.Error("a missing file replaced the registry")
	}

	replace(t, path, regAB)
	eventually(t, "the reload", func() bool { return w.Current().Has("b") })
	if n := logs.count(slog.LevelError); n != 2 {
		t.Errorf("%d error logs, want 2 (one per distinct failure, not one per poll)", n)
	}
	if logs.count(slog.LevelInfo) != 1 {
		t.Errorf("%d info logs, want 1 reload", logs.count(slog.LevelInfo))
	}
	if reloads.Load() != 1 || failures.Load() != 2 {
		t.Errorf("OnReload saw %d reloads and %d failures, want 1 and 2 (as logged)", reloads.Load(), failures.Load())
	}
}

func TestWatcherRunTwice(t *testing.T) {
	w, err := llmservices.NewWatcher(writeFile(t, regA), nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	// Two concurrent Runs: whichever comes second returns ErrRunning at once; the other runs
	// until the context is cancelled and then returns nil.
	done := make(chan error, 2)
	for range 2 {
		go func() { done <- w.Run(ctx) }()
	}
	select {
	case err := <-done:
		if !errors.Is(err, llmservices.ErrRunning) {
			t.Errorf("first Run to return gave %v, want ErrRunning", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("neither Run returned")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v after cancel, want nil", err)
	}
}

// TestWatcherConcurrentReads is meant for -race: readers look up capabilities while the file is
// rewritten and reloaded.
func TestWatcherConcurrentReads(t *testing.T) {
	path := writeFile(t, regA)
	w, err := llmservices.NewWatcher(path, nil, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	startWatcher(t, w)

	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for ctx.Err() == nil {
				if caps := w.Current().Capabilities("a"); len(caps) == 0 || caps[0] != "text" {
					t.Errorf("capabilities %v", caps)
					return
				}
			}
		})
	}
	for i := range 20 {
		content := regA
		if i%2 == 0 {
			content = regAB
		}
		replace(t, path, content)
		want := i%2 == 0
		eventually(t, "reload", func() bool { return w.Current().Has("b") == want })
	}
	stop()
	wg.Wait()
}

// recorder is a slog.Handler that counts records by level.
type recorder struct {
	mu     sync.Mutex
	levels []slog.Level
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.levels = append(r.levels, rec.Level)
	return nil
}

func (r *recorder) count(l slog.Level) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, x := range r.levels {
		if x == l {
			n++
		}
	}
	return n
}

// TestWatcherExtendsBuiltinAndWarns: a file shared with a runtime (a baseURL beside each model)
// that extends the built-in registry loads with one warning naming the field, is reloaded when it
// changes (warning again for the new version, once), and the catalogue stays under it.
func TestWatcherExtendsBuiltinAndWarns(t *testing.T) {
	path := writeFile(t, `{"extends": "builtin", "services": [
  {"id": "acme-1", "baseURL": "http://acme", "capabilities": {"input": ["text"], "output": ["text"]}}]}`)
	logs := &recorder{}
	w, err := llmservices.NewWatcher(path, slog.New(logs), 5*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if n := logs.count(slog.LevelWarn); n != 1 {
		t.Fatalf("%d warnings at load, want 1", n)
	}
	if !w.Current().Has("acme-1") || !slices.Contains(w.Current().Capabilities("grok-4"), "vision") {
		t.Fatal("the file's entry or the built-in catalogue is missing")
	}
	startWatcher(t, w)
	replace(t, path, `{"extends": "builtin", "services": [
  {"id": "acme-1", "baseURL": "http://acme", "capabilities": {"input": ["text", "vision"], "output": ["text"]}}]}`)
	eventually(t, "the reload", func() bool { return slices.Contains(w.Current().Capabilities("acme-1"), "vision") })
	time.Sleep(50 * time.Millisecond) // several more polls of the unchanged file
	if n := logs.count(slog.LevelWarn); n != 2 {
		t.Errorf("%d warnings, want 2 (one per version of the file, not one per poll)", n)
	}
	if !w.Current().Has("gpt-5.1") {
		t.Error("the reloaded registry lost the built-in catalogue")
	}
}
