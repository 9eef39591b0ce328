package deployments

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	yamlv3 "gopkg.in/yaml.v3"
)

const (
	composeFile = "docker-compose.yml"
	dockerfile  = "Dockerfile"
)

// composeService mirrors the Compose keys docker-compose.yml uses; KnownFields rejects the others.
type composeService struct {
	Image       string            `yaml:"image"`
	Build       *composeBuild     `yaml:"build"`
	Command     []string          `yaml:"command"`
	Environment map[string]string `yaml:"environment"`
	Ports       []string          `yaml:"ports"`
	Volumes     []string          `yaml:"volumes"`
	DependsOn   map[string]struct {
		Condition string `yaml:"condition"`
	} `yaml:"depends_on"`
	Healthcheck *struct {
		Test        []string `yaml:"test"`
		Interval    string   `yaml:"interval"`
		Timeout     string   `yaml:"timeout"`
		Retries     int      `yaml:"retries"`
		StartPeriod string   `yaml:"start_period"`
	} `yaml:"healthcheck"`
	User            string   `yaml:"user"`
	ReadOnly        bool     `yaml:"read_only"`
	Tmpfs           []string `yaml:"tmpfs"`
	CapDrop         []string `yaml:"cap_drop"`
	SecurityOpt     []string `yaml:"security_opt"`
	StopGracePeriod string   `yaml:"stop_grace_period"`
	Restart         string   `yaml:"restart"`
}

type composeBuild struct {
	Context    string `yaml:"context"`
	Dockerfile string `yaml:"dockerfile"`
}

type composeProject struct {
	Name     string                    `yaml:"name"`
	Services map[string]composeService `yaml:"services"`
	Volumes  map[string]any            `yaml:"volumes"`
}

func loadCompose(t *testing.T) composeProject {
	t.Helper()
	data, err := os.ReadFile(composeFile)
	if err != nil {
		t.Fatal(err)
	}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var p composeProject
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("%s: %v", composeFile, err)
	}
	return p
}

// TestComposeLinesUp: the worker is built from the Dockerfile, reads only known settings, waits for
// healthy NATS and MinIO, and NATS runs the same configuration as the Kubernetes guidance.
func TestComposeLinesUp(t *testing.T) {
	p := loadCompose(t)
	known := workerSettings(t)
	for _, name := range []string{"nats", "minio", "worker"} {
		if _, ok := p.Services[name]; !ok {
			t.Fatalf("%s has no service %q", composeFile, name)
		}
	}
	w := p.Services["worker"]
	for _, name := range sortedKeys(w.Environment) {
		if err := checkSetting(known, name, w.Environment[name]); err != nil {
			t.Error(err)
		}
	}
	if w.Environment["NATS_URL"] != "nats://nats:4222" || !strings.HasPrefix(w.Environment["S3_ENDPOINT"], "minio:") {
		t.Errorf("worker NATS_URL %q / S3_ENDPOINT %q do not name the nats and minio services", w.Environment["NATS_URL"], w.Environment["S3_ENDPOINT"])
	}
	if w.Build == nil {
		t.Fatal("worker is not built from the Dockerfile")
	}
	built := filepath.Join(w.Build.Context, w.Build.Dockerfile)
	if abs, _ := filepath.Abs(built); abs != mustAbs(t, dockerfile) {
		t.Errorf("worker builds %s, want %s with the repository root as context", built, dockerfile)
	}
	for _, dep := range []string{"nats", "minio"} {
		if w.DependsOn[dep].Condition != "service_healthy" {
			t.Errorf("worker does not wait for %s to be healthy", dep)
		}
		if p.Services[dep].Healthcheck == nil {
			t.Errorf("%s has no healthcheck", dep)
		}
	}
	if !w.ReadOnly || !slices.Contains(w.CapDrop, "ALL") || !strings.HasPrefix(w.User, "65532") {
		t.Error("worker should run as 65532 with a read-only root filesystem and no capabilities, as in Kubernetes")
	}

	n := p.Services["nats"]
	i := slices.Index(n.Command, "-c")
	if i < 0 || i+1 >= len(n.Command) {
		t.Fatalf("nats command %v does not load a config file with -c", n.Command)
	}
	mounted := false
	for _, v := range n.Volumes {
		src, dst, _ := strings.Cut(v, ":")
		dst, _, _ = strings.Cut(dst, ":")
		if dst == n.Command[i+1] {
			mounted = true
			if mustAbs(t, src) != mustAbs(t, natsConf) {
				t.Errorf("nats mounts %s as its config, want %s", src, natsConf)
			}
		}
	}
	if !mounted {
		t.Errorf("nats config %s is not mounted", n.Command[i+1])
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestDockerfile: the image builds ./cmd/worker statically, ships the registry, runs as 65532 and
// starts `worker run`; the files it copies exist in the build context (the repository root).
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile(dockerfile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^FROM golang:1\.26\S* AS build$`),
		regexp.MustCompile(`CGO_ENABLED=0`),
		regexp.MustCompile(`go build -trimpath -ldflags "-s -w" -o /out/worker \./cmd/worker`),
		regexp.MustCompile(`(?m)^FROM scratch$`),
		regexp.MustCompile(`(?m)^COPY config/llmservices\.json `),
		regexp.MustCompile(`(?m)^USER 65532(:65532)?$`),
		regexp.MustCompile(`(?m)^ENTRYPOINT \["/worker", ?"run"\]$`),
	} {
		if !want.MatchString(text) {
			t.Errorf("%s lacks %s", dockerfile, want)
		}
	}
	for _, p := range []string{"../go.mod", "../go.sum", "../cmd/worker/main.go", registryFile} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s copies or builds %s: %v", dockerfile, p, err)
		}
	}
}
