// Package servicetest runs a real worker (service.Service) for tests and benchmarks: an embedded
// nats-server, a MinIO process given by the caller, a capability registry file, and a client.
package servicetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/internal/testing/schematest"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/service"
)

// Registry is the capability registry the worker under test routes with: vision-model (text,
// vision, file; images up to 20 MB and 8000 px sent as they are), text-model (text only),
// omni-model (every input), inline-media-model (every input, media inside a tool result:
// toolResultMedia "inline", as Gemini 3 models). Formats are the registry's defaults (PNG, JPEG,
// WEBP, PDF, WAV, MP3, MP4) unless the request's dialect names a provider.
const Registry = `{"services":[
 {"id":"vision-model","capabilities":{"input":["text","vision","file"],"output":["text"]},"imageLimits":{"maxLongEdge":8000,"maxBytes":20971520}},
 {"id":"text-model","capabilities":{"input":["text"],"output":["text"]}},
 {"id":"omni-model","capabilities":{"input":["text","vision","file","audio","video"],"output":["text"]}},
 {"id":"inline-media-model","toolResultMedia":"inline","capabilities":{"input":["text","vision","file","audio","video"],"output":["text"]}},
 {"id":"reader-model","extractText":true,"capabilities":{"input":["text"],"output":["text"]}}
]}`

// worker is one worker under test on a real embedded nats-server and the shared MinIO process.
// Worker is one worker under test. Fields are for the test to use.
type Worker struct {
	t      testing.TB
	Config service.Config
	NATS   *server.Server
	Conn   *nats.Conn
	Store  service.Store
	Client *client.Client
	Logs   *SyncBuffer
	Svc    *service.Service
	done   chan error
	cancel context.CancelFunc
}

// Start runs a worker on a new embedded nats-server and the given MinIO until the test ends; each
// worker gets its own bucket. mutate adjusts the configuration.
func Start(t testing.TB, minio *miniotest.Server, mutate ...func(*service.Config)) *Worker {
	t.Helper()
	miniotest.SkipWithout(t, minio) // -short: miniotest.Main started none
	return start(t, minio, natstest.Start(t), "t-"+RandomHex(6), nil, mutate)
}

// StartOn runs a worker, with a bucket of its own, on ns, a running nats-server with accounts: the
// worker connects as workerURL says (nats://user:password@host:port), the test's connection and
// client with callerOpts (another user, e.g. a runtime of the same account). One account, one
// worker pool: tests of tenants kept apart by NATS accounts start one per account.
func StartOn(t testing.TB, minio *miniotest.Server, ns *server.Server, workerURL string, callerOpts []nats.Option, mutate ...func(*service.Config)) *Worker {
	t.Helper()
	return start(t, minio, ns, "t-"+RandomHex(6), callerOpts, append([]func(*service.Config){func(c *service.Config) { c.NATSURL = workerURL }}, mutate...))
}

// StartReplica runs a second worker on the same nats-server and bucket as first, as another
// replica of the same deployment would.
func StartReplica(t testing.TB, minio *miniotest.Server, first *Worker, mutate ...func(*service.Config)) *Worker {
	t.Helper()
	return start(t, minio, first.NATS, first.Config.S3Bucket, nil, mutate)
}

func start(t testing.TB, minio *miniotest.Server, ns *server.Server, bucket string, connOpts []nats.Option, mutate []func(*service.Config)) *Worker {
	t.Helper()
	miniotest.SkipWithout(t, minio)
	dir := t.TempDir()
	registry := filepath.Join(dir, "llmservices.json")
	if err := os.WriteFile(registry, []byte(Registry), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := service.Config{
		NATSURL:         ns.ClientURL(),
		S3Endpoint:      minio.Endpoint,
		S3AccessKey:     minio.AccessKey,
		S3SecretKey:     minio.SecretKey,
		S3Bucket:        bucket,
		DataDir:         dir,
		HTTPAddr:        "127.0.0.1:0",
		LLMServicesFile: registry,
		// ACK_WAIT and HANDLER_TIMEOUT are the defaults (10s kept by heartbeats, 20s an attempt),
		// as deployed: under -race on a loaded 2-core machine fitting a 4 MB image takes 5 to 30 s,
		// and a shorter handler time made such a request time out and start over until the caller
		// gave up.
		DrainTimeout: 10 * time.Second,
	}
	for _, m := range mutate {
		m(&cfg)
	}
	w := &Worker{t: t, Config: cfg, NATS: ns, Logs: &SyncBuffer{}, done: make(chan error, 1)}
	log := slog.New(slog.NewJSONHandler(w.Logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	svc, err := service.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("service.New: %v", err)
	}
	w.Svc = svc
	go func() { w.done <- svc.Run(ctx) }()
	t.Cleanup(func() {
		w.Stop()
		if t.Failed() {
			// What the worker did (outcome and duration of every request) says why a test failed.
			logs := w.Logs.String()
			if len(logs) > logTail {
				logs = "...\n" + logs[len(logs)-logTail:]
			}
			t.Logf("worker log:\n%s", logs)
		}
	})
	WaitFor(t, 60*time.Second, "worker ready", func() bool {
		resp, err := http.Get("http://" + svc.HTTPAddr() + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	if w.Store, err = service.OpenStore(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	w.Conn = natstest.Connect(t, ns, connOpts...)
	if w.Client, err = client.New(context.Background(), w.Conn); err != nil {
		t.Fatal(err)
	}
	return w
}

// logTail is how much of the worker's log a failed test prints.
const logTail = 32 << 10

// Stop shuts the worker down as SIGTERM would and returns Run's result.
func (w *Worker) Stop() error {
	if w.cancel == nil {
		return nil
	}
	w.cancel()
	w.cancel = nil
	select {
	case err := <-w.done:
		return err
	case <-time.After(30 * time.Second):
		w.t.Errorf("worker did not stop within 30s")
		return nil
	}
}

// PutArtifact stores data as artifacts/{id} with a Content-Type and filename, as a runtime would.
func (w *Worker) PutArtifact(id, contentType, filename string, data []byte) {
	w.t.Helper()
	meta := map[string]string{}
	if filename != "" {
		meta[objectstore.MetaFilename] = filename
	}
	if _, err := w.Store.Put(context.Background(), objectstore.ArtifactKey(id), bytes.NewReader(data), int64(len(data)), contentType, meta); err != nil {
		w.t.Fatalf("put %s: %v", id, err)
	}
}

// Call sends body on subject and decodes the reply envelope.
func (w *Worker) Call(subject string, body any) contracts.Reply {
	w.t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		w.t.Fatal(err)
	}
	return w.CallRaw(subject, raw)
}

// callTimeout bounds one call: longer than a delivery may take (the reply is due inside the
// default delivery deadline of 60s, 3 x HANDLER_TIMEOUT), so that only a lost request fails a test,
// not a slow machine.
const callTimeout = 90 * time.Second

// CallRaw sends a raw body on subject and decodes the reply envelope.
func (w *Worker) CallRaw(subject string, raw []byte) contracts.Reply {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	out, err := w.Client.CallRaw(ctx, subject, raw)
	if err != nil {
		w.t.Fatalf("call %s: %v", subject, err)
	}
	var rep contracts.Reply
	if err := json.Unmarshal(out, &rep); err != nil {
		w.t.Fatalf("reply is not an envelope: %v: %.300s", err, out)
	}
	w.CheckReply(subject, out)
	return rep
}

// CheckReply fails the test (without stopping it) when raw, a reply to subject, does not match the
// published JSON Schemas (contracts/schema: the envelope, and an ok reply's result). Call and
// CallRaw check every reply they return; tests that read replies another way call it themselves.
// Benchmarks skip the check: it would be counted in their numbers.
func (w *Worker) CheckReply(subject string, raw []byte) {
	w.t.Helper()
	if _, bench := w.t.(*testing.B); bench {
		return
	}
	if err := schematest.CheckReply(subject, raw); err != nil {
		w.t.Errorf("reply to %s does not match the published schemas: %v\nreply: %.500s", subject, err, raw)
	}
}

// WaitFor polls cond every 20ms until it holds or timeout passes.
func WaitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// RandomHex returns n random bytes in hex.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// SyncBuffer is a bytes.Buffer safe for the worker's concurrent log writes.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
