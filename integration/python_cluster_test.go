package integration

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// pythonLoadSummary is the last line of clients/python/tests/load.py.
type pythonLoadSummary struct {
	Sent       int               `json:"sent"`
	OK         int               `json:"ok"`
	Errors     []json.RawMessage `json:"errors"`
	ErrorCount int               `json:"error_count"`
	Wrong      []json.RawMessage `json:"wrong"`
	Reconnects int               `json:"reconnects"`
	P50        int               `json:"p50_ms"`
	P99        int               `json:"p99_ms"`
	Max        int               `json:"max_ms"`
	Seconds    float64           `json:"seconds"`
	NATS       string            `json:"nats"`
}

// The Python client through a stream-leader kill: a 3-node cluster (R3), two workers, and the
// client sending 600 requests at 60/s (half stored by the client in JetStream, half plain requests
// the worker stores; every tenth a workspace.file_written) while the server leading WORKER_REQUESTS
// is killed once a third are answered. Every call returns its result: 0 errors reach the caller.
func TestClusterPythonClientThroughLeaderKill(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv(requirePythonEnv) != "" {
			t.Fatal("python3 is not on PATH")
		}
		t.Skip("python3 is not on PATH")
	}
	t.Parallel()
	nodes := startCluster(t, 3)
	e := &env{cluster: nodes, bucket: "it-" + randomHex(5), dir: t.TempDir(), extra: []string{"JETSTREAM_REPLICAS=3", "CONCURRENCY=8"}}
	seedRegistry(t, e)
	seed(t, e)
	a := e.startWorker(t, "py-cluster-a")
	b := e.startWorker(t, "py-cluster-b")
	byName := map[string]*natsProc{}
	for _, n := range nodes {
		byName[n.cluster.Name] = n
	}
	nc, err := nats.Connect(e.natsURL(), nats.MaxReconnects(-1), nats.ReconnectWait(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	waitFor(t, 30*time.Second, "every stream and consumer on 3 current replicas", func() bool { return replicated(js, 3) == nil })

	// The client connects to the stream leader's server first, so that the kill also drops its
	// connection: replies in flight are lost and the client must ask again.
	leader := streamLeader(t, js)
	urls := []string{byName[leader].URL()}
	for _, n := range nodes {
		if n.cluster.Name != leader {
			urls = append(urls, n.URL())
		}
	}
	const sent = 600
	dir, _ := filepath.Abs(filepath.Join("..", "clients", "python"))
	cmd := exec.Command(python, "tests/load.py", "--requests", strconv.Itoa(sent), "--rate", "60", "--prefix", "pyc-"+e.bucket, "--workspace", "py-"+e.bucket)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NATS_URL="+strings.Join(urls, ","), "PY_LOAD_DONT_RANDOMIZE=1", "PYTHONDONTWRITEBYTECODE=1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var answered atomic.Int64
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "answered "); ok {
				v, _ := strconv.Atoi(n)
				answered.Store(int64(v))
				continue
			}
			lines <- line
		}
	}()
	waitFor(t, 90*time.Second, "a third of the Python client's calls answered", func() bool { return answered.Load() >= sent/3 })
	clientsServer := leader
	leader = streamLeader(t, js)
	atKill := answered.Load()
	killedAt := time.Now()
	byName[leader].kill()

	var summary *pythonLoadSummary
	var other []string
	for line := range lines {
		if raw, ok := strings.CutPrefix(line, "SUMMARY "); ok {
			summary = new(pythonLoadSummary)
			if err := json.Unmarshal([]byte(raw), summary); err != nil {
				t.Fatalf("summary %q: %v", raw, err)
			}
			continue
		}
		other = append(other, line)
	}
	werr := cmd.Wait()
	if summary == nil {
		t.Fatalf("load.py ended without a summary (%v):\n%s\n%s", werr, strings.Join(other, "\n"), stderr.String())
	}
	t.Logf("FIGURES python client through a stream-leader kill (%s killed after %d of %d answered, the client's server %s; the rest took %s): sent=%d ok=%d errors=%d reconnects=%d p50=%dms p99=%dms max=%dms in %.1fs; %s; py-cluster-a handled %v, py-cluster-b handled %v",
		leader, atKill, sent, clientsServer, time.Since(killedAt).Round(time.Millisecond), summary.Sent, summary.OK, summary.ErrorCount, summary.Reconnects,
		summary.P50, summary.P99, summary.Max, summary.Seconds, summary.NATS, a.handled(), b.handled())
	if summary.ErrorCount != 0 || len(summary.Wrong) != 0 || summary.OK != sent || werr != nil {
		t.Fatalf("errors reached the Python client's callers (exit %v): %s\nwrong results: %s\n%s", werr,
			fmt.Sprint(rawStrings(summary.Errors)), fmt.Sprint(rawStrings(summary.Wrong)), stderr.String())
	}
	if clientsServer == leader && summary.Reconnects == 0 {
		t.Errorf("the client's server %s was killed but the client did not reconnect", leader)
	}
}

// streamLeader is the server leading WORKER_REQUESTS.
func streamLeader(t *testing.T, js jetstream.JetStream) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, "WORKER_REQUESTS")
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().Cluster.Leader
}

func rawStrings(r []json.RawMessage) []string {
	out := make([]string, len(r))
	for i, m := range r {
		out[i] = string(m)
	}
	return out
}
