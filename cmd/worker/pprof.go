//go:build pprof

package main

import (
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on http.DefaultServeMux
	"os"
)

// A worker built with -tags pprof (make bench-floor WORKER_TAGS=pprof) serves /debug/pprof on PPROF_ADDR, for
// profiling under the benchmark. Release builds do not contain it.
func init() {
	if addr := os.Getenv("PPROF_ADDR"); addr != "" {
		go func() { _ = http.ListenAndServe(addr, nil) }()
	}
}
