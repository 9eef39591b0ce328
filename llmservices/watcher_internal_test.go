package llmservices

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// These tests call poll directly, so each check happens exactly when the test says.

func newTestWatcher(t *testing.T, content string) (*Watcher, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := NewWatcher(path, nil, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}

func TestPollIgnoresTouch(t *testing.T) {
	w, path := newTestWatcher(t, `{"services": [{"id": "a", "capabilities": {"input": ["vision"]}}]}`)
	before := w.Current()
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
	w.poll()
	if w.Current() != before {
		t.Error("a touched but unchanged file was reloaded")
	}
	if !w.stamp.modTime.Equal(later) {
		t.Error("the new modification time was not recorded")
	}
}

func TestPollCatchesSameSizeSameTimeRewrite(t *testing.T) {
	w, path := newTestWatcher(t, `{"services": [{"id": "a", "capabilities": {"input": ["vision"]}}]}`)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// Same length, same modification time: only the content hash tells.
	if err := os.WriteFile(path, []byte(`{"services": [{"id": "b", "capabilities": {"input": ["vision"]}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < fullCheckEvery; i++ {
		w.poll()
		if w.Current().Has("b") {
			t.Fatalf("reloaded at poll %d, before the full check", i)
		}
	}
	w.poll()
	if !w.Current().Has("b") {
		t.Errorf("poll %d (a full check) did not see the new content", fullCheckEvery)
	}
}

func TestPollBadVersionIsParsedOnce(t *testing.T) {
	w, path := newTestWatcher(t, `{"services": []}`)
	good := w.Current()
	if err := os.WriteFile(path, []byte(`{"services": [{"id": "a", "capabilities": {"input": ["x"]}}], "more": 1}`), 0o600); err != nil {
		t.Fatal(err)
	}
	w.poll()
	if w.lastErr == "" || w.Current() != good {
		t.Fatalf("bad version: lastErr %q, registry replaced %v", w.lastErr, w.Current() != good)
	}
	bad := w.stamp
	w.poll()
	if w.stamp != bad || w.Current() != good {
		t.Error("the unchanged bad version changed the watcher's state")
	}
}
