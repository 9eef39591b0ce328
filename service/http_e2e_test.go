package service_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testfiles"
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
	_, metrics := get("/metrics")
	for _, want := range []string{
		`worker_messages_total{`,
		`outcome="ok"`,
		`outcome="error_reply"`,
		`subject="tool.get_artifact"`,
		`worker_message_duration_seconds_bucket{`,
		`worker_bytes_in_total{`,
		`worker_bytes_out_total{`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %s", want)
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
