package procstat_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/bench/internal/procstat"
)

// Metric reads a series' value with or without labels, and not a series whose name only starts
// with the one asked for.
func TestMetric(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, "# HELP x\ngo_memstats_alloc_bytes_total_other 1\ngo_memstats_alloc_bytes_total 12345\n"+
			`worker_memory_reserved_bytes{otel_scope_name="m"} 2.5e+06`+"\n")
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	for name, want := range map[string]float64{"go_memstats_alloc_bytes_total": 12345, "worker_memory_reserved_bytes": 2.5e6} {
		if got, err := procstat.Metric(addr, name); err != nil || got != want {
			t.Errorf("%s = %v, %v; want %v", name, got, err, want)
		}
	}
	if _, err := procstat.Metric(addr, "absent"); err == nil {
		t.Error("an absent metric read without error")
	}
}
