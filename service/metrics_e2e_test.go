package service_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.yaml.in/yaml/v3"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// scrape reads the worker's /metrics into families by name.
func scrape(t *testing.T, w *servicetest.Worker) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get("http://" + w.Svc.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	return families
}

// value returns the value of the series of family name with exactly the given labels among its
// own (scope labels aside), and whether it exists.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f, ok := families[name]
	if !ok {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		match := 0
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; ok && v == l.GetValue() {
				match++
			}
		}
		if match != len(labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

// TestMetricsExistFromStartAndCount: every worker_* series exists at zero before the first
// request (per subject, outcome, code, direction, reason), and requests move the right ones.
func TestMetricsExistFromStartAndCount(t *testing.T) {
	w := startWorker(t)
	start := scrape(t, w)
	for _, subject := range contracts.RequestSubjects {
		s := map[string]string{"subject": subject}
		with := func(k, v string) map[string]string { return map[string]string{"subject": subject, k: v} }
		want := []struct {
			name   string
			labels map[string]string
		}{{"worker_in_flight", s}, {"worker_bytes_in_total", s}, {"worker_bytes_out_total", s}, {"worker_expired_requests_total", s}}
		for _, o := range messaging.Outcomes {
			want = append(want, struct {
				name   string
				labels map[string]string
			}{"worker_messages_total", with("outcome", o)})
		}
		for _, c := range contracts.ErrorCodes {
			want = append(want, struct {
				name   string
				labels map[string]string
			}{"worker_failed_requests_total", with("code", c)})
		}
		for _, r := range messaging.DeadLetterReasons {
			want = append(want, struct {
				name   string
				labels map[string]string
			}{"worker_dead_letters_total", with("reason", r)})
		}
		for _, d := range []string{"in", "out"} {
			want = append(want, struct {
				name   string
				labels map[string]string
			}{"worker_claim_checks_total", with("direction", d)}, struct {
				name   string
				labels map[string]string
			}{"worker_claim_check_size_bytes_total", with("direction", d)})
		}
		for _, x := range want {
			if v, ok := value(start, x.name, x.labels); !ok || v != 0 {
				t.Errorf("at start-up %s%v = %v (exists %v), want 0", x.name, x.labels, v, ok)
			}
		}
	}
	for _, subject := range []string{contracts.SubjectGetArtifact, contracts.SubjectGetHistoryImage} {
		for _, d := range contracts.Dialects {
			if v, ok := value(start, "worker_tokens_saved_total", map[string]string{"subject": subject, "dialect": d}); !ok || v != 0 {
				t.Errorf("at start-up worker_tokens_saved_total{subject=%q,dialect=%q} = %v (exists %v), want 0", subject, d, v, ok)
			}
		}
	}
	if v, ok := value(start, "worker_registry_unresolved_total", nil); !ok || v != 0 {
		t.Errorf("at start-up worker_registry_unresolved_total = %v (exists %v), want 0", v, ok)
	}
	for _, r := range []string{"ok", "failed"} {
		if v, ok := value(start, "worker_registry_reloads_total", map[string]string{"result": r}); !ok || v != 0 {
			t.Errorf("at start-up worker_registry_reloads_total{result=%q} = %v (exists %v), want 0", r, v, ok)
		}
	}

	// An answer over 1 MiB goes out by claim check, a request over 1 MiB comes in by one; a missing
	// artifact is an error reply, an undecodable request a poison dead letter.
	big := bytes.Repeat([]byte("metrics are counted\n"), 80_000)
	w.PutArtifact("big", "text/plain", "big.txt", big)
	if rep, _ := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "big", ServiceID: "text-model"}); !rep.OK {
		t.Fatalf("big: %+v", rep.Error)
	}
	padded, _ := json.Marshal(map[string]any{"request_id": "padded-" + randomHex(4), "ref": "big", "service_id": "text-model", "padding": strings.Repeat("x", 1_200_000)})
	if rep := w.CallRaw(contracts.SubjectGetArtifact, padded); !rep.OK {
		t.Fatalf("padded: %+v", rep.Error)
	}
	if rep, _ := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "missing"}); rep.OK || rep.Error.Code != contracts.CodeArtifactNotFound {
		t.Fatalf("missing: %+v", rep)
	}
	if rep := w.CallRaw(contracts.SubjectGetArtifact, []byte("not json")); rep.Error == nil || rep.Error.Code != contracts.CodeInvalidRequest {
		t.Fatalf("poison: %+v", rep)
	}
	// A model name the registry does not know, twice: counted twice, logged once.
	w.PutArtifact("small", "text/plain", "small.txt", []byte("small"))
	for range 2 {
		if rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "small", ServiceID: "acme-model-9"}); !rep.OK || res.Model == nil || res.Model.DecidedBy != contracts.DecidedByNone {
			t.Fatalf("unknown model: %+v, %+v", rep.Error, res.Model)
		}
	}
	// The registry file changes once: one reload.
	if err := os.WriteFile(w.Config.LLMServicesFile, []byte(strings.Replace(servicetest.Registry, `"omni-model"`, `"omni-model-2"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	ga := func(k, v string) map[string]string {
		return map[string]string{"subject": contracts.SubjectGetArtifact, k: v}
	}
	wantAfter := []struct {
		name   string
		labels map[string]string
		value  float64
	}{
		{"worker_messages_total", ga("outcome", "ok"), 4},
		{"worker_messages_total", ga("outcome", "error_reply"), 1},
		{"worker_messages_total", ga("outcome", "dead_letter"), 1},
		{"worker_failed_requests_total", ga("code", contracts.CodeArtifactNotFound), 1},
		{"worker_failed_requests_total", ga("code", contracts.CodeInvalidRequest), 1},
		{"worker_dead_letters_total", ga("reason", messaging.ReasonPoison), 1},
		{"worker_claim_checks_total", ga("direction", "out"), 2},
		{"worker_claim_checks_total", ga("direction", "in"), 1},
		{"worker_in_flight", map[string]string{"subject": contracts.SubjectGetArtifact}, 0},
		{"worker_message_duration_seconds", ga("outcome", "ok"), 4},
		{"worker_registry_reloads_total", map[string]string{"result": "ok"}, 1},
		{"worker_registry_unresolved_total", nil, 2},
		{"worker_registry_unresolved_names_total", nil, 1},
	}
	var after map[string]*dto.MetricFamily
	servicetest.WaitFor(t, 10*time.Second, "the counts", func() bool {
		after = scrape(t, w)
		for _, x := range wantAfter {
			if v, _ := value(after, x.name, x.labels); v != x.value {
				return false
			}
		}
		return true
	})
	if v, _ := value(after, "worker_claim_check_size_bytes_total", ga("direction", "in")); v < 1_200_000 || v > 1_300_000 {
		t.Errorf("claimed request bytes %v, want the padded request's size", v)
	}
	if v, _ := value(after, "worker_claim_check_size_bytes_total", ga("direction", "out")); v < float64(2*len(big)) {
		t.Errorf("claimed reply bytes %v, want at least twice the artifact (%d)", v, len(big))
	}

	if n := strings.Count(w.Logs.String(), `"service_id":"acme-model-9"`); n != 1 {
		t.Errorf("the unknown model name is logged %d times, want once per %s", n, service.UnresolvedLogEvery)
	}

	// The alert rules (deployments/monitoring) use only metrics and label values the worker exports.
	checkAlertRules(t, after)

	// The start-up line says what the worker connects to, without secrets.
	var startLine map[string]any
	for _, line := range strings.Split(w.Logs.String(), "\n") {
		if strings.Contains(line, `"msg":"starting"`) {
			if err := json.Unmarshal([]byte(line), &startLine); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k, want := range map[string]any{
		"nats_url": w.Config.NATSURL, "embedded_nats": false, "s3_endpoint": w.Config.S3Endpoint,
		"s3_bucket": w.Config.S3Bucket, "otel": true, "service_name": "artifact-worker",
	} {
		if startLine[k] != want {
			t.Errorf("start-up log %s = %v, want %v (line %v)", k, startLine[k], want, startLine)
		}
	}
	if v, _ := startLine["version"].(string); v == "" {
		t.Errorf("start-up log has no version: %v", startLine)
	}
	if strings.Contains(w.Logs.String(), w.Config.S3SecretKey) {
		t.Error("the logs contain the S3 secret key")
	}
}

// prometheusRule is deployments/monitoring/prometheusrule.yaml: a PrometheusRule whose spec holds
// Prometheus rule groups.
type prometheusRule struct {
	APIVersion string         `yaml:"apiVersion"`
	Kind       string         `yaml:"kind"`
	Metadata   map[string]any `yaml:"metadata"`
	Spec       struct {
		Groups []struct {
			Name  string `yaml:"name"`
			Rules []struct {
				Alert       string            `yaml:"alert"`
				Expr        string            `yaml:"expr"`
				For         string            `yaml:"for"`
				Labels      map[string]string `yaml:"labels"`
				Annotations map[string]string `yaml:"annotations"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	} `yaml:"spec"`
}

var (
	metricName = regexp.MustCompile(`\b(worker|process|go)_[a-z0-9_]+\b`)
	// name{...}: the matchers of one selector.
	selector = regexp.MustCompile(`\b((?:worker|process|go)_[a-z0-9_]+)\{([^}]*)\}`)
	matcher  = regexp.MustCompile(`([a-z_]+)\s*(=~|=)\s*"([^"]*)"`)
)

// checkAlertRules reads the alert rules of deployments/monitoring/prometheusrule.yaml (described in
// docs/operations.md): Prometheus rule groups whose expressions name exported metrics, with label
// values that exist after real traffic. (make deploy-check parses them with Prometheus's parser.)
func checkAlertRules(t *testing.T, families map[string]*dto.MetricFamily) {
	t.Helper()
	raw, err := os.ReadFile("../deployments/monitoring/prometheusrule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	var rules prometheusRule
	if err := dec.Decode(&rules); err != nil {
		t.Fatalf("alert rules: %v", err)
	}
	n := 0
	for _, g := range rules.Spec.Groups {
		for _, r := range g.Rules {
			n++
			if r.Alert == "" || r.Expr == "" || r.Annotations["summary"] == "" || !slices.Contains([]string{"info", "warning", "critical"}, r.Labels["severity"]) {
				t.Errorf("rule %q: needs alert, expr, a severity of info/warning/critical and a summary", r.Alert)
			}
			if r.For != "" {
				if _, err := model.ParseDuration(r.For); err != nil {
					t.Errorf("rule %s: for %q: %v", r.Alert, r.For, err)
				}
			}
			if depth := strings.Count(r.Expr, "(") - strings.Count(r.Expr, ")"); depth != 0 {
				t.Errorf("rule %s: unbalanced parentheses in %q", r.Alert, r.Expr)
			}
			for _, name := range metricName.FindAllString(r.Expr, -1) {
				if family(families, name) == "" {
					t.Errorf("rule %s uses %s, which /metrics does not export", r.Alert, name)
				}
			}
			for _, sel := range selector.FindAllStringSubmatch(r.Expr, -1) {
				for _, m := range matcher.FindAllStringSubmatch(sel[2], -1) {
					if m[1] == "job" || m[1] == "le" {
						continue // set by the scrape configuration / the histogram
					}
					values := []string{m[3]}
					if m[2] == "=~" {
						values = strings.Split(m[3], "|")
					}
					for _, v := range values {
						if _, ok := value(families, family(families, sel[1]), map[string]string{m[1]: v}); !ok {
							t.Errorf("rule %s selects %s{%s=%q}, a series /metrics does not have", r.Alert, sel[1], m[1], v)
						}
					}
				}
			}
		}
	}
	if n < 5 {
		t.Errorf("%d alert rules, want the documented set", n)
	}
}

// family returns the family a sample name belongs to (a histogram's _bucket, _sum and _count).
func family(families map[string]*dto.MetricFamily, name string) string {
	if _, ok := families[name]; ok {
		return name
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok {
			if f, ok := families[base]; ok && f.GetType() == dto.MetricType_HISTOGRAM {
				return base
			}
		}
	}
	return ""
}
