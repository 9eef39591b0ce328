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

// pyFailover is what testdata/py-failover-caller.py reports when it stops.
type pyFailover struct {
	Calls      int      `json:"calls"`
	Failed     []string `json:"failed"`
	Reconnects int      `json:"reconnects"`
	NATS       string   `json:"nats"` // which nats-py: installed or clients/python/third_party's
}

// callThroughFailoverPython is callThroughFailover with the Python client: 8 callers in one
// python3 process (testdata/py-failover-caller.py; half on each transport, JetStream and plain
// request/reply) on a connection to server (the others listed for its reconnect), each calling
// get_artifact in a loop with a 30 s timeout. It returns a function that stops them and reports
// what they saw; nil (logged) when python3 is missing, a failure under ARTIFACT_WORKER_REQUIRE_PYTHON.
func callThroughFailoverPython(t *testing.T, e *env, server *natsProc) func() pyFailover {
	t.Helper()
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv(requirePythonEnv) != "" {
			t.Fatal("python3 is not on PATH")
		}
		t.Logf("no Python client callers through the failover: python3 is not on PATH")
		return nil
	}
	urls := []string{server.URL()}
	for _, n := range e.cluster {
		if n != server {
			urls = append(urls, n.URL())
		}
	}
	cmd := exec.Command(python, filepath.Join("testdata", "py-failover-caller.py"))
	cmd.Env = append(os.Environ(), "NATS_SERVERS="+strings.Join(urls, ","), "PREFIX=py-"+e.bucket, "PYTHONDONTWRITEBYTECODE=1")
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
			t.Fatalf("py-failover-caller.py: %q\n%s", line, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("py-failover-caller.py made no 40 calls in 60 s\n%s", stderr.String())
	}
	return func() pyFailover {
		_ = stdin.Close()
		var last string
		for line := range lines {
			last = line
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("py-failover-caller.py: %v\n%s", err, stderr.String())
		}
		var r pyFailover
		if err := json.Unmarshal([]byte(last), &r); err != nil {
			t.Fatalf("py-failover-caller.py's report %q: %v\n%s", last, err, stderr.String())
		}
		return r
	}
}
