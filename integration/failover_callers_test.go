package integration

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// failoverReport is what a failover caller script (testdata/js-failover-caller.mjs,
// testdata/py-failover-caller.py) reports when it stops.
type failoverReport struct {
	Calls      int      `json:"calls"`
	Failed     []string `json:"failed"`
	Reconnects int      `json:"reconnects"`
	NATS       string   `json:"nats"` // Python only: which nats-py, installed or clients/python/third_party's
	// Timings holds each call that succeeded: when it started and ended, in milliseconds since
	// the epoch.
	Timings [][2]float64 `json:"timings"`
}

// callThroughFailoverJS is callThroughFailover with the JavaScript client: 8 callers in one Node.js
// process (testdata/js-failover-caller.mjs) on a connection to server (the others listed for its
// reconnect), each calling get_artifact in a loop with a 30 s timeout. It returns a function that
// stops them and reports what they saw; nil (logged) when Node.js or clients/js/node_modules is
// missing, a failure under ARTIFACT_WORKER_REQUIRE_JS.
func callThroughFailoverJS(t *testing.T, e *env, server *natsProc) func() failoverReport {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "clients", "js"))
	if _, err := exec.LookPath("node"); err != nil {
		return callerMissing(t, requireJSEnv, "JavaScript", "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@nats-io", "jetstream")); err != nil {
		return callerMissing(t, requireJSEnv, "JavaScript", "clients/js/node_modules is missing (make js-deps)")
	}
	cmd := exec.Command("node", filepath.Join("testdata", "js-failover-caller.mjs"))
	cmd.Env = append(os.Environ(), "NATS_SERVERS="+serverFirst(e, server), "PREFIX=js-"+e.bucket)
	return startFailoverCaller(t, "js-failover-caller.mjs", cmd)
}

// callThroughFailoverPython is callThroughFailover with the Python client: 8 callers in one
// python3 process (testdata/py-failover-caller.py; half on each transport, JetStream and plain
// request/reply) on a connection to server (the others listed for its reconnect), each calling
// get_artifact in a loop with a 30 s timeout. It returns a function that stops them and reports
// what they saw; nil (logged) when python3 is missing, a failure under ARTIFACT_WORKER_REQUIRE_PYTHON.
func callThroughFailoverPython(t *testing.T, e *env, server *natsProc) func() failoverReport {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		return callerMissing(t, requirePythonEnv, "Python", "python3 is not on PATH")
	}
	cmd := exec.Command(python, filepath.Join("testdata", "py-failover-caller.py"))
	cmd.Env = append(os.Environ(), "NATS_SERVERS="+serverFirst(e, server), "PREFIX=py-"+e.bucket, "PYTHONDONTWRITEBYTECODE=1")
	return startFailoverCaller(t, "py-failover-caller.py", cmd)
}

// serverFirst lists the cluster's URLs, comma-separated, server's first.
func serverFirst(e *env, server *natsProc) string {
	urls := []string{server.URL()}
	for _, n := range e.cluster {
		if n != server {
			urls = append(urls, n.URL())
		}
	}
	return strings.Join(urls, ",")
}

// startFailoverCaller starts a caller script and waits until it prints "ready" (its callers made
// their first calls). The function it returns closes the script's stdin, which stops it, and reads
// the report it prints last.
func startFailoverCaller(t *testing.T, name string, cmd *exec.Cmd) func() failoverReport {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := make(chan string, 4)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 4<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	select {
	case line := <-lines:
		if line != "ready" {
			t.Fatalf("%s: %q\n%s", name, line, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("%s made no 40 calls in 60 s\n%s", name, stderr.String())
	}
	return func() failoverReport {
		_ = stdin.Close()
		var last string
		for line := range lines {
			last = line
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr.String())
		}
		var r failoverReport
		if err := json.Unmarshal([]byte(last), &r); err != nil {
			t.Fatalf("%s's report %q: %v\n%s", name, last, err, stderr.String())
		}
		return r
	}
}

// callerMissing reports that a client's failover callers cannot run: a failure when requireEnv is
// set, else logged, and nil (no callers).
func callerMissing(t *testing.T, requireEnv, client, why string) func() failoverReport {
	t.Helper()
	if os.Getenv(requireEnv) != "" {
		t.Fatal(why)
	}
	t.Logf("no %s client callers through the failover: %s", client, why)
	return nil
}
