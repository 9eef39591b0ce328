package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
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
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

const helperEnv = "ARTIFACT_WORKER_NATS_HELPER"

var (
	minio     *miniotest.Server
	workerBin string
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runNATSHelper())
	}
	dir, err := os.MkdirTemp("", "integration-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	workerBin = filepath.Join(dir, "worker")
	build := exec.Command("go", "build", "-o", workerBin, "../cmd/worker")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build worker:", err)
		os.Exit(1)
	}
	srv, stop, err := miniotest.StartMain()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	minio = srv
	code := m.Run()
	stop()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runNATSHelper is the nats-server process: an embedded server with JetStream on the port and store
// directory given in the environment, until SIGTERM; with NATS_HELPER_CLUSTER_PORT, one node of a
// cluster (name NATS_HELPER_NAME, routes NATS_HELPER_ROUTES, comma separated); with
// NATS_HELPER_HOST, listening on that address instead of loopback.
func runNATSHelper() int {
	port, _ := strconv.Atoi(os.Getenv("NATS_HELPER_PORT"))
	o := natstest.Options{Port: port, StoreDir: os.Getenv("NATS_HELPER_STORE"), Host: os.Getenv("NATS_HELPER_HOST")}
	if cp, _ := strconv.Atoi(os.Getenv("NATS_HELPER_CLUSTER_PORT")); cp != 0 {
		hp, _ := strconv.Atoi(os.Getenv("NATS_HELPER_HTTP_PORT"))
		o.Cluster = natstest.Cluster{Name: os.Getenv("NATS_HELPER_NAME"), ClusterName: "it", Port: cp,
			Routes: strings.Split(os.Getenv("NATS_HELPER_ROUTES"), ","), HTTPPort: hp, Advertise: os.Getenv("NATS_HELPER_ADVERTISE")}
		o.Cluster.PingInterval, _ = time.ParseDuration(os.Getenv("NATS_HELPER_PING_INTERVAL"))
		o.Cluster.PingMax, _ = strconv.Atoi(os.Getenv("NATS_HELPER_PING_MAX"))
	}
	s, err := natstest.NewServer(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nats helper:", err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, os.Interrupt)
	<-sig
	s.Shutdown()
	s.WaitForShutdown()
	return 0
}

// natsProc is a nats-server in its own process; Restart keeps its port and store.
type natsProc struct {
	t       *testing.T
	port    int
	store   string
	cmd     *exec.Cmd
	cluster natstest.Cluster // set for a node of a cluster
	// host, when set, is the address the server listens on instead of loopback, and netns the
	// network namespace it runs in (through ip netns exec): see netnsCluster.
	host, netns string
}

func startNATS(t *testing.T) *natsProc {
	n := &natsProc{t: t, port: freePort(t), store: t.TempDir()}
	n.start()
	t.Cleanup(n.stop)
	return n
}

func (n *natsProc) URL() string { return "nats://" + n.addr(n.port) }

// addr is host:port on the server's address.
func (n *natsProc) addr(port int) string {
	host := n.host
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

func (n *natsProc) start() {
	n.t.Helper()
	if err := n.startErr(); err != nil {
		n.t.Fatal(err)
	}
}

// startErr starts the server and waits until it accepts connections; unlike start it is safe to
// call from a goroutine other than the test's (it never calls t.Fatal).
func (n *natsProc) startErr() error {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if n.netns != "" {
		cmd = exec.Command("ip", "netns", "exec", n.netns, os.Args[0], "-test.run=^$") // ip execs the helper: same process
	}
	cmd.Env = append(os.Environ(), helperEnv+"=1", fmt.Sprintf("NATS_HELPER_PORT=%d", n.port), "NATS_HELPER_STORE="+n.store, "NATS_HELPER_HOST="+n.host)
	if c := n.cluster; c.Port != 0 {
		cmd.Env = append(cmd.Env, "NATS_HELPER_NAME="+c.Name, fmt.Sprintf("NATS_HELPER_CLUSTER_PORT=%d", c.Port),
			"NATS_HELPER_ROUTES="+strings.Join(c.Routes, ","), fmt.Sprintf("NATS_HELPER_HTTP_PORT=%d", c.HTTPPort), "NATS_HELPER_ADVERTISE="+c.Advertise,
			"NATS_HELPER_PING_INTERVAL="+c.PingInterval.String(), fmt.Sprintf("NATS_HELPER_PING_MAX=%d", c.PingMax))
	}
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	n.cmd = cmd
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", n.addr(n.port), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("nats-server helper not accepting connections after 20s: %w", err)
		}
	}
}

// kill ends the server with SIGKILL: no goodbye to its peers or clients.
func (n *natsProc) kill() {
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Kill()
	_ = n.cmd.Wait()
	n.cmd = nil
}

func (n *natsProc) stop() {
	if n.cmd == nil {
		return
	}
	_ = n.cmd.Process.Signal(syscall.SIGTERM)
	_ = n.cmd.Wait()
	n.cmd = nil
}

// workerProc is one worker replica: the real binary, its own HTTP port and log file.
type workerProc struct {
	t    *testing.T
	name string
	cmd  *exec.Cmd
	http string
	logs string
	done chan struct{}
	err  error
}

type env struct {
	nats    *natsProc
	cluster []*natsProc // set instead of nats for a cluster
	url     string      // set instead of nats for a server run by the test itself
	bucket  string
	dir     string
	extra   []string
}

// natsURL is the worker's NATS_URL: the server, or every node of the cluster.
func (e *env) natsURL() string {
	if e.url != "" {
		return e.url
	}
	if len(e.cluster) == 0 {
		return e.nats.URL()
	}
	urls := make([]string, len(e.cluster))
	for i, n := range e.cluster {
		urls[i] = n.URL()
	}
	return strings.Join(urls, ",")
}

func newEnv(t *testing.T, extra ...string) *env {
	e := &env{nats: startNATS(t), bucket: "it-" + strings.ToLower(randomHex(5)), dir: t.TempDir(), extra: extra}
	seedRegistry(t, e)
	return e
}

func seedRegistry(t *testing.T, e *env) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, "llmservices.json"), []byte(`{"services":[{"id":"text-model","capabilities":{"input":["text"],"output":["text"]}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (e *env) startWorker(t *testing.T, name string, extra ...string) *workerProc {
	t.Helper()
	w := e.spawnWorker(t, name, extra...)
	if err := w.waitReady(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	return w
}

// spawnWorker starts a worker process without waiting for it to be ready.
func (e *env) spawnWorker(t *testing.T, name string, extra ...string) *workerProc {
	t.Helper()
	w := &workerProc{t: t, name: name, http: fmt.Sprintf("127.0.0.1:%d", freePort(t)), logs: filepath.Join(e.dir, name+".log"), done: make(chan struct{})}
	logFile, err := os.Create(w.logs)
	if err != nil {
		t.Fatal(err)
	}
	// Every worker of every run on the machine shares one compilation cache of the PDF renderer
	// (wazero's, keyed by its version and the module): only the first PDF ever drawn here waits
	// for the compile (seconds), not the first of each worker.
	if shared := filepath.Join(os.TempDir(), "artifact-worker-wasm-cache-bin"); os.MkdirAll(shared, 0o755) == nil && os.MkdirAll(filepath.Join(e.dir, name), 0o755) == nil {
		_ = os.Symlink(shared, filepath.Join(e.dir, name, "wasm-cache"))
	}
	cmd := exec.Command(workerBin, "run")
	cmd.Env = append(os.Environ(),
		"NATS_URL="+e.natsURL(),
		"S3_ENDPOINT="+minio.Endpoint, "S3_ACCESS_KEY="+minio.AccessKey, "S3_SECRET_KEY="+minio.SecretKey, "S3_BUCKET="+e.bucket,
		"DATA_DIR="+filepath.Join(e.dir, name), "HTTP_ADDR="+w.http,
		"LLM_SERVICES_FILE="+filepath.Join(e.dir, "llmservices.json"),
		"LOG_FORMAT=json",
	)
	cmd.Env = append(append(cmd.Env, e.extra...), extra...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.cmd = cmd
	go func() {
		w.err = cmd.Wait()
		logFile.Close()
		close(w.done)
	}()
	t.Cleanup(func() { w.kill() })
	return w
}

// waitReady waits until the worker's /readyz answers 200; an exit or the timeout is an error.
func (w *workerProc) waitReady(timeout time.Duration) error {
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		select {
		case <-w.done:
			return fmt.Errorf("%s exited during start-up: %v\n%s", w.name, w.err, readFile(w.logs))
		default:
		}
		if resp, err := http.Get("http://" + w.http + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready within %s\n%s", w.name, timeout, readFile(w.logs))
		}
	}
}

func (w *workerProc) signal(sig syscall.Signal) { _ = w.cmd.Process.Signal(sig) }

func (w *workerProc) kill() {
	w.signal(syscall.SIGKILL)
	<-w.done
}

// wait returns the process's exit code once it exited.
func (w *workerProc) wait(timeout time.Duration) (int, error) {
	select {
	case <-w.done:
		return w.cmd.ProcessState.ExitCode(), nil
	case <-time.After(timeout):
		return -1, fmt.Errorf("%s did not exit within %s", w.name, timeout)
	}
}

// handled counts the requests this replica logged with each outcome.
func (w *workerProc) handled() map[string]int {
	out := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(readFile(w.logs)))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line struct {
			Msg     string `json:"msg"`
			Outcome string `json:"outcome"`
		}
		if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "request" {
			out[line.Outcome]++
		}
	}
	return out
}

// redelivered returns the request ids this replica logged an outcome for on a second or later
// delivery: requests another replica had taken first.
func (w *workerProc) redelivered() []string {
	var out []string
	for _, line := range strings.Split(readFile(w.logs), "\n") {
		var l struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
			Delivery  int    `json:"delivery"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" && l.Delivery > 1 {
			out = append(out, l.RequestID)
		}
	}
	return out
}

// retried returns the request ids this replica logged a failed delivery for (outcome retry).
func (w *workerProc) retried() map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(readFile(w.logs), "\n") {
		var l struct {
			Msg       string `json:"msg"`
			Outcome   string `json:"outcome"`
			RequestID string `json:"request_id"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" && l.Outcome == "retry" {
			out[l.RequestID] = true
		}
	}
	return out
}

// load publishes requests and counts the replies per request id.
type load struct {
	t       *testing.T
	nc      *nats.Conn
	js      jetstream.JetStream
	prefix  string
	mu      sync.Mutex
	replies map[string][]contracts.Reply
	sent    []string
	msgs    map[string]*nats.Msg // what was sent, by request id, to ask again
	sentAt  map[string]time.Time // when each request was stored
	firstAt map[string]time.Time // when its first reply arrived
	start   time.Time
}

func newLoad(t *testing.T, url string) *load {
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	l := &load{t: t, nc: nc, js: js, prefix: "replies." + randomHex(4), replies: map[string][]contracts.Reply{},
		sentAt: map[string]time.Time{}, firstAt: map[string]time.Time{}, start: time.Now()}
	if _, err := nc.Subscribe(l.prefix+".>", func(m *nats.Msg) {
		var rep contracts.Reply
		if err := json.Unmarshal(m.Data, &rep); err != nil {
			t.Errorf("undecodable reply: %q", m.Data)
			return
		}
		l.mu.Lock()
		if len(l.replies[rep.RequestID]) == 0 {
			l.firstAt[rep.RequestID] = time.Now()
		}
		l.replies[rep.RequestID] = append(l.replies[rep.RequestID], rep)
		l.mu.Unlock()
	}); err != nil {
		t.Fatal(err)
	}
	return l
}

// send publishes one request to JetStream with its request_id as Nats-Msg-Id.
func (l *load) send(subject, id string, body any) {
	l.t.Helper()
	data, _ := json.Marshal(body)
	msg := &nats.Msg{Subject: subject, Data: data, Header: nats.Header{}}
	msg.Header.Set(contracts.HeaderReplyTo, l.prefix+"."+id)
	msg.Header.Set(contracts.HeaderMsgID, id)
	l.publish(id, msg)
	l.mu.Lock()
	l.sentAt[id] = time.Now()
	l.sent = append(l.sent, id)
	if l.msgs == nil {
		l.msgs = map[string]*nats.Msg{}
	}
	l.msgs[id] = msg
	l.mu.Unlock()
}

// askAgain publishes request id again with the same body and request_id, as a caller does whose
// reply was lost in transit: under a new Nats-Msg-Id, since JetStream drops a repeated one.
func (l *load) askAgain(id string) {
	l.mu.Lock()
	orig := l.msgs[id]
	l.mu.Unlock()
	msg := &nats.Msg{Subject: orig.Subject, Data: orig.Data, Header: nats.Header{}}
	for k, v := range orig.Header {
		msg.Header[k] = v
	}
	msg.Header.Set(contracts.HeaderMsgID, id+".again")
	l.publish(id, msg)
}

func (l *load) publish(id string, msg *nats.Msg) {
	l.t.Helper()
	// Each attempt has its own deadline: a publish sent into a connection that just broke, or to a
	// stream between two leaders, is never acknowledged. Nats-Msg-Id makes a retry safe.
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err := l.js.PublishMsg(ctx, msg)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			// Errorf, not Fatalf: publish runs in the load's goroutines too.
			l.t.Errorf("publish %s: %v", id, err)
			return
		}
		time.Sleep(100 * time.Millisecond) // the server may be restarting
	}
}

func (l *load) answered() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, id := range l.sent {
		if len(l.replies[id]) > 0 {
			n++
		}
	}
	return n
}

// figures reports sent, answered, lost and duplicated, and fails on a lost request.
type figures struct {
	Sent, Answered, Lost, Duplicated int
	Elapsed                          time.Duration
}

func (l *load) waitAll(timeout time.Duration) figures {
	l.t.Helper()
	deadline := time.Now().Add(timeout)
	for l.answered() < len(l.sent) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f := figures{Sent: len(l.sent), Elapsed: time.Since(l.start).Round(time.Millisecond)}
	for _, id := range l.sent {
		switch n := len(l.replies[id]); {
		case n == 0:
			f.Lost++
		default:
			f.Answered++
			f.Duplicated += n - 1
		}
	}
	return f
}

func (f figures) String() string {
	return fmt.Sprintf("sent=%d answered=%d lost=%d duplicated=%d time=%s", f.Sent, f.Answered, f.Lost, f.Duplicated, f.Elapsed)
}

func (l *load) reply(id string) []contracts.Reply {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]contracts.Reply(nil), l.replies[id]...)
}

func putObject(t *testing.T, e *env, key, contentType string, data []byte) {
	t.Helper()
	// The worker binary is the one tool that writes to the store with the worker's own settings.
	f := filepath.Join(t.TempDir(), filepath.Base(key))
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	id := strings.TrimPrefix(key, "artifacts/")
	cmd := exec.Command(workerBin, "put", f, "--id", id, "--mime", contentType)
	cmd.Env = append(os.Environ(), "S3_ENDPOINT="+minio.Endpoint, "S3_ACCESS_KEY="+minio.AccessKey, "S3_SECRET_KEY="+minio.SecretKey, "S3_BUCKET="+e.bucket)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("artifact:"+id)) {
		t.Fatalf("worker put: %v: %s", err, out)
	}
}

// freePort returns a loopback port that was free a moment ago and that no other call of this
// process returned: tests running side by side (t.Parallel) never get the same port.
func freePort(t *testing.T) int {
	portsMu.Lock()
	defer portsMu.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !portsGiven[port] {
			portsGiven[port] = true
			return port
		}
	}
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// executions counts, across workers, how often each request_id ran: the "request" log lines whose
// outcome is ok or error_reply (a request answered from its recorded reply logs replayed, one that
// failed logs retry or dead_letter). It returns the most runs of one request_id and the request_ids
// that ran more than once.
func executions(workers ...*workerProc) (most int, repeated []string) {
	runs := map[string]int{}
	for _, w := range workers {
		for _, line := range strings.Split(readFile(w.logs), "\n") {
			var l struct {
				Msg       string `json:"msg"`
				Outcome   string `json:"outcome"`
				RequestID string `json:"request_id"`
			}
			if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" && (l.Outcome == "ok" || l.Outcome == "error_reply") {
				runs[l.RequestID]++
			}
		}
	}
	for id, n := range runs {
		most = max(most, n)
		if n > 1 {
			repeated = append(repeated, id)
		}
	}
	slices.Sort(repeated)
	return most, repeated
}

// requireOneExecution fails t when a request_id ran more than once through what (repeated, from
// executions), with the workers' log lines of those request_ids: a request asked again while its
// first delivery still runs waits for it (the running marker), one that already ran is answered
// from its record.
func requireOneExecution(t *testing.T, what string, repeated []string, workers ...*workerProc) {
	t.Helper()
	if len(repeated) > 0 {
		t.Errorf("requests executed more than once through %s: %v\n%s", what, repeated, trailOf(repeated, workers...))
	}
}

// trailOf returns the workers' log lines that mention any of ids.
func trailOf(ids []string, workers ...*workerProc) string {
	var b strings.Builder
	for _, w := range workers {
		for _, line := range strings.Split(readFile(w.logs), "\n") {
			for _, id := range ids {
				if strings.Contains(line, `"`+id+`"`) {
					b.WriteString(w.name + ": " + line + "\n")
					break
				}
			}
		}
	}
	return b.String()
}
