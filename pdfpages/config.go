package pdfpages

import (
	"cmp"
	"errors"
	"fmt"
	"time"
)

// Config configures a Renderer. The names in the comments are the worker's environment variables.
type Config struct {
	// CacheDir holds wazero's compilation cache (the worker uses DATA_DIR/wasm-cache): the compiled
	// module is read from it instead of compiled again (seconds) after a restart. Empty: compiled
	// code is kept in memory only.
	CacheDir string
	// Instances is the most documents rendered at once, each in its own module instance
	// (the worker uses CONCURRENCY). Default 2.
	Instances int
	// Timeout bounds one document's rendering, from its first page to its last (RENDER_TIMEOUT,
	// default 15s): the pages rendered by then are answered, the rest named as left out.
	Timeout time.Duration
	// MaxPages is the most pages rendered for one request (PDF_MAX_PAGES, default 20); a
	// provider's own image limit per request can lower it.
	MaxPages int
	// MemoryLimit bounds one module instance's memory, in bytes (default 1 GiB, at most 4 GiB,
	// WebAssembly's own limit): a PDF that makes pdfium allocate more fails, alone.
	MemoryLimit int64
}

// Defaults of Config.
const (
	DefaultInstances   = 2
	DefaultTimeout     = 15 * time.Second
	DefaultMaxPages    = 20
	DefaultMemoryLimit = 1 << 30
	// MaxMaxPages bounds PDF_MAX_PAGES.
	MaxMaxPages = 1000
)

// SetDefaults fills unset fields.
func (c *Config) SetDefaults() {
	c.Instances = cmp.Or(c.Instances, DefaultInstances)
	c.Timeout = cmp.Or(c.Timeout, DefaultTimeout)
	c.MaxPages = cmp.Or(c.MaxPages, DefaultMaxPages)
	c.MemoryLimit = cmp.Or(c.MemoryLimit, DefaultMemoryLimit)
}

// Validate reports every invalid field at once, by its environment variable name.
func (c Config) Validate() error {
	var errs []error
	if c.Instances < 1 || c.Instances > 256 {
		errs = append(errs, fmt.Errorf("render instances (CONCURRENCY): must be 1..256, got %d", c.Instances))
	}
	if c.Timeout <= 0 || c.Timeout > 10*time.Minute {
		errs = append(errs, fmt.Errorf("RENDER_TIMEOUT: must be positive and at most 10m, got %s", c.Timeout))
	}
	if c.MaxPages < 1 || c.MaxPages > MaxMaxPages {
		errs = append(errs, fmt.Errorf("PDF_MAX_PAGES: must be 1..%d, got %d", MaxMaxPages, c.MaxPages))
	}
	if c.MemoryLimit < 64<<20 || c.MemoryLimit > 4<<30 {
		errs = append(errs, fmt.Errorf("render memory limit: must be 64 MiB..4 GiB, got %d", c.MemoryLimit))
	}
	return errors.Join(errs...)
}
