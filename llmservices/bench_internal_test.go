package llmservices

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user and system CPU time so far: what a benchmark costs in CPU,
// whatever else shares the machine (wall time on a loaded machine overstates it).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadBuiltin decodes and builds the built-in registry from the embedded files, as Default does
// once at start-up.
func loadBuiltin(tb testing.TB) *Registry {
	curated, _, err := decodeFile(defaultJSON, "default.json")
	if err != nil {
		tb.Fatal(err)
	}
	cat, _, err := decodeFile(catalogueJSON, "catalogue.json")
	if err != nil {
		tb.Fatal(err)
	}
	r, err := build([]layer{{f: curated, name: "default.json", source: SourceCurated}, {f: cat, name: "catalogue.json", source: SourceCatalogue}})
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// BenchmarkLoadBuiltin: loading the built-in registry (curated entries and the catalogue) at
// start-up. Target (issue 17): at most 50 ms and 20 MB of heap. live-MB is the heap the registry
// keeps (measured after a GC); B/op what one load allocates in all; cpu-ms/op the CPU time one
// load takes (the process's, garbage collection included), which a loaded machine does not
// inflate as it does ns/op.
func BenchmarkLoadBuiltin(b *testing.B) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	keep := loadBuiltin(b)
	runtime.GC()
	runtime.ReadMemStats(&after)
	live := float64(after.HeapAlloc-before.HeapAlloc) / (1 << 20)
	runtime.KeepAlive(keep)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := cpuTime()
	for b.Loop() {
		loadBuiltin(b)
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(live, "live-MB")
	b.ReportMetric(float64(len(keep.entries)), "entries")
}

// benchNames are names as runtimes write them: exact, prefixed, Bedrock and Vertex forms, a
// dated snapshot, and two that resolve to nothing.
var benchNames = []string{
	"gpt-4o", "openai/gpt-4o", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-opus-4-5@20251101",
	"openrouter/google/gemini-2.5-flash:free", "gpt-4o-2024-08-06", "claude-sonnet-4-5-20990101",
	"my-company-model", "acme/gpt-4o-turbo-ultra",
}

// BenchmarkResolve: what a request pays to find its model (Capabilities, Formats and Decide, as
// get_artifact calls them), per name. Target: little allocation (the capability slice handed to
// the caller; a lower-cased copy of a name that is not lower case).
func BenchmarkResolve(b *testing.B) {
	r := loadBuiltin(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range benchNames {
			_ = r.Capabilities(n)
			_ = r.Formats(n, "openai")
			_ = r.Decide(n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(benchNames)), "ns/name")
}
