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

// jsFailover is what testdata/js-failover-caller.mjs reports when it stops.
type jsFailover struct {
	Calls      int      `json:"calls"`
	Failed     []string `json:"failed"`
	Reconnects int      `json:"reconnects"`
}

// callThroughFailoverJS is callThroughFailover with the JavaScript client: 8 callers in one Node.js
// process (testdata/js-failover-caller.mjs) on a connection to server (the others listed for its
// reconnect), each calling get_artifact in a loop with a 30 s timeout. It returns a function that
// stops them and reports what they saw; nil (logged) when Node.js or clients/js/node_modules is
// missing, a failure under ARTIFACT_WORKER_REQUIRE_JS.
func callThroughFailoverJS(t *testing.T, e *env, server *natsProc) func() jsFailover {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "clients", "js"))
	if _, err := exec.LookPath("node"); err != nil {
		return jsMissing(t, "node is not on PATH")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@nats-io", "jetstream")); err != nil {
		return jsMissing(t, "clients/js/node_modules is missing (make js-deps)")
	}
	urls := []string{server.URL()}
	for _, n := range e.cluster {
		if n != server {
			urls = append(urls, n.URL())
		}
	}
	cmd := exec.Command("node", filepath.Join("testdata", "js-failover-caller.mjs"))
	cmd.Env = append(os.Environ(), "NATS_SERVERS="+strings.Join(urls, ","), "PREFIX=js-"+e.bucket)
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
			t.Fatalf("js-failover-caller.mjs: %q\n%s", line, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("js-failover-caller.mjs made no 40 calls in 60 s\n%s", stderr.String())
	}
	return func() jsFailover {
		_ = stdin.Close()
		var last string
		for line := range lines {
			last = line
		}
		if err := cmd.Wait(); err != nil {
			t.Fatalf("js-failover-caller.mjs: %v\n%s", err, stderr.String())
		}
		var r jsFailover
		if err := json.Unmarshal([]byte(last), &r); err != nil {
			t.Fatalf("js-failover-caller.mjs's report %q: %v\n%s", last, err, stderr.String())
		}
		return r
	}
}

func jsMissing(t *testing.T, why string) func() jsFailover {
	t.Helper()
	if os.Getenv(requireJSEnv) != "" {
		t.Fatal(why)
	}
	t.Logf("no JavaScript client callers through the failover: %s", why)
	return nil
}
