// Command floor runs `make bench-floor`: the worker (`worker run`, a separate process) side by side with
// the hand-built pipeline of bench/floor/cmd/floor (another process) on one nats-server process and
// one MinIO process, driven by one client in this process, in alternating short rounds, so that their
// ratios are meaningful on a shared, noisy machine. It prints p50/p90/p99 latency, throughput, reply
// sizes and the worker/floor ratios for:
//
//   - tool.get_artifact of a 100 KB and a 1 MB PNG for a vision model, 1 and 16 requests in flight,
//     with the one-copy reply (media "assembly") and the default two-copy reply (media "both");
//   - a ~20 MB PNG: the worker's peak RSS growth per request in flight and bytes allocated per
//     artifact byte (from its /metrics), next to the floor's RSS growth;
//   - context.preprocess of 20 turns with ten 500 KB images against the floor of hashing and storing
//     the same images;
//   - two worker replicas against one on CPU-bound load (fitting a 4000x3000 photo), each pinned to
//     a core of its own where the machine allows.
//
// Usage: floor -bin DIR [-rounds N] [-scale F] [-only LIST] [-soak DURATION] (see `make bench-floor`).
package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/bench/internal/procstat"
	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

const bucket = "bench"

var (
	binDir           = flag.String("bin", "bin", "directory holding the worker and floor binaries")
	natsServer       = flag.String("nats-server", ".tools/bin/nats-server", "nats-server binary")
	rounds           = flag.Int("rounds", 6, "rounds per pipeline and case (they alternate)")
	scale            = flag.Float64("scale", 1, "multiplies the requests per round")
	only             = flag.String("only", "latency,memory,preprocess,replicas", "parts to run: latency, memory, preprocess, replicas, soak")
	sizesFlag        = flag.String("sizes", "100KB,1MB", "image sizes of the latency part")
	soakEmbedded     = flag.Bool("soak-embedded", false, "soak a worker running its embedded nats-server (in its own process) instead of the shared one")
	soakPprof        = flag.String("soak-pprof", "", "PPROF_ADDR of the -soak-embedded worker (built with WORKER_TAGS=pprof)")
	soakFor          = flag.Duration("soak", 3*time.Minute, "how long the soak part sends claim-checked traffic")
	workerEnv        = flag.String("worker-env", "", "extra worker settings, comma-separated KEY=VALUE (e.g. CONCURRENCY=16); none: the worker's defaults")
	floorConcurrency = flag.Int("floor-concurrency", 16, "workers of the floor pipeline")
)

func main() {
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "bench-floor:", err)
		procs.killAll()
		os.Exit(1)
	}
	procs.killAll()
}

func run(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "bench-floor-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	natsAddr := procstat.FreeAddr()
	if _, err := procs.start("nats-server", *natsServer, nil, "-js", "-sd", filepath.Join(dir, "nats"), "-a", "127.0.0.1", "-p", port(natsAddr)); err != nil {
		return err
	}
	natsURL := "nats://" + natsAddr
	nc, err := connectWait(ctx, natsURL)
	if err != nil {
		return err
	}
	defer nc.Close()

	mio, stopMinio, err := miniotest.StartMain()
	if err != nil {
		return err
	}
	defer stopMinio()
	s3, err := minio.New(mio.Endpoint, &minio.Options{Creds: credentials.NewStaticV4(mio.AccessKey, mio.SecretKey, "")})
	if err != nil {
		return err
	}
	if err := s3.MakeBucket(ctx, bucket, minio.MakeBucketOptions{}); err != nil {
		return err
	}

	env := []string{
		"NATS_URL=" + natsURL, "S3_ENDPOINT=" + mio.Endpoint, "S3_ACCESS_KEY=" + mio.AccessKey, "S3_SECRET_KEY=" + mio.SecretKey,
		"S3_BUCKET=" + bucket, "DATA_DIR=" + filepath.Join(dir, "worker"), "LOG_FORMAT=json",
	}
	if *workerEnv != "" {
		env = append(env, strings.Split(*workerEnv, ",")...)
	}
	// The worker runs its defaults unless -worker-env says otherwise; the floor runs -floor-concurrency
	// workers.
	concurrency := 16
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "CONCURRENCY="); ok {
			concurrency, _ = strconv.Atoi(v)
		}
	}
	w1, err := startWorker(ctx, env)
	if err != nil {
		return err
	}
	startFloor := func() (*proc, error) {
		p, err := procs.start("floor", filepath.Join(*binDir, "floor"), nil, "-nats", natsURL, "-s3-endpoint", mio.Endpoint,
			"-s3-access-key", mio.AccessKey, "-s3-secret-key", mio.SecretKey, "-s3-bucket", bucket, "-concurrency", strconv.Itoa(*floorConcurrency))
		if err != nil {
			return nil, err
		}
		return p, p.waitLine(ctx, "ready", 60*time.Second)
	}
	floorProc, err := startFloor()
	if err != nil {
		return err
	}
	c, err := client.New(ctx, nc)
	if err != nil {
		return err
	}
	b := &bench{c: c, s3: s3, worker: w1, floor: floorProc, env: env, startFloor: startFloor}
	fmt.Printf("bench-floor: worker (worker run, CONCURRENCY=%d, settings %q) vs floor (bench/floor/cmd/floor, concurrency %d); one nats-server, one MinIO; %d alternating rounds per case; %s\n",
		concurrency, *workerEnv, *floorConcurrency, *rounds, time.Now().UTC().Format(time.RFC3339))
	parts := strings.Split(*only, ",")
	if slices.Contains(parts, "latency") {
		if err := b.latency(ctx); err != nil {
			return err
		}
	}
	if slices.Contains(parts, "memory") {
		if err := b.memory(ctx, 16); err != nil {
			return err
		}
	}
	if slices.Contains(parts, "preprocess") {
		if err := b.preprocess(ctx); err != nil {
			return err
		}
	}
	if slices.Contains(parts, "soak") {
		if err := b.soak(ctx); err != nil {
			return err
		}
	}
	if slices.Contains(parts, "replicas") {
		if err := b.replicas(ctx, env); err != nil {
			return err
		}
	}
	return nil
}

type bench struct {
	c          *client.Client
	s3         *minio.Client
	worker     *worker
	floor      *proc
	env        []string
	startFloor func() (*proc, error)
}

// worker is a `worker run` process and its HTTP address.
type worker struct {
	*proc
	http string
}

func startWorker(ctx context.Context, env []string) (*worker, error) {
	return startWorkerWith(ctx, env, filepath.Join(*binDir, "worker"))
}

// startWorkerWith starts `bin args... run` (bin is the worker, or a program that runs the worker
// given as its last argument) and waits until it is ready.
func startWorkerWith(ctx context.Context, env []string, bin string, args ...string) (*worker, error) {
	addr := procstat.FreeAddr()
	p, err := procs.start("worker", bin, append(slices.Clone(env), "HTTP_ADDR="+addr), append(args, "run")...)
	if err != nil {
		return nil, err
	}
	w := &worker{proc: p, http: addr}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return w, w.settle(ctx)
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, fmt.Errorf("worker not ready after 60s:\n%s", p.tail())
}

// settle waits until the worker is idle, so that work it does in the background after it is ready
// is not measured as part of the first case (until b805f7e, `worker run` compiled the PDF renderer
// there: seconds of CPU with the fresh DATA_DIR of every run). Idle: under 0.1 s of CPU in one
// second; at most 3 minutes.
func (w *worker) settle(ctx context.Context) error {
	last := cpuSeconds([]*worker{w})
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
		now := cpuSeconds([]*worker{w})
		if now-last < 0.1 {
			return nil
		}
		last = now
	}
	return nil
}

// ---------- latency and throughput ----------

type sample struct {
	lat   []time.Duration
	bytes int
	reqs  int
	busy  time.Duration // summed round durations
}

func (s *sample) add(o sample) {
	s.lat = append(s.lat, o.lat...)
	s.reqs += o.reqs
	s.busy += o.busy
	if o.bytes > 0 {
		s.bytes = o.bytes
	}
}

func (s sample) pct(p float64) time.Duration {
	if len(s.lat) == 0 {
		return 0
	}
	l := slices.Clone(s.lat)
	slices.Sort(l)
	return l[min(len(l)-1, int(math.Ceil(p*float64(len(l))))-1)]
}

func (s sample) rps() float64 { return float64(s.reqs) / s.busy.Seconds() }

// round sends n requests with inflight senders; body(i) is request i.
func (b *bench) round(ctx context.Context, subject string, n, inflight int, body func(i int) []byte) (sample, error) {
	var next atomic.Int64
	lat := make([]time.Duration, n)
	var size atomic.Int64
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	start := time.Now()
	for range inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				cctx, cancel := context.WithTimeout(ctx, 120*time.Second)
				t0 := time.Now()
				raw, err := b.c.CallRaw(cctx, subject, body(i))
				lat[i] = time.Since(t0)
				cancel()
				if err == nil && !bytes.Contains(raw[:min(len(raw), 200)], []byte(`"ok":true`)) {
					err = fmt.Errorf("%s: not ok: %.300s", subject, raw)
				}
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, err)
					mu.Unlock()
					continue
				}
				size.Store(int64(len(raw)))
			}
		}()
	}
	wg.Wait()
	return sample{lat: lat, bytes: int(size.Load()), reqs: n, busy: time.Since(start)}, firstErr
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

var seq atomic.Int64

func reqID(prefix string) string {
	return fmt.Sprintf("%s-%d-%d", prefix, os.Getpid(), seq.Add(1))
}

func getArtifactBody(id, media string) func(int) []byte {
	return func(int) []byte {
		body, _ := json.Marshal(contracts.GetArtifactRequest{
			RequestID: reqID("ga"), Ref: "artifact:" + id, Capabilities: []string{contracts.CapVision}, Media: media,
		})
		return body
	}
}

func (b *bench) put(ctx context.Context, id string, data []byte) error {
	return b.putAs(ctx, id, data, "image/png", id+".png")
}

func (b *bench) putAs(ctx context.Context, id string, data []byte, contentType, filename string) error {
	_, err := b.s3.PutObject(ctx, bucket, "artifacts/"+id, bytes.NewReader(data), int64(len(data)), minio.PutObjectOptions{
		ContentType: contentType, UserMetadata: map[string]string{"filename": filename},
	})
	return err
}

// compare alternates rounds of the worker and the floor and returns both samples.
func (b *bench) compare(ctx context.Context, n, inflight int, worker, floor func(int) []byte, workerSubject, floorSubject string) (sample, sample, error) {
	// Warm-up, not counted.
	if _, err := b.round(ctx, workerSubject, max(inflight, 4), inflight, worker); err != nil {
		return sample{}, sample{}, err
	}
	if _, err := b.round(ctx, floorSubject, max(inflight, 4), inflight, floor); err != nil {
		return sample{}, sample{}, err
	}
	var ws, fs sample
	for r := range *rounds {
		order := []bool{true, false}
		if r%2 == 1 {
			order = []bool{false, true} // neither always goes first
		}
		for _, isWorker := range order {
			subject, body, into := floorSubject, floor, &fs
			if isWorker {
				subject, body, into = workerSubject, worker, &ws
			}
			s, err := b.round(ctx, subject, n, inflight, body)
			if err != nil {
				return ws, fs, err
			}
			into.add(s)
		}
	}
	return ws, fs, nil
}

func ms(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 1, 64) }

func kb(n int) string { return strconv.Itoa((n+512)/1024) + " KB" }

func (b *bench) latency(ctx context.Context) error {
	sizes := []struct {
		name string
		data []byte
		n1   int
		n16  int
	}{
		{"100KB", testfiles.NoisyPNG(160, 160), 40, 160},
		{"1MB", testfiles.NoisyPNG(512, 512), 16, 64},
	}
	fmt.Println()
	fmt.Println("## tool.get_artifact, PNG for a vision model (worker vs floor)")
	fmt.Println()
	fmt.Println("| image | reply | in flight | worker p50 / p90 / p99 ms | floor p50 / p90 / p99 ms | worker req/s | floor req/s | worker reply | floor reply | p50 ratio | req/s ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, size := range sizes {
		if !slices.Contains(strings.Split(*sizesFlag, ","), size.name) {
			continue
		}
		id := "img-" + size.name
		if err := b.put(ctx, id, size.data); err != nil {
			return err
		}
		for _, media := range []string{contracts.MediaAssembly, contracts.MediaBoth} {
			for _, inflight := range []int{1, 16} {
				n := size.n1
				if inflight > 1 {
					n = size.n16
				}
				n = max(1, int(float64(n)*(*scale)))
				ws, fs, err := b.compare(ctx, n, inflight, getArtifactBody(id, media), getArtifactBody(id, ""), contracts.SubjectGetArtifact, "floor.get_artifact")
				if err != nil {
					return err
				}
				fmt.Printf("| %s (%s) | %s | %d | %s / %s / %s | %s / %s / %s | %.0f | %.0f | %s | %s | **%.2f** | **%.2f** |\n",
					size.name, kb(len(size.data)), media, inflight,
					ms(ws.pct(.5)), ms(ws.pct(.9)), ms(ws.pct(.99)), ms(fs.pct(.5)), ms(fs.pct(.9)), ms(fs.pct(.99)),
					ws.rps(), fs.rps(), kb(ws.bytes), kb(fs.bytes),
					float64(ws.pct(.5))/float64(fs.pct(.5)), ws.rps()/fs.rps())
			}
		}
	}
	return nil
}

// ---------- memory ----------

// resetPeak resets a process's peak RSS (VmHWM) to its current RSS.
func resetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

func (b *bench) memory(ctx context.Context, inflight int) error {
	img := testfiles.NoisyPNG(2200, 2200) // ~19 MB: under MAX_ARTIFACT_BYTES (20 MiB), so it is sent
	id := "img-20MB"
	if err := b.put(ctx, id, img); err != nil {
		return err
	}
	fmt.Println()
	fmt.Printf("## %s PNG for a vision model, %d in flight, 3 rounds of %d\n", kb(len(img)), inflight, 2*inflight)
	fmt.Println()
	fmt.Println("Held: the most requests the worker worked on at once (its memory budget charges each 8x the artifact; the others wait);")
	fmt.Println("the floor holds all of them.")
	fmt.Println()
	fmt.Println("| pipeline | reply | reply size | held | peak RSS growth / request held / artifact | peak RSS growth / request in flight / artifact | allocated / request / artifact | p50 ms |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	measure := func(name string, pid int, subject string, body func(int) []byte, alloc func() (float64, error), w *worker) error {
		// No warm-up: the growth above the RSS before the first large request is what a replica
		// needs (heap, GC slack, buffers).
		time.Sleep(2 * time.Second)
		before, _, err := procstat.RSS(pid)
		if err != nil {
			return err
		}
		if err := resetPeak(pid); err != nil {
			return fmt.Errorf("reset peak RSS: %w", err)
		}
		var a0, a1 float64
		if alloc != nil {
			if a0, err = alloc(); err != nil {
				return err
			}
		}
		// The worker's peak charge, sampled while the rounds run: how many requests it held at once.
		var peakCharge atomic.Int64
		stopSampling := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				if w != nil {
					if v, err := procstat.Metric(w.http, "worker_memory_reserved_bytes"); err == nil && int64(v) > peakCharge.Load() {
						peakCharge.Store(int64(v))
					}
				}
				select {
				case <-stopSampling:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
		var all sample
		for range 3 {
			s, err := b.round(ctx, subject, 2*inflight, inflight, body)
			if err != nil {
				close(stopSampling)
				return err
			}
			all.add(s)
		}
		close(stopSampling)
		<-sampled
		held := inflight
		if w != nil {
			held = max(1, int(math.Round(float64(peakCharge.Load())/float64(8*len(img)))))
		}
		_, peak, err := procstat.RSS(pid)
		if err != nil {
			return err
		}
		allocCol := "-"
		if alloc != nil {
			if a1, err = alloc(); err != nil {
				return err
			}
			allocCol = fmt.Sprintf("%.1fx", (a1-a0)/float64(all.reqs)/float64(len(img)))
		}
		growth := float64(peak-before) / float64(len(img))
		media := "one copy"
		if strings.Contains(string(body(0)), `"media":"both"`) {
			media = "both"
		}
		fmt.Printf("| %s | %s | %s | %d | %.2fx | %.2fx (%d MB above %d MB) | %s | %s |\n", name, media, kb(all.bytes), held,
			growth/float64(held), growth/float64(inflight), (peak-before)>>20, before>>20, allocCol, ms(all.pct(.5)))
		return nil
	}
	// Each case in a fresh process, the only one consuming its subject: what an earlier case left in
	// the heap does not hide this one's growth.
	b.worker.stop()
	for _, media := range []string{contracts.MediaAssembly, contracts.MediaBoth} {
		w, err := startWorker(ctx, b.env)
		if err != nil {
			return err
		}
		err = measure("worker", w.pid(), contracts.SubjectGetArtifact, getArtifactBody(id, media), func() (float64, error) { return procstat.Metric(w.http, "go_memstats_alloc_bytes_total") }, w)
		w.stop()
		if err != nil {
			return err
		}
	}
	var err error
	if b.worker, err = startWorker(ctx, b.env); err != nil {
		return err
	}
	b.floor.stop()
	if b.floor, err = b.startFloor(); err != nil {
		return err
	}
	return measure("floor", b.floor.pid(), "floor.get_artifact", getArtifactBody(id, ""), nil, nil)
}

// ---------- preprocess ----------

// twentyTurns is the context of historyimage.BenchmarkPreprocess20Turns: 20 turns, ten distinct
// 500 KB PNGs as data URLs (each call gets new images: the cache must not already hold them).
func twentyTurns(salt int) []byte {
	var b strings.Builder
	b.WriteString("[")
	for i := range 10 {
		if i > 0 {
			b.WriteString(",")
		}
		png := testfiles.NoisyPNG(300+salt%7, 300+i) // ~270 KB raw, distinct per turn and salt
		png = append(png, bytes.Repeat([]byte{byte(salt), byte(i)}, (500<<10-len(png))/2)...)
		fmt.Fprintf(&b, `{"role":"user","content":[{"type":"text","text":"Turn %d: what changed in this screenshot?"},`+
			`{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},`, i, b64(png))
		fmt.Fprintf(&b, `{"role":"assistant","content":"In turn %d the dialog moved to the left and the button turned blue."}`, i)
	}
	b.WriteString("]")
	return []byte(b.String())
}

func (b *bench) preprocess(ctx context.Context) error {
	const contexts = 8
	bodies := make([][]byte, contexts)
	for i := range bodies {
		bodies[i] = twentyTurns(i)
	}
	body := func(int) []byte {
		i := int(seq.Load()) % contexts
		out, _ := json.Marshal(contracts.PreprocessRequest{RequestID: reqID("pp"), Messages: bodies[i]})
		return out
	}
	n := max(1, int(6*(*scale)))
	ws, fs, err := b.compare(ctx, n, 1, body, body, contracts.SubjectPreprocess, "floor.preprocess")
	if err != nil {
		return err
	}
	fmt.Println()
	fmt.Printf("## context.preprocess, 20 turns with ten 500 KB images (%s of JSON), 1 in flight\n", kb(len(bodies[0])))
	fmt.Println()
	fmt.Println("| worker p50 / p90 ms | floor (hash + store) p50 / p90 ms | worker req/s | floor req/s | p50 ratio |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| %s / %s | %s / %s | %.1f | %.1f | **%.2f** |\n", ms(ws.pct(.5)), ms(ws.pct(.9)), ms(fs.pct(.5)), ms(fs.pct(.9)), ws.rps(), fs.rps(), float64(ws.pct(.5))/float64(fs.pct(.5)))
	return nil
}

// ---------- replicas ----------

// replicas compares one worker replica with two on CPU-bound load: tool.get_artifact of a 4000x3000
// camera photo (5.5 MB JPEG) for a vision model, which the worker fits to the model's image limits
// (decode, downscale, encode: about 0.3 s of CPU each). The main worker is stopped; the replicas are
// the only consumers. Where the machine has two cores and taskset, each replica gets a core of its
// own (the first two CPUs this process may use, GOMAXPROCS=1): a second replica then adds a core,
// as a second pod on another node does, instead of sharing the first one's. nats-server, MinIO and
// the client are not pinned; they take what the replicas leave. Rounds alternate between one and
// two replicas (the second is started and stopped each time).
func (b *bench) replicas(ctx context.Context, env []string) error {
	id := "photo-4000x3000"
	if err := b.putAs(ctx, id, testfiles.Photo(4000, 3000, 0), "image/jpeg", id+".jpg"); err != nil {
		return err
	}
	body := getArtifactBody(id, contracts.MediaAssembly)
	b.worker.stop()
	taskset, _ := exec.LookPath("taskset")
	cpus := allowedCPUs()
	pinned := taskset != "" && len(cpus) >= 2
	start := func(replica int) (*worker, error) {
		if !pinned {
			return startWorker(ctx, env)
		}
		return startWorkerPinned(ctx, taskset, cpus[replica], append(slices.Clone(env), "GOMAXPROCS=1"))
	}
	r1, err := start(0)
	if err != nil {
		return err
	}
	defer r1.stop()
	n, inflight := max(1, int(24*(*scale))), 16
	if _, err := b.round(ctx, contracts.SubjectGetArtifact, 4, 4, body); err != nil { // warm-up
		return err
	}
	var one, two sample
	var oneCPU, twoCPU float64 // cores used by the replicas during their rounds
	for i := range *rounds {
		for _, both := range []bool{i%2 == 1, i%2 == 0} {
			ws := []*worker{r1}
			if both {
				r2, err := start(1)
				if err != nil {
					return err
				}
				ws = append(ws, r2)
			}
			before := cpuSeconds(ws)
			s, err := b.round(ctx, contracts.SubjectGetArtifact, n, inflight, body)
			used := (cpuSeconds(ws) - before) / s.busy.Seconds()
			if both {
				ws[1].stop()
			}
			if err != nil {
				return err
			}
			if both {
				two.add(s)
				twoCPU += used / float64(*rounds)
			} else {
				one.add(s)
				oneCPU += used / float64(*rounds)
			}
		}
	}
	how := "not pinned (taskset or a second core missing)"
	if pinned {
		how = "each pinned to a core of its own (taskset, GOMAXPROCS=1)"
	}
	fmt.Println()
	fmt.Printf("## Replicas: tool.get_artifact of a 4000x3000 JPEG fitted for a vision model (one copy), %d in flight, %d alternating rounds of %d; replicas %s\n", inflight, *rounds, n, how)
	fmt.Println()
	fmt.Println("| replicas | req/s | p50 ms | cores used by the replicas | ratio |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| 1 | %.2f | %s | %.2f | 1 |\n| 2 | %.2f | %s | %.2f | **%.2f** |\n", one.rps(), ms(one.pct(.5)), oneCPU, two.rps(), ms(two.pct(.5)), twoCPU, two.rps()/one.rps())
	return nil
}

// startWorkerPinned starts a worker bound to one CPU with taskset.
func startWorkerPinned(ctx context.Context, taskset string, cpu int, env []string) (*worker, error) {
	return startWorkerWith(ctx, env, taskset, "-c", strconv.Itoa(cpu), filepath.Join(*binDir, "worker"))
}

// allowedCPUs lists the CPUs this process may run on (Cpus_allowed_list of /proc/self/status, e.g.
// "0-1" or "2,4-5"); nil when it cannot be read.
func allowedCPUs() []int {
	raw, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for line := range strings.Lines(string(raw)) {
		list, ok := strings.CutPrefix(line, "Cpus_allowed_list:")
		if !ok {
			continue
		}
		var cpus []int
		for part := range strings.SplitSeq(strings.TrimSpace(list), ",") {
			lo, hi, isRange := strings.Cut(part, "-")
			a, err1 := strconv.Atoi(lo)
			b, err2 := a, error(nil)
			if isRange {
				b, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil {
				return nil
			}
			for c := a; c <= b; c++ {
				cpus = append(cpus, c)
			}
		}
		return cpus
	}
	return nil
}

// cpuSeconds is the CPU time (user + system) the workers' processes have used so far.
func cpuSeconds(ws []*worker) float64 {
	var ticks int64
	for _, w := range ws {
		raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", w.pid()))
		if err != nil {
			continue
		}
		// Fields after the command name (which may hold spaces) in parentheses: utime is the 14th
		// field of the line, stime the 15th.
		f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
		if len(f) > 12 {
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			ticks += u + s
		}
	}
	return float64(ticks) / 100 // USER_HZ
}

// ---------- soak ----------

// soak sends claim-checked requests and replies (bodies over the max payload both ways) for -soak,
// then idles, and prints the worker's heap and RSS over time.
func (b *bench) soak(ctx context.Context) error {
	big := testfiles.NoisyPNG(700, 700) // ~1.4 MB: the reply is claim-checked
	if err := b.put(ctx, "img-soak", big); err != nil {
		return err
	}
	// A 1.3 MB request (a padded get_artifact) is claim-checked too.
	pad := strings.Repeat("x", 1300<<10)
	body := func(int) []byte {
		out, _ := json.Marshal(map[string]any{"request_id": reqID("soak"), "ref": "artifact:img-soak", "capabilities": []string{"vision"}, "media": "assembly", "padding": pad})
		return out
	}
	server := "the shared nats-server"
	if *soakEmbedded {
		// A worker with its embedded nats-server: the heap below is the worker's and the server's.
		server = "its embedded nats-server"
		addr := procstat.FreeAddr()
		var env []string
		for _, kv := range b.env {
			if !strings.HasPrefix(kv, "NATS_URL=") && !strings.HasPrefix(kv, "DATA_DIR=") {
				env = append(env, kv)
			}
		}
		dir, err := os.MkdirTemp("", "bench-floor-embedded-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		env = append(env, "EMBEDDED_NATS_ADDR="+addr, "DATA_DIR="+dir)
		if *soakPprof != "" {
			env = append(env, "PPROF_ADDR="+*soakPprof)
		}
		w, err := startWorker(ctx, env)
		if err != nil {
			return err
		}
		defer w.stop()
		nc, err := connectWait(ctx, "nats://"+addr)
		if err != nil {
			return err
		}
		defer nc.Close()
		c, err := client.New(ctx, nc)
		if err != nil {
			return err
		}
		b = &bench{c: c, s3: b.s3, worker: w, env: b.env}
	}
	fmt.Println()
	fmt.Printf("## Soak: claim-checked requests (%s) and replies, 8 in flight for %s, then 30 s idle; worker on %s\n", kb(len(body(0))), *soakFor, server)
	fmt.Println()
	fmt.Println("| time | requests | worker heap in use | worker RSS |")
	fmt.Println("|---|---|---|---|")
	report := func(t time.Duration, n int) {
		heap, _ := procstat.Metric(b.worker.http, "go_memstats_heap_inuse_bytes")
		cur, _, _ := procstat.RSS(b.worker.pid())
		fmt.Printf("| %s | %d | %d MB | %d MB |\n", t.Round(time.Second), n, int64(heap)>>20, cur>>20)
	}
	start := time.Now()
	total := 0
	report(0, 0)
	for time.Since(start) < *soakFor {
		if _, err := b.round(ctx, contracts.SubjectGetArtifact, 80, 8, body); err != nil {
			return err
		}
		total += 80
		report(time.Since(start), total)
	}
	for range 3 {
		time.Sleep(10 * time.Second)
		report(time.Since(start), total)
	}
	return nil
}

// ---------- processes ----------

type proc struct {
	name string
	cmd  *exec.Cmd
	out  *lines
	done chan struct{}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) stop() {
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

func (p *proc) tail() string { return p.out.String() }

// waitLine waits until the process printed a line containing s.
func (p *proc) waitLine(ctx context.Context, s string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Contains(p.out.String(), s) {
			return nil
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited:\n%s", p.name, p.tail())
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s: no %q after %s:\n%s", p.name, s, timeout, p.tail())
}

type procList struct {
	mu    sync.Mutex
	procs []*proc
}

var procs procList

// start runs bin in a process group of its own; killAll stops them all.
func (l *procList) start(name, bin string, env []string, args ...string) (*proc, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%s: %w (run `make bench-floor`, which builds it)", name, err)
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	out := &lines{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	l.mu.Lock()
	l.procs = append(l.procs, p)
	l.mu.Unlock()
	return p, nil
}

func (l *procList) killAll() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.procs) - 1; i >= 0; i-- {
		l.procs[i].stop()
	}
	l.procs = nil
}

// lines keeps the last 64 KB a process wrote.
type lines struct {
	mu  sync.Mutex
	buf []byte
}

func (b *lines) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if len(b.buf) > 64<<10 {
		b.buf = b.buf[len(b.buf)-64<<10:]
	}
	return len(p), nil
}

func (b *lines) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

func connectWait(ctx context.Context, url string) (*nats.Conn, error) {
	var err error
	for range 100 {
		var nc *nats.Conn
		if nc, err = nats.Connect(url, nats.Name("bench-floor-client")); err == nil {
			return nc, nil
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil, errors.Join(errors.New("nats-server not reachable"), err)
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
