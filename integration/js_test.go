package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// requireJSEnv makes a missing Node.js or clients/js/node_modules fail the JavaScript tests instead of
// skipping them; the Makefile sets it after `npm ci`.
const requireJSEnv = "ARTIFACT_WORKER_REQUIRE_JS"

// jsDir returns clients/js with its npm packages installed, or skips (fails under requireJSEnv).
func jsDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "clients", "js"))
	if err != nil {
		t.Fatal(err)
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@nats-io", "jetstream")); err != nil {
		missing = "clients/js/node_modules is missing (make js-deps runs npm ci): " + err.Error()
	}
	if missing != "" {
		if os.Getenv(requireJSEnv) != "" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	return dir
}

// TestJavaScript runs the Node.js tests of clients/js (node --test) against a real worker process on
// its own nats-server and the shared MinIO, with the built-in capability registry (gpt-4o sees
// images, deepseek-chat reads text only). WORKER_BIN lets the MCP tests start `worker mcp`.
func TestJavaScript(t *testing.T) {
	dir := jsDir(t)
	e := newEnv(t)
	w := e.startWorker(t, "js", "LLM_SERVICES_FILE=", "TENANTS=jsacme") // client.test.js calls as tenant jsacme too
	start := time.Now()
	cmd := exec.Command("node", "--test", "--test-concurrency=1", "test/")
	cmd.Dir = dir
	// A server without the worker's streams stands in for one cut off from its cluster.
	cutOff := startNATS(t)
	cmd.Env = append(os.Environ(), "NATS_URL="+e.nats.URL(), "NATS_URL_CUT_OFF="+cutOff.URL(), "WORKER_BIN="+workerBin, "WORKER_HTTP="+w.http)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	t.Logf("node --test took %s", time.Since(start).Round(time.Millisecond))
	summary := out.String()
	if i := strings.LastIndex(summary, "\n# tests "); i >= 0 {
		t.Log(summary[i+1:])
	}
	if err != nil {
		t.Fatalf("node --test: %v\n%s\nworker log:\n%s", err, out.String(), readFile(w.logs))
	}
}
