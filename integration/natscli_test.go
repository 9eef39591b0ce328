package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/buildinfo"
)

// natsCLI returns the project's pinned nats CLI, installing it first when missing or of another
// version (scripts/install-natscli.sh, which `make tools` runs; a no-op once installed).
func natsCLI(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(root, "scripts", "install-natscli.sh")).CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/install-natscli.sh: %v\n%s", err, out)
	}
	return filepath.Join(root, ".tools", "bin")
}

// readmeNATSCLI returns the command lines of the fenced block under README.md's "### nats CLI"
// heading, as written.
func readmeNATSCLI(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n### nats CLI")
	if !ok {
		t.Fatal(`README.md has no "### nats CLI" section`)
	}
	section, _, _ = strings.Cut(section, "\n##")
	_, block, ok := strings.Cut(section, "\n```sh\n")
	block, _, closed := strings.Cut(block, "\n```")
	if !ok || !closed {
		t.Fatal(`README.md's "### nats CLI" section has no sh block`)
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestREADMENATSCLI runs the README's "nats CLI" commands verbatim with the pinned nats CLI against a
// real worker process (built-in capability registry) that holds the example chart as artifact:chart.
// Only the server comes from the environment (NATS_URL, which the CLI reads), and HOME is empty so
// no saved CLI context of the machine applies.
func TestREADMENATSCLI(t *testing.T) {
	bin := natsCLI(t)
	lines := readmeNATSCLI(t)
	want := []string{"nats req artifact-worker.tool.get_artifact ", "nats micro ls", "nats micro info artifact-worker"}
	if len(lines) != len(want) {
		t.Fatalf("README nats CLI block has %d commands, want %d: %q", len(lines), len(want), lines)
	}
	for i, p := range want {
		if !strings.HasPrefix(lines[i], p) {
			t.Fatalf("README nats CLI command %d is %q, want it to start with %q", i+1, lines[i], p)
		}
	}

	e := newEnv(t)
	w := e.startWorker(t, "natscli", "LLM_SERVICES_FILE=")
	put := exec.Command(workerBin, "put", "examples/chart.png", "--id", "chart")
	put.Dir = ".."
	put.Env = append(os.Environ(), "S3_ENDPOINT="+minio.Endpoint, "S3_ACCESS_KEY="+minio.AccessKey, "S3_SECRET_KEY="+minio.SecretKey, "S3_BUCKET="+e.bucket)
	if out, err := put.CombinedOutput(); err != nil || strings.TrimSpace(string(out)) != "artifact:chart" {
		t.Fatalf("worker put examples/chart.png: %v: %s", err, out)
	}

	home := t.TempDir()
	run := func(line string) string {
		t.Helper()
		start := time.Now()
		cmd := exec.Command("sh", "-c", line)
		cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"NATS_URL="+e.nats.URL(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "NATS_CONTEXT=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\nstdout:\n%s\nstderr:\n%s\nworker log:\n%s", line, err, stdout.String(), stderr.String(), readFile(w.logs))
		}
		t.Logf("%s (%s)\n%s", line, time.Since(start).Round(time.Millisecond), truncate(stdout.String(), 600))
		return stdout.String()
	}

	// The reply is printed as it arrived: the JSON of contract v1, with an image part for gpt-4o.
	out := run(lines[0])
	for _, s := range []string{`"request_id":"r1"`, `"ok":true`, `"contentType":"image"`, `"url":"data:image/png;base64,iVBORw0KGgo`} {
		if !strings.Contains(out, s) {
			t.Errorf("nats req: no %s in\n%s", s, truncate(out, 2000))
		}
	}

	// The table of services: one row with the worker's name and version in their columns.
	out = run(lines[1])
	if !hasRow(out, contracts.ServiceName, buildinfo.Version) {
		t.Errorf("nats micro ls: no row %s | %s in\n%s", contracts.ServiceName, buildinfo.Version, out)
	}

	// The service, its version and contract version, and one endpoint per request subject.
	out = run(lines[2])
	wantInfo := []string{"Service: " + contracts.ServiceName + " (", "Version: " + buildinfo.Version + "\n", "contract_version: " + contracts.Version + "\n"}
	for _, s := range contracts.RequestSubjects {
		wantInfo = append(wantInfo, "Subject: "+contracts.RequestReplySubject(s)+"\n")
	}
	for _, s := range wantInfo {
		if !strings.Contains(out, s) {
			t.Errorf("nats micro info: no %q in\n%s", s, out)
		}
	}
}

// hasRow reports whether the table the CLI printed has a row whose cells include every one of cells.
func hasRow(table string, cells ...string) bool {
	for _, line := range strings.Split(table, "\n") {
		have := map[string]bool{}
		for _, c := range strings.Split(line, "│") {
			have[strings.TrimSpace(c)] = true
		}
		all := true
		for _, c := range cells {
			all = all && have[c]
		}
		if all {
			return true
		}
	}
	return false
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
