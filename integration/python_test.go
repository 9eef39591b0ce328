package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// requirePythonEnv makes a missing python3 fail the Python tests instead of skipping them; the
// Makefile sets it.
const requirePythonEnv = "ARTIFACT_WORKER_REQUIRE_PYTHON"

// TestPython runs the unittest suite of clients/python against a real worker process on its own
// nats-server and the shared MinIO, with the built-in capability registry (gpt-4o sees images,
// deepseek-chat reads text only): the client on both transports, the README's Python quick start
// and contracts/README.md's plain nats-py snippet as written; WORKER_HTTP lets a test read the
// worker's metrics. nats-py is the installed one, or
// clients/python/third_party's copy when `import nats` fails; the suite prints which.
func TestPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv(requirePythonEnv) != "" {
			t.Fatal("python3 is not on PATH")
		}
		t.Skip("python3 is not on PATH")
	}
	t.Parallel()
	dir, err := filepath.Abs(filepath.Join("..", "clients", "python"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	w := e.startWorker(t, "py", "LLM_SERVICES_FILE=", "TENANTS=pyacme") // test_client.py calls as tenant pyacme too
	start := time.Now()
	cmd := exec.Command(python, "-m", "unittest", "discover", "-s", "tests", "-v")
	cmd.Dir = dir
	// A server without the worker's streams stands in for one cut off from its cluster.
	cutOff := startNATS(t)
	cmd.Env = append(os.Environ(), "NATS_URL="+e.nats.URL(), "NATS_URL_CUT_OFF="+cutOff.URL(), "WORKER_HTTP="+w.http, "PYTHONDONTWRITEBYTECODE=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	t.Logf("python3 -m unittest took %s", time.Since(start).Round(time.Millisecond))
	for _, re := range []*regexp.Regexp{regexp.MustCompile(`(?m)^nats-py used by the tests: .*$`), regexp.MustCompile(`(?m)^Ran \d+ tests? .*$`), regexp.MustCompile(`(?m)^(OK|FAILED).*$`)} {
		if m := re.Find(out.Bytes()); m != nil {
			t.Log(string(m))
		}
	}
	if bytes.Contains(out.Bytes(), []byte("skipped 'NATS_URL")) {
		t.Errorf("tests skipped for want of a worker:\n%s", out.String())
	}
	if err != nil {
		t.Fatalf("python3 -m unittest: %v\n%s\nworker log:\n%s", err, out.String(), readFile(w.logs))
	}
}
