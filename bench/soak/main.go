// Command soak runs `make soak`: `worker run` on its embedded default (in-process nats-server, local
// store under a temporary DATA_DIR, as `make run`) under mixed traffic for -duration (15 minutes),
// then idle for -idle, and reports every -every what bounds a replica's resources:
//
//   - the claim-check bucket's size (worker_claim_check_bucket_size_bytes): flat, and empty once idle,
//     because readers delete what they read;
//   - goroutines (go_goroutines): flat, back to where they were once idle;
//   - resident memory (VmRSS) and its peak (VmHWM) of the worker process, which holds the embedded
//     nats-server too: the peak at most -max-rss (512 MB).
//
// The traffic, -inflight requests at once, in turn: tool.get_artifact of a ~1.4 MB PNG for a vision
// model (its reply is claim-checked), workspace.file_written of a ~1 MB PNG as content_base64 (the
// request is claim-checked), context.preprocess of a context with four ~300 KB images (claim-checked
// request), a small workspace.file_written of text, tool.get_history_image of an image that
// preprocess cached and of one never cached (image_not_found), tool.get_artifact for a service_id the
// capability registry does not know (text only; three names), and tool.get_artifact without a
// request_id (invalid_request, dead-lettered): so that every panel of the Grafana dashboard has data.
// It prints a Markdown table (for BENCHMARKS.md) and a verdict; it exits 1 when a bound is not met
// or a request failed (a kind that expects an error fails on any other answer).
//
// With -record FILE it also appends the worker's whole /metrics to FILE every -record-every (5s),
// each scrape after a line "# scrape <unix milliseconds>": the samples deployments/monitoring/render
// draws the Grafana dashboard's panels from.
//
// Usage: soak -worker bin/worker [-duration 15m] [-idle 45s] [-every 30s] [-inflight 8] [-max-rss 512MB] [-record FILE]
package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/bench/internal/procstat"
	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

var (
	workerBin = flag.String("worker", "bin/worker", "the worker binary")
	duration  = flag.Duration("duration", 15*time.Minute, "how long to send traffic")
	idle      = flag.Duration("idle", 45*time.Second, "how long to watch the worker idle afterwards")
	every     = flag.Duration("every", 30*time.Second, "reporting interval")
	inflight  = flag.Int("inflight", 8, "requests in flight")
	maxRSS    = flag.Int64("max-rss", 512, "bound on the worker's peak resident memory, MB")
	record    = flag.String("record", "", "append every scrape of /metrics to this file")
	recordInt = flag.Duration("record-every", 5*time.Second, "interval of -record")
)

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ok, err := run(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !ok {
		os.Exit(1)
	}
}

// sample is one report line.
type sample struct {
	at                 time.Duration
	requests, failures int64
	bucket, goroutines float64
	heap               float64
	rss, peak          int64
}

func run(ctx context.Context) (bool, error) {
	dir, err := os.MkdirTemp("", "soak-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(dir)
	natsAddr, httpAddr := procstat.FreeAddr(), procstat.FreeAddr()
	cmd := exec.Command(*workerBin, "run")
	// The embedded default: no NATS_URL, no S3_ENDPOINT (a local store under DATA_DIR).
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "DATA_DIR=" + filepath.Join(dir, "data"),
		"EMBEDDED_NATS_ADDR=" + natsAddr, "HTTP_ADDR=" + httpAddr, "LOG_LEVEL=warn", "LOG_FORMAT=json"}
	logFile, err := os.Create(filepath.Join(dir, "worker.log"))
	if err != nil {
		return false, err
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return false, fmt.Errorf("start %s: %w (run `make soak`, which builds it)", *workerBin, err)
	}
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	if err := waitReady(ctx, httpAddr); err != nil {
		log, _ := os.ReadFile(logFile.Name())
		return false, fmt.Errorf("%w\n%s", err, log)
	}
	nc, err := nats.Connect("nats://"+natsAddr, nats.MaxReconnects(-1))
	if err != nil {
		return false, err
	}
	defer nc.Close()
	c, err := client.New(ctx, nc)
	if err != nil {
		return false, err
	}
	pid := cmd.Process.Pid
	if *record != "" {
		stopRecording, err := recordMetrics(httpAddr, *record, *recordInt)
		if err != nil {
			return false, err
		}
		defer stopRecording()
	}
	metric := func(name string) float64 { v, _ := procstat.Metric(httpAddr, name); return v }

	// The image get_artifact reads, stored once through the worker (a claim-checked request).
	big := testfiles.NoisyPNG(700, 700) // ~1.4 MB
	var ref contracts.FileWrittenResult
	seedCtx, cancelSeed := context.WithTimeout(ctx, 60*time.Second)
	defer cancelSeed()
	if err := c.Call(seedCtx, contracts.SubjectFileWritten, map[string]any{"request_id": id("seed"), "workspace_id": "soak", "path": "big.png",
		"mime_type": "image/png", "content_base64": base64.StdEncoding.EncodeToString(big)}, &ref); err != nil {
		return false, fmt.Errorf("seed: %w", err)
	}
	upload := base64.StdEncoding.EncodeToString(testfiles.NoisyPNG(600, 500)) // ~1 MB image, ~1.4 MB of base64
	var parts []any
	for i := range 4 {
		img := base64.StdEncoding.EncodeToString(testfiles.NoisyPNG(300+i, 300)) // ~300 KB each
		parts = append(parts, map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64," + img}})
	}
	turns := []any{[]any{"human", append([]any{map[string]any{"type": "text", "text": "look"}}, parts...)}, []any{"ai", "seen"}, []any{"human", "and now?"}}
	// A history image the cache holds: context.preprocess caches the older turns' images and
	// answers with their placeholders, which tool.get_history_image asks for.
	history, err := historyID(seedCtx, c, turns)
	if err != nil {
		return false, err
	}

	// Each kind of request in turn. expect, when set, is the error code the kind is answered with
	// (not a failure): a miss of the history cache, a request dead-lettered as malformed.
	kinds := []struct {
		name    string
		subject string
		body    func(i int64) map[string]any
		expect  string
	}{
		{"get_artifact, claim-checked reply", contracts.SubjectGetArtifact, func(int64) map[string]any {
			return map[string]any{"ref": ref.ArtifactID, "capabilities": []string{"vision"}, "media": "assembly"}
		}, ""},
		{"file_written, claim-checked request", contracts.SubjectFileWritten, func(i int64) map[string]any {
			return map[string]any{"workspace_id": "soak", "path": fmt.Sprintf("up/%d.png", i%50), "mime_type": "image/png", "content_base64": upload}
		}, ""},
		{"preprocess, claim-checked request", contracts.SubjectPreprocess, func(int64) map[string]any {
			return map[string]any{"messages": turns}
		}, ""},
		{"file_written, small", contracts.SubjectFileWritten, func(i int64) map[string]any {
			return map[string]any{"workspace_id": "soak", "path": fmt.Sprintf("notes/%d.md", i%50), "mime_type": "text/markdown", "content": "# note\n"}
		}, ""},
		{"get_history_image, cached", contracts.SubjectGetHistoryImage, func(int64) map[string]any {
			return map[string]any{"image_md5": history}
		}, ""},
		{"get_history_image, not cached", contracts.SubjectGetHistoryImage, func(i int64) map[string]any {
			return map[string]any{"image_md5": fmt.Sprintf("%032x", i)}
		}, contracts.CodeImageNotFound},
		{"get_artifact for a model the registry does not know", contracts.SubjectGetArtifact, func(i int64) map[string]any {
			return map[string]any{"ref": ref.ArtifactID, "service_id": fmt.Sprintf("soak-unknown-model-%d", i%3), "media": "assembly"}
		}, ""},
		{"get_artifact without a request_id (dead-lettered)", contracts.SubjectGetArtifact, func(int64) map[string]any {
			return map[string]any{"request_id": nil, "ref": ref.ArtifactID}
		}, contracts.CodeInvalidRequest},
	}
	fmt.Printf("## Soak: `worker run` on its embedded default, %d in flight for %s, then %s idle; %s\n\n", *inflight, *duration, *idle, time.Now().UTC().Format(time.RFC3339))
	fmt.Println("Traffic in turn: " + strings.Join(func() []string {
		var s []string
		for _, k := range kinds {
			s = append(s, k.name)
		}
		return s
	}(), "; ") + ".")
	fmt.Println()
	fmt.Println("| time | requests | failed | claim-check bucket | goroutines | heap in use | RSS | peak RSS |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	var samples []sample
	var requests, failures atomic.Int64
	var lastErr atomic.Value
	start := time.Now()
	report := func() {
		cur, peak, _ := procstat.RSS(pid)
		s := sample{at: time.Since(start), requests: requests.Load(), failures: failures.Load(), bucket: metric("worker_claim_check_bucket_size_bytes"),
			goroutines: metric("go_goroutines"), heap: metric("go_memstats_heap_inuse_bytes"), rss: cur, peak: peak}
		samples = append(samples, s)
		fmt.Printf("| %s | %d | %d | %.1f MB | %.0f | %.0f MB | %d MB | %d MB |\n", s.at.Round(time.Second), s.requests, s.failures,
			s.bucket/(1<<20), s.goroutines, s.heap/(1<<20), s.rss>>20, s.peak>>20)
	}
	report()
	// Senders stop starting requests at the end; the requests in flight then finish (a caller that
	// gave up would leave its reply's claim check to the bucket's TTL, which is not what is measured).
	end := time.Now().Add(*duration)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range *inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) && ctx.Err() == nil {
				i := next.Add(1)
				k := kinds[i%int64(len(kinds))]
				if err := call(ctx, c, k.subject, k.body(i), k.expect); err != nil {
					if ctx.Err() != nil {
						return
					}
					failures.Add(1)
					lastErr.Store(k.name + ": " + err.Error())
				}
				requests.Add(1)
			}
		}()
	}
	tick := time.NewTicker(*every)
	defer tick.Stop()
	for time.Now().Before(end) && ctx.Err() == nil {
		select {
		case <-tick.C:
			report()
		case <-time.After(time.Until(end)):
		case <-ctx.Done():
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	report()
	loaded := len(samples) - 1
	for end := time.Now().Add(*idle); time.Now().Before(end); {
		time.Sleep(min(*every, time.Until(end)))
		report()
	}
	return verdict(samples, loaded, lastErr), nil
}

// verdict checks the bounds: bucket flat under load and empty once idle, goroutines back to their
// level after the first report once idle, peak RSS within -max-rss, no failed request.
func verdict(s []sample, loaded int, lastErr atomic.Value) bool {
	first, last := s[0], s[len(s)-1]
	var maxBucket, maxBucketFirstHalf float64
	for i, x := range s[1 : loaded+1] {
		maxBucket = max(maxBucket, x.bucket)
		if i < loaded/2 {
			maxBucketFirstHalf = max(maxBucketFirstHalf, x.bucket)
		}
	}
	warm := s[min(1, loaded)]
	checks := []struct {
		ok   bool
		what string
	}{
		{last.failures == 0, fmt.Sprintf("no failed request (%d of %d failed)", last.failures, last.requests)},
		{last.bucket <= 1<<20, fmt.Sprintf("claim-check bucket empty once idle (%.1f MB)", last.bucket/(1<<20))},
		{maxBucket <= 2*maxBucketFirstHalf+16<<20, fmt.Sprintf("claim-check bucket flat under load (peak %.1f MB, %.1f MB in the first half)", maxBucket/(1<<20), maxBucketFirstHalf/(1<<20))},
		{last.goroutines <= first.goroutines+10 && s[loaded].goroutines <= warm.goroutines+20,
			fmt.Sprintf("goroutines flat (%.0f at start, %.0f after the first %s of load, %.0f at its end, %.0f idle)", first.goroutines, warm.goroutines, warm.at.Round(time.Second), s[loaded].goroutines, last.goroutines)},
		{last.peak <= *maxRSS<<20, fmt.Sprintf("peak RSS %d MB within %d MB", last.peak>>20, *maxRSS)},
	}
	fmt.Println()
	ok := true
	for _, c := range checks {
		mark := "ok"
		if !c.ok {
			mark, ok = "FAILED", false
		}
		fmt.Printf("- %s: %s\n", mark, c.what)
	}
	if e, _ := lastErr.Load().(string); e != "" {
		fmt.Printf("- last failure: %s\n", e)
	}
	return ok
}

// call sends one request with a fresh request_id (unless req has one, null included) and a 60 s
// deadline; an error reply is an error, unless its code is expect (then no reply other than that
// error is).
func call(ctx context.Context, c *client.Client, subject string, req map[string]any, expect string) error {
	if _, ok := req["request_id"]; !ok {
		req["request_id"] = id("soak")
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	err := c.Call(ctx, subject, req, nil)
	if expect == "" {
		return err
	}
	var ce *contracts.Error
	if errors.As(err, &ce) && ce.Code == expect {
		return nil
	}
	return fmt.Errorf("want the error %s, got %v", expect, err)
}

// historyID sends context.preprocess with turns and returns the id of the first history image its
// reply names ("[Picture:history_{md5}]"): the image is then in the history cache.
func historyID(ctx context.Context, c *client.Client, turns []any) (string, error) {
	body, err := json.Marshal(map[string]any{"request_id": id("history"), "messages": turns})
	if err != nil {
		return "", err
	}
	raw, err := c.CallRaw(ctx, contracts.SubjectPreprocess, body)
	if err != nil {
		return "", fmt.Errorf("preprocess: %w", err)
	}
	m := historyPlaceholder.FindSubmatch(raw)
	if m == nil {
		return "", fmt.Errorf("preprocess: no history placeholder in its reply: %.300s", raw)
	}
	return string(m[1]), nil
}

var historyPlaceholder = regexp.MustCompile(`history_([0-9a-f]{8,32})`)

var seq atomic.Int64

func id(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, time.Now().UnixNano(), seq.Add(1))
}

// recordMetrics appends a scrape of http://addr/metrics to file every interval, each after a line
// "# scrape <unix ms>", until the returned function is called.
func recordMetrics(addr, file string, interval time.Duration) (func(), error) {
	f, err := os.OpenFile(file, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			at := time.Now()
			if resp, err := http.Get("http://" + addr + "/metrics"); err == nil {
				body, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil && resp.StatusCode == http.StatusOK {
					fmt.Fprintf(f, "# scrape %d\n%s", at.UnixMilli(), body)
				}
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { close(done); <-stopped; f.Close() }, nil
}

func waitReady(ctx context.Context, addr string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("worker not ready after 60 s")
}
