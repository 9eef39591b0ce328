// Package bench measures tool.get_artifact end to end (client -> JetStream -> worker -> MinIO ->
// reply) next to the same pipeline written with no framework, in the same run on the same servers,
// so their ratio is meaningful on a shared, noisy machine. See BENCHMARKS.md.
package bench

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

var minioSrv *miniotest.Server

func TestMain(m *testing.M) { os.Exit(miniotest.Main(m, &minioSrv)) }

// BenchmarkGetArtifact reports, for each image size and number of requests in flight, the worker's
// and the baseline's median and p99 latency and throughput, and worker/baseline ratios.
func BenchmarkGetArtifact(b *testing.B) {
	sizes := []struct {
		name string
		data []byte
	}{
		{"100KB", testfiles.NoisyPNG(185, 185)},
		{"1MB", testfiles.NoisyPNG(580, 580)},
	}
	w := servicetest.Start(b, minioSrv, func(c *service.Config) { c.Concurrency = 16; c.LogLevel = "warn" })
	startBaseline(b, w)
	for _, size := range sizes {
		id := "bench-" + size.name
		w.PutArtifact(id, "image/png", id+".png", size.data)
		for _, inflight := range []int{1, 16} {
			b.Run(fmt.Sprintf("size=%s/inflight=%d", size.name, inflight), func(b *testing.B) {
				b.SetBytes(int64(len(size.data)))
				req := func(subject string) func(context.Context, int) error {
					return func(ctx context.Context, i int) error {
						body, _ := json.Marshal(contracts.GetArtifactRequest{
							RequestID: fmt.Sprintf("%s-%d-%d-%s", subject, inflight, i, servicetest.RandomHex(4)),
							Ref:       "artifact:" + id, ServiceID: "vision-model",
						})
						raw, err := w.Client.CallRaw(ctx, subject, body)
						if err != nil {
							return err
						}
						// Both pipelines write "ok" in the envelope's head; checking it keeps the client's
						// cost the same for both instead of decoding replies of different sizes.
						if !bytes.Contains(raw[:min(len(raw), 200)], []byte(`"ok":true`)) {
							return fmt.Errorf("bad reply: %.200s", raw)
						}
						return nil
					}
				}
				b.ResetTimer()
				wk := load(b, inflight, req(contracts.SubjectGetArtifact))
				bl := load(b, inflight, req(baselineSubject))
				b.StopTimer()
				b.ReportMetric(wk.p50.Seconds()*1000, "worker-p50-ms")
				b.ReportMetric(wk.p99.Seconds()*1000, "worker-p99-ms")
				b.ReportMetric(wk.rps, "worker-req/s")
				b.ReportMetric(bl.p50.Seconds()*1000, "base-p50-ms")
				b.ReportMetric(bl.p99.Seconds()*1000, "base-p99-ms")
				b.ReportMetric(bl.rps, "base-req/s")
				b.ReportMetric(wk.rps/bl.rps, "rps-ratio")
				b.ReportMetric(float64(wk.p50)/float64(bl.p50), "p50-ratio")
			})
		}
	}
}

type stats struct {
	p50, p99 time.Duration
	rps      float64
}

// load sends b.N requests with inflight workers and returns latency percentiles and throughput.
func load(b *testing.B, inflight int, do func(context.Context, int) error) stats {
	lat := make([]time.Duration, b.N)
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	var firstErr error
	start := time.Now()
	for range inflight {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				n := i
				i++
				next.Unlock()
				if n >= b.N {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				t0 := time.Now()
				err := do(ctx, n)
				lat[n] = time.Since(t0)
				cancel()
				if err != nil {
					next.Lock()
					firstErr = err
					next.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		b.Fatal(firstErr)
	}
	slices.Sort(lat)
	return stats{p50: lat[len(lat)/2], p99: lat[min(len(lat)-1, len(lat)*99/100)], rps: float64(b.N) / elapsed.Seconds()}
}

const baselineSubject = "baseline.get_artifact"

// startBaseline runs the same pipeline with no framework: one stream and durable pull consumer,
// Fetch(1) per goroutine, GET from MinIO, base64, a reply with the image part through the same claim
// check, ack. No detection, routing, middleware, tracing or metrics.
func startBaseline(b *testing.B, w *servicetest.Worker) {
	ctx, cancel := context.WithCancel(context.Background())
	nc := natstest.Connect(b, w.NATS)
	pub := natstest.Connect(b, w.NATS)
	js, _ := jetstream.New(nc)
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: "BASELINE", Subjects: []string{baselineSubject}})
	if err != nil {
		b.Fatal(err)
	}
	cons, err := stream.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "baseline", AckPolicy: jetstream.AckExplicitPolicy, AckWait: time.Minute})
	if err != nil {
		b.Fatal(err)
	}
	claims, err := claimcheck.Ensure(ctx, js, time.Hour, nc.MaxPayload())
	if err != nil {
		b.Fatal(err)
	}
	mc, err := minio.New(w.Config.S3Endpoint, &minio.Options{Creds: credentials.NewStaticV4(w.Config.S3AccessKey, w.Config.S3SecretKey, "")})
	if err != nil {
		b.Fatal(err)
	}
	bucket := w.Config.S3Bucket
	handle := func(m jetstream.Msg) {
		var req contracts.GetArtifactRequest
		_ = json.Unmarshal(m.Data(), &req)
		obj, err := mc.GetObject(ctx, bucket, "artifacts/"+req.Ref[len("artifact:"):], minio.GetObjectOptions{})
		if err != nil {
			return
		}
		data, err := io.ReadAll(obj)
		obj.Close()
		if err != nil {
			return
		}
		body, _ := json.Marshal(map[string]any{"request_id": req.RequestID, "ok": true, "result": map[string]any{
			"imageUrl": map[string]any{"type": "image_url", "image_url": map[string]string{"url": "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)}},
		}})
		out, err := claims.Prepare(ctx, m.Headers().Get(contracts.HeaderReplyTo), nil, body)
		if err != nil {
			return
		}
		_ = pub.PublishMsg(out)
		_ = m.Ack()
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				batch, err := cons.Fetch(1, jetstream.FetchMaxWait(time.Second))
				if err != nil {
					continue
				}
				for m := range batch.Messages() {
					handle(m)
				}
			}
		}()
	}
	b.Cleanup(func() { cancel(); wg.Wait() })
}
