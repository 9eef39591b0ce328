package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/buildinfo"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
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
	// Run twice: each run has a request_id of its own, so neither is a duplicate.
	ids := map[string]bool{}
	for range 2 {
		out := run(lines[0])
		for _, s := range []string{`"ok":true`, `"contentType":"image"`, `"url":"data:image/png;base64,iVBORw0KGgo`} {
			if !strings.Contains(out, s) {
				t.Errorf("nats req: no %s in\n%s", s, truncate(out, 2000))
			}
		}
		ids[freshID.FindString(out)] = true
	}
	if len(ids) != 2 || ids[""] {
		t.Errorf("the README's nats req twice: request ids %v, want two fresh cli-... ids", ids)
	}

	// A claim-checked reply, fetched as the README says: a 3.2 MB PNG for claude-sonnet-4.
	screen := filepath.Join(t.TempDir(), "screen.png")
	if err := os.WriteFile(screen, testfiles.OpaqueNoisyPNG(1200, 900), 0o644); err != nil {
		t.Fatal(err)
	}
	put = exec.Command(workerBin, "put", screen, "--id", "screen")
	put.Env = append(os.Environ(), "S3_ENDPOINT="+minio.Endpoint, "S3_ACCESS_KEY="+minio.AccessKey, "S3_SECRET_KEY="+minio.SecretKey, "S3_BUCKET="+e.bucket)
	if out, err := put.CombinedOutput(); err != nil {
		t.Fatalf("worker put screen.png: %v: %s", err, out)
	}
	claimDir := t.TempDir()
	claimBlock := readmeBlock(t, "../README.md", "<!-- natscli:claim-check")
	run("cd " + claimDir + " && " + claimBlock)
	reply, err := os.ReadFile(filepath.Join(claimDir, "reply.json"))
	if err != nil || len(reply) < 4_000_000 || !bytes.Contains(reply, []byte(`"ok":true`)) || !bytes.Contains(reply, []byte(`"routing":"image_url"`)) {
		t.Fatalf("reply.json (%d bytes, %v) is not the whole image reply: %s", len(reply), err, truncate(string(reply), 300))
	}
	t.Logf("claim-checked reply fetched by the nats CLI: %d bytes", len(reply))
	noClaimsLeft(t, e, "the README's nats CLI lines")

	// The same from nats.js, as contracts/README.md's plain:js function does it.
	jsReadmeClaimCheck(t, e)

	// worker call: exit 0 on an ok reply, 3 on an error reply, both printed.
	for ref, want := range map[string]int{"artifact:chart": 0, "artifact:nope": 3} {
		call := exec.Command(workerBin, "call", "tool.get_artifact", "--data", `{"ref":"`+ref+`","service_id":"gpt-4o"}`)
		call.Env = append(os.Environ(), "NATS_URL="+e.nats.URL())
		out, err := call.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != want || !bytes.Contains(out, []byte(`"request_id":"call-`)) || (want == 3) != bytes.Contains(out, []byte(`"code":"artifact_not_found"`)) {
			t.Errorf("worker call %s: exit %d (%v), want %d; stdout %s", ref, code, err, want, truncate(string(out), 300))
		}
	}

	// The table of services: one row with the worker's name and version in their columns.
	out := run(lines[1])
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

// freshID is a request_id the nats CLI's {{ID}} made.
var freshID = regexp.MustCompile(`"request_id":"cli-[0-9A-Za-z]{10,}"`)

// readmeBlock returns the fenced block after the marker line in the markdown file, its lines joined.
func readmeBlock(t *testing.T, file, marker string) string {
	t.Helper()
	md, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(md), "\n"+marker)
	_, after, ok2 := strings.Cut(after, "\n```")
	_, after, ok3 := strings.Cut(after, "\n")
	block, _, ok4 := strings.Cut(after, "\n```")
	if !ok || !ok2 || !ok3 || !ok4 {
		t.Fatalf("%s has no fenced block after %q", file, marker)
	}
	return block
}

// jsReadmeClaimCheck runs contracts/README.md's plain:js function with clients/js's nats.js
// packages: a small reply inline and a large one from the claim-check bucket.
func jsReadmeClaimCheck(t *testing.T, e *env) {
	t.Helper()
	js := jsDir(t)
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(js, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}
	fn := readmeBlock(t, "../contracts/README.md", "<!-- plain:js")
	main := `import { connect } from "@nats-io/transport-node";
import { getArtifact } from "./plain.mjs";
const nc = await connect({ servers: process.env.NATS_URL });
const small = await getArtifact(nc, "artifact:chart", "gpt-4o");
const big = await getArtifact(nc, "artifact:screen", "claude-sonnet-4");
console.log(JSON.stringify({ small: small.result.routing, big: big.result.routing, url: big.result.imageUrl.image_url.url.length }));
await nc.close();
`
	for name, src := range map[string]string{"plain.mjs": fn, "main.mjs": main} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("node", "main.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NATS_URL="+e.nats.URL())
	out, err := cmd.CombinedOutput()
	var got struct {
		Small, Big string
		URL        int
	}
	if err != nil || json.Unmarshal(out, &got) != nil || got.Small != "image_url" || got.Big != "image_url" || got.URL < 4_000_000 {
		t.Fatalf("contracts/README.md's nats.js function: %v\n%s", err, out)
	}
	t.Logf("nats.js: a claim-checked reply with a data URL of %d characters", got.URL)
	noClaimsLeft(t, e, "contracts/README.md's nats.js function")
}

// noClaimsLeft fails when WORKER_CLAIMS holds an object (not deleted): a reader left a reply there.
func noClaimsLeft(t *testing.T, e *env, who string) {
	t.Helper()
	nc, err := nats.Connect(e.nats.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	store, err := js.ObjectStore(ctx, "WORKER_CLAIMS")
	if err != nil {
		t.Fatal(err)
	}
	objs, err := store.List(ctx)
	if err != nil && !errors.Is(err, jetstream.ErrNoObjectsFound) {
		t.Fatal(err)
	}
	for _, o := range objs {
		t.Errorf("%s left %s (%d bytes) in WORKER_CLAIMS", who, o.Name, o.Size)
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
