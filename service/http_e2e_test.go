package service_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// /healthz, /readyz and /metrics: the request counter, latency histogram and byte counters appear
// by subject and outcome once requests were handled.
func TestHealthReadinessAndMetrics(t *testing.T) {
	w := startWorker(t)
	w.PutArtifact("m", "text/plain", "m.txt", []byte("metrics"))
	getArtifact(t, w, contracts.GetArtifactRequest{Ref: "m"})
	getArtifact(t, w, contracts.GetArtifactRequest{Ref: "missing"})
	w.PutArtifact("img", "image/png", "a.png", testfiles.PNG(64, 64))
	getArtifact(t, w, contracts.GetArtifactRequest{Ref: "img", ServiceID: "vision-model", Dialect: "anthropic"})
	get := func(path string) (int, string) {
		resp, err := http.Get("http://" + w.Svc.HTTPAddr() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("/healthz %d %s", code, body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"consumers":"ok"`) || !strings.Contains(body, `"storage":"ok"`) || !strings.Contains(body, `"nats":"ok"`) {
		t.Fatalf("/readyz %d %s", code, body)
	}
	// The worker counts a request after its reply went out: the last reply can reach the caller
	// before its count reaches /metrics, so wait for the counts instead of reading them once.
	ga := func(outcome string) map[string]string {
		return map[string]string{"subject": contracts.SubjectGetArtifact, "outcome": outcome}
	}
	want := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"worker_messages_total", ga("ok"), 2},
		{"worker_messages_total", ga("error_reply"), 1},
		{"worker_message_duration_seconds", ga("ok"), 2},
		{"worker_message_duration_seconds", ga("error_reply"), 1},
	}
	var families map[string]*dto.MetricFamily
	var metrics string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, metrics = get("/metrics")
		parser := expfmt.NewTextParser(model.UTF8Validation)
		var err error
		if families, err = parser.TextToMetricFamilies(strings.NewReader(metrics)); err != nil {
			t.Fatalf("/metrics: %v", err)
		}
		counted := true
		for _, x := range want {
			if v, _ := value(families, x.name, x.labels); v != x.value {
				counted = false
			}
		}
		if counted || time.Now().After(deadline) {
			break
		}
	}
	for _, x := range want {
		if v, ok := value(families, x.name, x.labels); v != x.value {
			t.Errorf("/metrics %s%v = %v (exists %v), want %v", x.name, x.labels, v, ok, x.value)
		}
	}
	for _, name := range []string{"worker_bytes_in_total", "worker_bytes_out_total"} {
		if v, _ := value(families, name, map[string]string{"subject": contracts.SubjectGetArtifact}); v <= 0 {
			t.Errorf("/metrics %s{subject=%q} = %v, want the bytes of the requests", name, contracts.SubjectGetArtifact, v)
		}
	}
	if !regexp.MustCompile(`(?m)^worker_tokens_saved_total\{dialect="anthropic",[^}]*subject="tool.get_artifact"\} [1-9]`).MatchString(metrics) {
		t.Errorf("/metrics lacks worker_tokens_saved_total for the anthropic image:\n%s", metrics)
	}
	// A graceful stop (what SIGTERM does) returns no error.
	if err := w.Stop(); err != nil {
		t.Fatalf("Run returned %v after a graceful stop", err)
	}
}
