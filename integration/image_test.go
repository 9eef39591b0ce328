package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// imageVersion is stamped into the worker the image check builds; `worker version` must show it.
const imageVersion = "0.0.0-image-check"

// buildah runs buildah on a storage of its own under the test's directory (vfs: no overlay mounts
// needed), so the check never touches the machine's images.
type buildah struct {
	t          *testing.T
	bin, store string
}

func (b buildah) args(args ...string) []string {
	return append([]string{"--root", filepath.Join(b.store, "root"), "--runroot", filepath.Join(b.store, "run"), "--storage-driver", "vfs"}, args...)
}

func (b buildah) run(args ...string) string {
	b.t.Helper()
	out, err := exec.Command(b.bin, b.args(args...)...).CombinedOutput()
	if err != nil {
		b.t.Fatalf("buildah %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// imageConfig is the part of `buildah inspect` the check reads.
type imageConfig struct {
	OCIv1 struct {
		Config struct {
			User         string              `json:"User"`
			ExposedPorts map[string]struct{} `json:"ExposedPorts"`
			Env          []string            `json:"Env"`
			Entrypoint   []string            `json:"Entrypoint"`
		} `json:"config"`
	} `json:"OCIv1"`
}

// TestImage builds the image of deployments/Dockerfile.prebuilt from a static worker with buildah,
// checks the Compose file and the Kubernetes Deployment against what the image has, runs `worker
// version` in it, then `worker run` from it against the test's NATS and MinIO until a get_artifact
// is answered, and stops it with SIGTERM. `make image-check` (part of `make test`) runs it after
// installing buildah when missing; it skips only when buildah cannot be installed, saying why.
func TestImage(t *testing.T) {
	if os.Getenv("ARTIFACT_WORKER_IMAGE_CHECK") == "" {
		t.Skip("the image check runs with `make image-check` (part of `make test`), which installs buildah when missing")
	}
	if reason := os.Getenv("ARTIFACT_WORKER_BUILDAH_UNAVAILABLE"); reason != "" {
		t.Skip(reason)
	}
	bin, err := exec.LookPath("buildah")
	if err != nil {
		t.Fatalf("buildah: %v (scripts/install-buildah.sh reported no reason)", err)
	}
	dir := t.TempDir()
	b := buildah{t: t, bin: bin, store: filepath.Join(dir, "storage")}
	t.Cleanup(func() {
		// vfs layers are plain directories; buildah's own cleanup unmounts what a run mounted.
		_ = exec.Command(bin, b.args("rm", "--all")...).Run()
	})

	worker := filepath.Join(dir, "bin", "worker")
	build := exec.Command("go", "build", "-ldflags", "-s -w -X github.com/agentworks/artifact-worker/internal/buildinfo.Version="+imageVersion, "-o", worker, "../cmd/worker")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("static build: %v\n%s", err, out)
	}
	ctxDir := filepath.Join(dir, "image")
	if out, err := exec.Command("../scripts/image-context.sh", worker, ctxDir).CombinedOutput(); err != nil {
		t.Fatalf("image-context.sh: %v\n%s", err, out)
	}
	start := time.Now()
	b.run("bud", "--isolation", "chroot", "-q", "-f", "../deployments/Dockerfile.prebuilt", "-t", "artifact-worker:check", ctxDir)
	t.Logf("FIGURES image: built in %s", time.Since(start).Round(time.Millisecond))

	var cfg imageConfig
	if err := json.Unmarshal([]byte(b.run("inspect", "--type", "image", "artifact-worker:check")), &cfg); err != nil {
		t.Fatalf("buildah inspect: %v", err)
	}
	img := cfg.OCIv1.Config
	ctr := b.run("from", "artifact-worker:check")
	root := b.run("mount", ctr)
	checkImageFiles(t, root, img.Env)
	checkDeploymentsAgainstImage(t, img.User, img.ExposedPorts, img.Env, img.Entrypoint)

	// worker version, as the image's user.
	out, err := exec.Command(bin, b.args("run", "--isolation", "chroot", ctr, "--", "/worker", "version")...).CombinedOutput()
	if err != nil || !strings.Contains(string(out), imageVersion) {
		t.Fatalf("worker version in the image: %v\n%s", err, out)
	}

	// worker run against the test's NATS and MinIO (chroot isolation shares the host's network).
	ns := natstest.Start(t)
	bucket := "image-" + randomHex(4)
	httpAddr := freeAddr(t)
	env := map[string]string{
		"NATS_URL": ns.ClientURL(), "S3_ENDPOINT": minio.Endpoint, "S3_ACCESS_KEY": minio.AccessKey,
		"S3_SECRET_KEY": minio.SecretKey, "S3_BUCKET": bucket, "HTTP_ADDR": httpAddr, "LOG_FORMAT": "json",
	}
	runArgs := []string{"run", "--isolation", "chroot"}
	for k, v := range env {
		runArgs = append(runArgs, "-e", k+"="+v)
	}
	runArgs = append(runArgs, ctr, "--", "/worker", "run")
	var logs servicetest.SyncBuffer
	run := exec.Command(bin, b.args(runArgs...)...)
	run.Stdout, run.Stderr = &logs, &logs
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- run.Wait() }()
	t.Cleanup(func() {
		if run.ProcessState == nil {
			_ = run.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for !ready(httpAddr) {
		select {
		case err := <-exited:
			t.Fatalf("worker run in the image exited: %v\n%s", err, logs.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker in the image is not ready after 60s:\n%s", logs.String())
		}
	}
	t.Logf("FIGURES image: worker run ready in %s", time.Since(start).Round(time.Millisecond))

	store, err := service.OpenStore(context.Background(), service.Config{S3Endpoint: minio.Endpoint, S3AccessKey: minio.AccessKey, S3SecretKey: minio.SecretKey, S3Bucket: bucket})
	if err != nil {
		t.Fatal(err)
	}
	text := []byte("served from the image\n")
	if _, err := store.Put(context.Background(), objectstore.ArtifactKey("img"), bytes.NewReader(text), int64(len(text)), "text/plain", map[string]string{objectstore.MetaFilename: "img.txt"}); err != nil {
		t.Fatal(err)
	}
	nc := natstest.Connect(t, ns)
	c, err := client.New(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var res contracts.GetArtifactResult
	if err := c.Call(ctx, contracts.SubjectGetArtifact, contracts.GetArtifactRequest{RequestID: "image-1", Ref: "artifact:img", ServiceID: "gpt-4o"}, &res); err != nil {
		t.Fatalf("get_artifact from the worker in the image: %v\n%s", err, logs.String())
	}
	if raw, _ := json.Marshal(res); !strings.Contains(string(raw), "served from the image") {
		t.Fatalf("get_artifact result lacks the artifact's text: %s", raw)
	}
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if code := httpStatus(t, "http://"+httpAddr+path); code != http.StatusOK {
			t.Errorf("GET %s from the worker in the image: %d", path, code)
		}
	}

	// SIGTERM to the worker (buildah itself would SIGKILL it): a graceful stop, exit 0.
	pid := descendant(t, run.Process.Pid, "worker")
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("worker run in the image after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the worker in the image did not stop within 30s of SIGTERM:\n%s", logs.String())
	}
	for _, want := range []string{`"msg":"starting"`, `"version":"` + imageVersion + `"`, `"embedded_nats":false`, `"s3_bucket":"` + bucket + `"`, `"signal":"SIGTERM"`, `"msg":"stopped"`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the worker's logs lack %s:\n%s", want, logs.String())
		}
	}
}

// checkImageFiles: what the image's settings point at is there, for the user the image runs as.
func checkImageFiles(t *testing.T, root string, env []string) {
	t.Helper()
	vars := envMap(env)
	for _, p := range []string{"/worker", "/etc/ssl/certs/ca-certificates.crt", vars["LLM_SERVICES_FILE"]} {
		if fi, err := os.Stat(filepath.Join(root, p)); err != nil || fi.Size() == 0 {
			t.Errorf("the image lacks %s: %v", p, err)
		}
	}
	passwd, _ := os.ReadFile(filepath.Join(root, "etc/passwd"))
	if !strings.Contains(string(passwd), ":65532:65532:") {
		t.Errorf("/etc/passwd has no user 65532: %q", passwd)
	}
	fi, err := os.Stat(filepath.Join(root, vars["DATA_DIR"]))
	if err != nil {
		t.Fatalf("DATA_DIR %s: %v", vars["DATA_DIR"], err)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || st.Uid != 65532 || !fi.IsDir() {
		t.Errorf("DATA_DIR %s is not a directory owned by 65532", vars["DATA_DIR"])
	}
}

// checkDeploymentsAgainstImage: the Compose service and the Kubernetes Deployment run the image as
// the user it declares, on the port it exposes and HTTP_ADDR listens on, probing paths it serves,
// without replacing its entrypoint.
func checkDeploymentsAgainstImage(t *testing.T, user string, exposed map[string]struct{}, env, entrypoint []string) {
	t.Helper()
	if !slices.Equal(entrypoint, []string{"/worker", "run"}) {
		t.Errorf("image entrypoint %v, want [/worker run]", entrypoint)
	}
	if user != "65532:65532" {
		t.Errorf("image user %q, want 65532:65532", user)
	}
	_, port, err := net.SplitHostPort(envMap(env)["HTTP_ADDR"])
	if err != nil {
		t.Fatalf("image HTTP_ADDR: %v", err)
	}
	if _, ok := exposed[port+"/tcp"]; !ok || len(exposed) != 1 {
		t.Errorf("image exposes %v, want only %s/tcp (HTTP_ADDR)", exposed, port)
	}

	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			User        string            `yaml:"user"`
			Ports       []string          `yaml:"ports"`
			Command     []string          `yaml:"command"`
			Entrypoint  []string          `yaml:"entrypoint"`
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	readYAML(t, "../deployments/docker-compose.yml", &compose)
	w, ok := compose.Services["worker"]
	if !ok {
		t.Fatal("docker-compose.yml has no worker service")
	}
	if w.User != user {
		t.Errorf("compose worker user %q, the image's is %q", w.User, user)
	}
	if repo, _, _ := strings.Cut(w.Image, ":"); repo != "artifact-worker" {
		t.Errorf("compose worker image %q, want artifact-worker:<tag> (what make image tags)", w.Image)
	}
	if len(w.Command) > 0 || len(w.Entrypoint) > 0 {
		t.Errorf("compose worker replaces the image's entrypoint or command (%v %v): the image has no shell", w.Entrypoint, w.Command)
	}
	if _, p, _ := net.SplitHostPort(w.Environment["HTTP_ADDR"]); p != port {
		t.Errorf("compose HTTP_ADDR %q, the image listens on %s", w.Environment["HTTP_ADDR"], port)
	}
	for _, mapping := range w.Ports {
		parts := strings.Split(mapping, ":")
		if parts[len(parts)-1] != port {
			t.Errorf("compose publishes container port %s, the image exposes %s", parts[len(parts)-1], port)
		}
	}

	var deploy struct {
		Spec struct {
			Template struct {
				Spec struct {
					SecurityContext struct {
						RunAsUser  int `yaml:"runAsUser"`
						RunAsGroup int `yaml:"runAsGroup"`
					} `yaml:"securityContext"`
					Containers []struct {
						Image   string   `yaml:"image"`
						Command []string `yaml:"command"`
						Args    []string `yaml:"args"`
						Ports   []struct {
							Name          string `yaml:"name"`
							ContainerPort int    `yaml:"containerPort"`
						} `yaml:"ports"`
						Env []struct {
							Name  string `yaml:"name"`
							Value string `yaml:"value"`
						} `yaml:"env"`
						Probes map[string]any `yaml:",inline"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	readYAML(t, "../deployments/kubernetes/deployment.yaml", &deploy)
	pod := deploy.Spec.Template.Spec
	if u := fmt.Sprintf("%d:%d", pod.SecurityContext.RunAsUser, pod.SecurityContext.RunAsGroup); u != user {
		t.Errorf("Deployment runs as %s, the image's user is %s", u, user)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("Deployment has %d containers, want the worker", len(pod.Containers))
	}
	c := pod.Containers[0]
	if repo, _, _ := strings.Cut(c.Image, ":"); !strings.HasSuffix(repo, "artifact-worker") {
		t.Errorf("Deployment image %q, want <registry>/artifact-worker:<tag>", c.Image)
	}
	if len(c.Command) > 0 || (len(c.Args) > 0 && c.Args[0] != "run") {
		t.Errorf("Deployment replaces the entrypoint (%v %v): the image has no shell", c.Command, c.Args)
	}
	named := map[string]string{}
	for _, p := range c.Ports {
		named[p.Name] = strconv.Itoa(p.ContainerPort)
		if strconv.Itoa(p.ContainerPort) != port {
			t.Errorf("Deployment containerPort %d, the image exposes %s", p.ContainerPort, port)
		}
	}
	for _, e := range c.Env {
		if e.Name == "HTTP_ADDR" {
			if _, p, _ := net.SplitHostPort(e.Value); p != port {
				t.Errorf("Deployment HTTP_ADDR %q, the image listens on %s", e.Value, port)
			}
		}
	}
	for _, probe := range []string{"startupProbe", "livenessProbe", "readinessProbe"} {
		raw, _ := yaml.Marshal(c.Probes[probe])
		var p struct {
			HTTPGet struct {
				Path string `yaml:"path"`
				Port string `yaml:"port"`
			} `yaml:"httpGet"`
		}
		_ = yaml.Unmarshal(raw, &p)
		if !slices.Contains([]string{"/healthz", "/readyz"}, p.HTTPGet.Path) || named[p.HTTPGet.Port] != port {
			t.Errorf("Deployment %s probes %s on port %q: want /healthz or /readyz on the port the image exposes", probe, p.HTTPGet.Path, p.HTTPGet.Port)
		}
	}
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func readYAML(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

func ready(addr string) bool {
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// descendant returns the pid of the process named comm under pid (buildah runs the command two
// processes down).
func descendant(t *testing.T, pid int, comm string) int {
	t.Helper()
	children := map[int][]int{}
	names := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		open, close := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(string(stat[close+1:]))
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		children[ppid] = append(children[ppid], p)
		names[p] = string(stat[open+1 : close])
	}
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p != pid && names[p] == comm {
			return p
		}
		queue = append(queue, children[p]...)
	}
	t.Fatalf("no process %q under %d", comm, pid)
	return 0
}
