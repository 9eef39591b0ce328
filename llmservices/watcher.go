package llmservices

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"
)

// DefaultInterval is the polling interval of a Watcher created with a non-positive interval.
const DefaultInterval = 5 * time.Second

// fullCheckEvery makes every n-th poll read and hash the file even when its modification time
// and size are unchanged, which catches a same-size rewrite within the file system's time
// resolution.
const fullCheckEvery = 10

// ErrRunning is returned by Run when the Watcher is already running.
var ErrRunning = errors.New("llmservices: watcher already running")

// Watcher keeps a Registry in step with a file. Current is safe for concurrent use with Run and
// with itself; Run runs at most once at a time.
type Watcher struct {
	// OnReload, when set before Run, is called from Run after each reload of a changed file: with nil
	// when the new registry is current, with the error when it was refused (once per distinct error in
	// a row, as it is logged).
	OnReload func(err error)

	path     string
	logger   *slog.Logger
	interval time.Duration

	current atomic.Pointer[Registry]
	running atomic.Bool

	// Owned by Run (and NewWatcher before it).
	stamp   stamp
	polls   int
	lastErr string
}

// stamp identifies a version of the file.
type stamp struct {
	modTime time.Time
	size    int64
	hash    [sha256.Size]byte
}

// NewWatcher loads the registry file at path. It fails when the file cannot be read or is
// invalid (the caller decides whether to fall back on Default). A nil logger discards logs; a
// non-positive interval means DefaultInterval. Call Run to follow changes.
func NewWatcher(path string, logger *slog.Logger, interval time.Duration) (*Watcher, error) {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if interval <= 0 {
		interval = DefaultInterval
	}
	w := &Watcher{path: path, logger: logger, interval: interval}
	st, data, err := w.read()
	if err != nil {
		return nil, err
	}
	r, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	w.stamp = st
	w.current.Store(r)
	w.warn(r)
	return w, nil
}

// Current returns the last registry loaded successfully; it is never nil.
func (w *Watcher) Current() *Registry { return w.current.Load() }

// Run polls the file every interval until ctx is done, then returns nil. A changed file (by
// modification time and size, then content hash) is reloaded; a reload that fails to read or
// validate is logged once per distinct error and the last good registry stays current.
func (w *Watcher) Run(ctx context.Context) error {
	if !w.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer w.running.Store(false)
	t := time.NewTicker(w.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			w.poll()
		}
	}
}

// poll checks the file once and reloads it when its content changed.
func (w *Watcher) poll() {
	w.polls++
	fi, err := os.Stat(w.path)
	if err != nil {
		w.fail(err)
		return
	}
	if fi.ModTime().Equal(w.stamp.modTime) && fi.Size() == w.stamp.size && w.polls%fullCheckEvery != 0 {
		return
	}
	st, data, err := w.read()
	if err != nil {
		w.fail(err)
		return
	}
	w.lastErr = ""
	if st.hash == w.stamp.hash {
		w.stamp = st // touched, not changed (or still the bad version already reported)
		return
	}
	w.stamp = st
	r, err := Parse(data, w.path)
	if err != nil {
		w.fail(err)
		return
	}
	w.current.Store(r)
	w.logger.Info("llm service registry reloaded", "path", w.path, "services", len(r.entries))
	w.warn(r)
	if w.OnReload != nil {
		w.OnReload(nil)
	}
}

// warn logs a loaded registry's warnings (fields the worker does not use), one line each.
func (w *Watcher) warn(r *Registry) {
	for _, msg := range r.Warnings() {
		w.logger.Warn(msg, "path", w.path)
	}
}

// fail logs a failed reload, once per distinct error in a row.
func (w *Watcher) fail(err error) {
	if msg := err.Error(); msg != w.lastErr {
		w.lastErr = msg
		w.logger.Error("llm service registry reload failed; keeping the last good registry",
			"path", w.path, "error", err)
		if w.OnReload != nil {
			w.OnReload(err)
		}
	}
}

func (w *Watcher) read() (stamp, []byte, error) {
	f, err := os.Open(w.path)
	if err != nil {
		return stamp{}, nil, fmt.Errorf("llmservices: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return stamp{}, nil, fmt.Errorf("llmservices: %w", err)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return stamp{}, nil, fmt.Errorf("llmservices: %w", err)
	}
	return stamp{modTime: fi.ModTime(), size: fi.Size(), hash: sha256.Sum256(data)}, data, nil
}
