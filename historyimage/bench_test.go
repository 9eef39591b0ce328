package historyimage_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/historyimage"
)

// twentyTurns builds the big context: 20 turns (10 human, 10 ai), each human turn with text
// and one distinct 500 KB PNG as a data URL, about 7 MB of JSON.
func twentyTurns() json.RawMessage {
	var b strings.Builder
	b.WriteString("[")
	for i := range 10 {
		if i > 0 {
			b.WriteString(",")
		}
		data := fakePNG(uint64(1000+i), 1600, 1200, 500<<10)
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":"Turn %d: what changed in this screenshot?"},`+
			`{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},`, i, data)
		fmt.Fprintf(&b, `{"role":"assistant","content":"In turn %d the dialog moved to the left and the button turned blue."}`, i)
	}
	b.WriteString("]")
	return json.RawMessage(b.String())
}

// BenchmarkPreprocess20Turns measures Preprocess on the 20-turn, ten-image context with an in-memory
// Putter. Besides time it reports, relative to the context size:
//   - alloc-bytes/context-byte: bytes allocated per call (runtime.MemStats.TotalAlloc);
//   - peak-heap-bytes/context-byte: the highest heap above the baseline (the context already live)
//     seen while Preprocess runs, sampled every 100µs in a separate, untimed pass with GOGC=10 and a
//     Putter that keeps nothing: Preprocess's own working set plus a little GC slack.
func BenchmarkPreprocess20Turns(b *testing.B) {
	in := twentyTurns()
	p := newMemPutter()
	run := func() {
		out, stats, err := historyimage.Preprocess(b.Context(), in, p, nil)
		if err != nil || stats.ImagesReplaced != 9 || len(out) == 0 {
			b.Fatalf("Preprocess: %d replaced, %v", stats.ImagesReplaced, err)
		}
	}
	run() // the cached images are part of the baseline
	runtime.GC()

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for b.Loop() {
		run()
	}
	runtime.ReadMemStats(&after)
	size := float64(len(in))
	b.SetBytes(int64(len(in)))
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/size, "alloc-bytes/context-byte")
	b.ReportMetric(size/1e6, "context-MB")

	// Peak pass: a Putter that keeps nothing, and a GC that runs at 10% heap growth, so that what is
	// seen above the baseline is Preprocess's own working set rather than GC pacing or the cache.
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	baseline := sample[0].Value.Uint64()
	peak := baseline
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			if _, _, err := historyimage.Preprocess(b.Context(), in, noopPutter{}, nil); err != nil {
				b.Errorf("Preprocess: %v", err)
			}
		}
	}()
	tick := time.NewTicker(100 * time.Microsecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-done:
			running = false
		case <-tick.C:
		}
		metrics.Read(sample)
		peak = max(peak, sample[0].Value.Uint64())
	}
	b.ReportMetric(float64(peak-baseline)/size, "peak-heap-bytes/context-byte")
}
