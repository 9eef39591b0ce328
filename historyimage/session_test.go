package historyimage_test

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// The agent session: 30 tool calls, each answered by one 1920x1080 PNG screenshot as a
// tool result, plus the model's text, in each of the six dialects and langchain-js (gemini with the follow-up
// content of Gemini 2.x models; the inline variant is in the unit tests).
const (
	sessionTurns = 30
	shotW, shotH = 1920, 1080
	// maxTokens and slack are the bounds on every preprocessed request: at most 40k
	// estimated tokens, and JSON at most the latest screenshot's base64 plus 100 KB.
	maxTokens = 40_000
	slack     = 100 << 10
)

var sessionDialects = []struct{ dialect, toolResultMedia string }{
	{contracts.DialectOpenAIChat, ""},
	{contracts.DialectOpenAIResponses, ""},
	{contracts.DialectAnthropic, ""},
	{contracts.DialectGemini, routing.ToolResultMediaFollowUp},
	{contracts.DialectBedrockConverse, ""},
	{contracts.DialectLangChain, ""},
	{contracts.DialectLangChainJS, ""},
}

// sessionShots are the 30 distinct screenshots, in base64.
var sessionShots = sync.OnceValue(func() []string {
	out := make([]string, sessionTurns)
	for i := range out {
		out[i] = base64.StdEncoding.EncodeToString(testfiles.Screenshot(shotW, shotH, uint64(i)))
	}
	return out
})

func sessionTurnsOf(dialect, toolResultMedia string) [][]string {
	shots := sessionShots()
	return agentsession.Turns(agentsession.Session{Dialect: dialect, ToolResultMedia: toolResultMedia,
		Task: "Book the cheapest flight from Berlin to Lisbon next Friday on the airline's site.", Turns: sessionTurns,
		Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: shots[i]} }})
}

// estimateTokens is the token estimate of BENCHMARKS.md: every image part costs what the dearer of
// OpenAI's tile formula and Anthropic's pixel formula charges for it (1,600 tokens for a 1920x1080
// screenshot: Anthropic's cap; OpenAI charges 1,105), and everything else, the JSON of the
// request with the images' base64 taken out, a token per 4 bytes (text, tool calls, placeholders
// and the JSON syntax counted as text: an overestimate).
func estimateTokens(out []byte, shots []string) (tokens, images int) {
	rest := len(out)
	for _, s := range shots {
		if n := strings.Count(string(out), s); n > 0 {
			images += n
			rest -= n * len(s)
		}
	}
	return images*imageTokens(shotW, shotH) + (rest+3)/4, images
}

// imageTokens is the dearer of OpenAI's high-detail tile price and Anthropic's w*h/750 (long edge
// scaled to 1568, capped at 1,600).
func imageTokens(w, h int) int {
	fw, fh := float64(w), float64(h)
	if l := max(fw, fh); l > 2048 {
		fw, fh = fw*2048/l, fh*2048/l
	}
	if s := min(fw, fh); s > 768 {
		fw, fh = fw*768/s, fh*768/s
	}
	tiles := (int(fw+0.5) + 511) / 512 * ((int(fh+0.5) + 511) / 512)
	openai := 85 + 170*tiles
	aw, ah := float64(w), float64(h)
	if l := max(aw, ah); l > 1568 {
		aw, ah = aw*1568/l, ah*1568/l
	}
	return max(openai, min(int(aw*ah/750), 1600))
}

// Every request of the 30-turn session, in every dialect, stays within the bounds after
// preprocessing: at most 40k estimated tokens, JSON at most the latest screenshot's base64 plus
// 100 KB, the latest screenshot still an image part, every older one cached as the bytes that were
// sent. Without preprocessing the last request would be over both.
func TestAgentSessionStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 6 x 30 contexts of up to 15 MB")
	}
	t.Parallel()
	shots := sessionShots()
	for _, v := range sessionDialects {
		t.Run(v.dialect, func(t *testing.T) {
			t.Parallel()
			turns := sessionTurnsOf(v.dialect, v.toolResultMedia)
			p, known := newMemPutter(), historyimage.NewKnown(64)
			for k := 1; k <= sessionTurns; k++ {
				in := agentsession.Join(turns[:k+1])
				out, rep, err := historyimage.PreprocessWith(t.Context(), in, p, historyimage.Options{Dialect: v.dialect, KeepTurns: 1, Known: known})
				if err != nil {
					t.Fatalf("request %d: %v", k, err)
				}
				latest := shots[k-1]
				tokens, images := estimateTokens(out, shots[:k])
				if tokens > maxTokens || len(out) > len(latest)+slack {
					t.Fatalf("request %d: %d tokens, %d bytes of JSON (bounds %d, %d)", k, tokens, len(out), maxTokens, len(latest)+slack)
				}
				if images != 1 || !strings.Contains(string(out), latest) || rep.Stats.ImagesReplaced != k-1 || len(rep.LeftAlone) != 0 {
					t.Fatalf("request %d: %d images left, stats %+v, left alone %v", k, images, rep.Stats, rep.LeftAlone)
				}
				if k == sessionTurns {
					before, _ := estimateTokens(in, shots)
					t.Logf("%s, request %d: %d -> %d estimated tokens, %d -> %d bytes of JSON (latest screenshot %d)", v.dialect, k, before, tokens, len(in), len(out), len(latest))
					if before <= maxTokens {
						t.Errorf("the session without preprocessing is %d tokens: it does not test the bound", before)
					}
				}
			}
			for i, s := range shots[:sessionTurns-1] {
				if got := p.images[md5hex(s)]; got.Data != s || got.MimeType != "image/png" {
					t.Fatalf("screenshot %d cached as %q, %d chars", i, got.MimeType, len(got.Data))
				}
			}
		})
	}
}

// BenchmarkAgentSession preprocesses the last request of the 30-turn session (29 older
// screenshots to cache, the latest kept) in each dialect, against a real JetStream KV bucket, and
// runs beside it the floor: MD5 of each of the 29 screenshots' base64 and a KV put of it, nothing
// else. It reports:
//   - ns/preprocess and ns/floor: the mean of each, measured alternately in the same loop;
//   - x-floor: their ratio (the bound: 1.2);
//   - cpu-ns/preprocess, cpu-ns/floor, cpu-x-floor: the same in CPU time of the process (the
//     in-process nats-server's work for the puts included), which a busy machine disturbs less
//     than wall time;
//   - alloc-bytes/input-byte: bytes allocated while Preprocess runs (its Puts included) per byte of
//     the context (the bound: 3), from runtime.MemStats over 5 calls in a separate pass;
//     it counts what the in-process nats-server allocates to take the puts;
//   - own-alloc-bytes/input-byte: the same less what the floor's puts cost that way: what
//     preprocessing itself allocates.
func BenchmarkAgentSession(b *testing.B) {
	js := startJetStream(b)
	cache := newCache(b, js, historyimage.CacheConfig{})
	kv, err := js.KeyValue(b.Context(), cache.Config().KVBucket)
	if err != nil {
		b.Fatal(err)
	}
	shots := sessionShots()
	older := make([][]byte, sessionTurns-1)
	for i := range older {
		older[i] = []byte(shots[i])
	}
	for _, v := range sessionDialects {
		b.Run(v.dialect, func(b *testing.B) {
			in := agentsession.Join(sessionTurnsOf(v.dialect, v.toolResultMedia))
			opts := historyimage.Options{Dialect: v.dialect, KeepTurns: 1, Known: historyimage.NewKnown(4096)}
			run := func() {
				_, rep, err := historyimage.PreprocessWith(b.Context(), in, cache, opts)
				if err != nil || rep.Stats.ImagesReplaced != sessionTurns-1 || rep.Stats.CacheFailures != 0 {
					b.Fatalf("Preprocess: %+v, %v", rep.Stats, err)
				}
			}
			run()
			if err := floor(b.Context(), kv, older); err != nil {
				b.Fatal(err)
			}
			// Alternately, each one first every other round: whatever one leaves the server to
			// do (compacting, expiring the replaced values) falls on both alike.
			var pre, flo, preCPU, floCPU time.Duration
			timed := func(f func(), wall, cpu *time.Duration) {
				t0, c0 := time.Now(), cpuTime()
				f()
				*wall += time.Since(t0)
				*cpu += cpuTime() - c0
			}
			runFloor := func() {
				if err := floor(b.Context(), kv, older); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; b.Loop(); i++ {
				if i%2 == 0 {
					timed(run, &pre, &preCPU)
					timed(runFloor, &flo, &floCPU)
				} else {
					timed(runFloor, &flo, &floCPU)
					timed(run, &pre, &preCPU)
				}
			}
			n := float64(b.N)
			b.ReportMetric(float64(pre.Nanoseconds())/n, "ns/preprocess")
			b.ReportMetric(float64(flo.Nanoseconds())/n, "ns/floor")
			b.ReportMetric(float64(pre)/float64(flo), "x-floor")
			if floCPU > 0 {
				b.ReportMetric(float64(preCPU.Nanoseconds())/n, "cpu-ns/preprocess")
				b.ReportMetric(float64(floCPU.Nanoseconds())/n, "cpu-ns/floor")
				b.ReportMetric(float64(preCPU)/float64(floCPU), "cpu-x-floor")
			}
			b.ReportMetric(float64(len(in))/1e6, "context-MB")

			// Allocations: the nats-server runs in this process, and what it allocates to take the
			// puts counts too; the floor's allocations (its puts are of the same size) are that part.
			allocs := func(f func()) float64 {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				for range 5 {
					f()
				}
				runtime.ReadMemStats(&after)
				return float64(after.TotalAlloc-before.TotalAlloc) / 5 / float64(len(in))
			}
			pa := allocs(run)
			fa := allocs(func() {
				if err := floor(b.Context(), kv, older); err != nil {
					b.Fatal(err)
				}
			})
			b.ReportMetric(pa, "alloc-bytes/input-byte")
			b.ReportMetric(pa-fa, "own-alloc-bytes/input-byte")
		})
	}
}

// floor is what any preprocessing must do for the session: hash each older screenshot's base64
// and store it in the KV bucket.
func floor(ctx context.Context, kv jetstream.KeyValue, older [][]byte) error {
	for _, data := range older {
		sum := md5.Sum(data)
		if _, err := kv.Put(ctx, "history_image_"+hex.EncodeToString(sum[:]), data); err != nil {
			return fmt.Errorf("floor: %w", err)
		}
	}
	return nil
}
