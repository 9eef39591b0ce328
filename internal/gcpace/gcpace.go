// Package gcpace makes the garbage collector keep pace while requests hold large buffers.
//
// Go collects when the heap has grown by GOGC percent (default 100) over what was live after the
// last collection. A worker fitting a 20 MB image holds the raw bytes and the decoded image (about
// 2x the artifact) and turns over several times that; with a few such requests in flight the heap
// doubles over a live set that is already large, and the process's peak memory becomes about twice
// what the requests need. Memory sizing (docs/operations.md) wants it proportional to the work in
// flight, so while at least one request holds a large buffer, the collector runs at an eighth of
// the configured GOGC (12 for the default 100, at least 5); when the last one is released, GOGC is
// restored. Large buffers
// are byte slices and pixel arrays that hold no pointers, which a collection does not scan, so the
// extra collections are cheap.
//
// GOGC=off disables this package; GOMEMLIMIT is left alone (it still applies on top).
package gcpace

import (
	"os"
	"runtime/debug"
	"strconv"
	"sync"
)

// Threshold is the smallest buffer that counts as large: 4 MiB, above the images of everyday traffic
// (a 1 MB image, a screenshot) and below the artifacts that dominate a replica's memory.
const Threshold = 4 << 20

var (
	mu sync.Mutex
	// held is the number of large buffers in flight.
	held int
	// configured is the GC percent the process runs at outside large requests (GOGC as the runtime
	// read it); negative when the collector is off.
	configured = gogc(os.Getenv("GOGC"))
)

// Hold declares that the caller keeps n bytes alive until it calls release (once; later calls do
// nothing). Buffers under Threshold are not counted.
func Hold(n int64) (release func()) {
	if n < Threshold || configured < 0 {
		return func() {}
	}
	mu.Lock()
	held++
	if held == 1 {
		debug.SetGCPercent(Tight(configured))
	}
	mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			mu.Lock()
			held--
			if held == 0 {
				debug.SetGCPercent(configured)
			}
			mu.Unlock()
		})
	}
}

// heldNow reports the number of large buffers in flight (for tests).
func heldNow() int {
	mu.Lock()
	defer mu.Unlock()
	return held
}

// Tight is the GC percent while large buffers are in flight: an eighth of percent, at least 5 (or
// percent itself when that is lower).
func Tight(percent int) int {
	return min(percent, max(percent/8, 5))
}

// gogc parses GOGC as the runtime does: "off" is -1, a 32-bit integer is itself, anything else 100.
func gogc(s string) int {
	if s == "off" {
		return -1
	}
	if n, err := strconv.ParseInt(s, 10, 32); err == nil {
		return int(n)
	}
	return 100
}
