package deployments

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/service"
)

const (
	ruleFile      = "monitoring/prometheusrule.yaml"
	dashboardFile = "monitoring/grafana-dashboard.json"
	operationsDoc = "../docs/operations.md"
)

// prometheusRule mirrors monitoring.coreos.com/v1 PrometheusRule (the fields rules use); decoding
// is strict, so a misspelt field fails the test.
type prometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Groups []struct {
			Name     string      `json:"name"`
			Interval string      `json:"interval,omitempty"`
			Rules    []alertRule `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

// alertRule is one rule of a PrometheusRule's group.
type alertRule struct {
	Alert       string            `json:"alert,omitempty"`
	Record      string            `json:"record,omitempty"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// dashboard mirrors the parts of a Grafana dashboard model the checks read.
type dashboard struct {
	UID        string `json:"uid"`
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name string `json:"name"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID         int    `json:"id"`
		Type       string `json:"type"`
		Title      string `json:"title"`
		Datasource *struct {
			Type string `json:"type"`
			UID  string `json:"uid"`
		} `json:"datasource"`
		GridPos struct{ X, Y, W, H int } `json:"gridPos"`
		Targets []struct {
			RefID        string `json:"refId"`
			Expr         string `json:"expr"`
			LegendFormat string `json:"legendFormat"`
		} `json:"targets"`
	} `json:"panels"`
}

// promQL is Prometheus's own PromQL parser, with its default functions and no experimental ones.
var promQL = parser.NewParser(parser.Options{})

// dashboardVariables are what Grafana puts in place of the dashboard's variables: the job
// variable's "All" and a rate window.
var dashboardVariables = strings.NewReplacer(`$__rate_interval`, `5m`, `"$job"`, `".+"`)

func loadRule(t *testing.T) prometheusRule {
	t.Helper()
	raw, err := os.ReadFile(ruleFile)
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(raw)
	if err != nil {
		t.Fatalf("%s: %v", ruleFile, err)
	}
	var r prometheusRule
	strict, err := k8sjson.UnmarshalStrict(js, &r)
	if err != nil || len(strict) > 0 {
		t.Fatalf("%s: %v %v", ruleFile, err, strict)
	}
	return r
}

func loadDashboard(t *testing.T) dashboard {
	t.Helper()
	raw, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// TestPrometheusRule: the PrometheusRule is a valid object whose every expression Prometheus parses,
// with a severity and a summary, and it holds every alert docs/operations.md describes and one on
// unresolved model names.
func TestPrometheusRule(t *testing.T) {
	r := loadRule(t)
	if r.APIVersion != "monitoring.coreos.com/v1" || r.Kind != "PrometheusRule" || r.Name == "" {
		t.Fatalf("%s: %s %s %q, want a monitoring.coreos.com/v1 PrometheusRule with a name", ruleFile, r.APIVersion, r.Kind, r.Name)
	}
	var alerts []string
	for _, g := range r.Spec.Groups {
		if g.Name == "" || len(g.Rules) == 0 {
			t.Errorf("group %q: needs a name and rules", g.Name)
		}
		for _, rule := range g.Rules {
			alerts = append(alerts, rule.Alert)
			if rule.Alert == "" || rule.Annotations["summary"] == "" || !slices.Contains([]string{"info", "warning", "critical"}, rule.Labels["severity"]) {
				t.Errorf("rule %q: needs alert, a severity of info/warning/critical and a summary", rule.Alert)
			}
			if _, err := promQL.ParseExpr(rule.Expr); err != nil {
				t.Errorf("rule %s: %v", rule.Alert, err)
			}
			if rule.For != "" {
				if _, err := model.ParseDuration(rule.For); err != nil {
					t.Errorf("rule %s: for %q: %v", rule.Alert, rule.For, err)
				}
			}
		}
	}
	doc, err := os.ReadFile(operationsDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "### Alert rules")
	section, _, _ = strings.Cut(section, "\n## ")
	documented := regexp.MustCompile(`ArtifactWorker[A-Za-z]+`).FindAllString(section, -1)
	if len(documented) == 0 {
		t.Fatalf("docs/operations.md's Alert rules section names no alert")
	}
	for _, a := range documented {
		if !slices.Contains(alerts, a) {
			t.Errorf("docs/operations.md describes alert %s, which %s does not have", a, ruleFile)
		}
	}
	for _, a := range alerts {
		if !slices.Contains(documented, a) {
			t.Errorf("%s has alert %s, which docs/operations.md's Alert rules section does not describe", ruleFile, a)
		}
	}
	if !slices.ContainsFunc(r.Spec.Groups[0].Rules, func(rule alertRule) bool {
		return strings.Contains(rule.Expr, "worker_registry_unresolved_names_total")
	}) {
		t.Error("no rule on unresolved model names (worker_registry_unresolved_names_total)")
	}
}

// TestGrafanaDashboard: the dashboard's panels lie on Grafana's 24-column grid without overlapping,
// read the data source variable, and every query parses; together they show what an operator
// watches first.
func TestGrafanaDashboard(t *testing.T) {
	d := loadDashboard(t)
	if d.UID == "" || d.Title == "" {
		t.Fatal("the dashboard needs a uid and a title")
	}
	hasVar := func(name string) bool {
		for _, v := range d.Templating.List {
			if v.Name == name {
				return true
			}
		}
		return false
	}
	if !hasVar("datasource") || !hasVar("job") {
		t.Error("the dashboard needs the variables datasource and job")
	}
	ids := map[int]bool{}
	type cell struct{ x, y int }
	taken := map[cell]string{}
	used := map[string]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel id %d twice", p.ID)
		}
		ids[p.ID] = true
		g := p.GridPos
		if g.W < 1 || g.H < 1 || g.X < 0 || g.X+g.W > 24 {
			t.Errorf("panel %q: gridPos %+v is off the 24-column grid", p.Title, g)
		}
		for x := g.X; x < g.X+g.W; x++ {
			for y := g.Y; y < g.Y+g.H; y++ {
				if other, ok := taken[cell{x, y}]; ok {
					t.Errorf("panels %q and %q overlap", other, p.Title)
					x, y = g.X+g.W, g.Y+g.H
				}
				taken[cell{x, y}] = p.Title
			}
		}
		if p.Type == "row" {
			continue
		}
		if p.Title == "" || len(p.Targets) == 0 {
			t.Errorf("panel %d: needs a title and queries", p.ID)
		}
		if p.Datasource == nil || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: its data source must be ${datasource}", p.Title)
		}
		for _, target := range p.Targets {
			expr, err := promQL.ParseExpr(dashboardVariables.Replace(target.Expr))
			if err != nil {
				t.Errorf("panel %q %s: %v", p.Title, target.RefID, err)
				continue
			}
			for _, s := range selectors(expr) {
				used[s.Name] = true
			}
		}
	}
	for _, want := range []string{
		"worker_messages_total", "worker_message_duration_seconds_bucket", "worker_in_flight", "worker_memory_budget_bytes",
		"worker_memory_reserved_bytes", "worker_memory_waiting", "worker_claim_check_bucket_size_bytes", "worker_registry_reloads_total",
		"worker_registry_unresolved_total", "worker_registry_unresolved_names_total", "worker_dead_letters_total", "worker_failed_requests_total",
	} {
		if !used[want] {
			t.Errorf("no panel shows %s", want)
		}
	}
}

// TestMonitoringNamesWhatTheWorkerExports starts a worker (its embedded default: an in-process
// nats-server and a local store), answers one request, and checks every metric the rules and the
// dashboard read, and every label value they select, against its /metrics.
func TestMonitoringNamesWhatTheWorkerExports(t *testing.T) {
	families := runningWorkerMetrics(t)
	var exprs []struct{ where, expr string }
	for _, g := range loadRule(t).Spec.Groups {
		for _, r := range g.Rules {
			exprs = append(exprs, struct{ where, expr string }{"rule " + r.Alert, r.Expr})
		}
	}
	for _, p := range loadDashboard(t).Panels {
		for _, target := range p.Targets {
			exprs = append(exprs, struct{ where, expr string }{fmt.Sprintf("panel %q %s", p.Title, target.RefID), dashboardVariables.Replace(target.Expr)})
		}
	}
	for _, e := range exprs {
		expr, err := promQL.ParseExpr(e.expr)
		if err != nil {
			t.Errorf("%s: %v", e.where, err)
			continue
		}
		for _, s := range selectors(expr) {
			name := family(families, s.Name)
			if name == "" {
				t.Errorf("%s reads %s, which the worker's /metrics does not export", e.where, s.Name)
				continue
			}
			for _, m := range s.LabelMatchers {
				switch m.Name {
				case labels.MetricName, "job", "instance", "le": // the scrape's labels, the histogram's
					continue
				}
				values := []string{m.Value}
				if m.Type == labels.MatchRegexp {
					values = strings.Split(m.Value, "|")
				}
				for _, v := range values {
					if !hasLabel(families[name], m.Name, v) {
						t.Errorf("%s selects %s{%s=%q}, a series the worker's /metrics does not have", e.where, s.Name, m.Name, v)
					}
				}
			}
		}
	}
}

// selectors returns the vector selectors of expr.
func selectors(expr parser.Expr) []*parser.VectorSelector {
	var out []*parser.VectorSelector
	parser.Inspect(expr, func(n parser.Node, _ []parser.Node) error {
		if vs, ok := n.(*parser.VectorSelector); ok {
			out = append(out, vs)
		}
		return nil
	})
	return out
}

// family returns the family a sample name belongs to (a histogram's _bucket, _sum and _count), or "".
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

func hasLabel(f *dto.MetricFamily, name, value string) bool {
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == name && l.GetValue() == value {
				return true
			}
		}
	}
	return false
}

var (
	workerMetricsOnce sync.Once
	workerMetrics     map[string]*dto.MetricFamily
	workerMetricsErr  error
)

// runningWorkerMetrics runs a worker on its embedded default, sends it one get_artifact (of an
// artifact that does not exist: the duration histogram appears with a subject's first request) and
// returns its /metrics.
func runningWorkerMetrics(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	workerMetricsOnce.Do(func() { workerMetrics, workerMetricsErr = scrapeRunningWorker(t.TempDir()) })
	if workerMetricsErr != nil {
		t.Fatal(workerMetricsErr)
	}
	return workerMetrics
}

func scrapeRunningWorker(dir string) (map[string]*dto.MetricFamily, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	natsAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	var logs bytes.Buffer
	svc, err := service.New(ctx, service.Config{DataDir: dir, EmbeddedNATSAddr: natsAddr, HTTPAddr: "127.0.0.1:0", LogLevel: "warn"},
		slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- svc.Run(runCtx) }()
	defer func() { stop(); <-done }()

	nc, err := nats.Connect("nats://" + natsAddr)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	c, err := client.New(ctx, nc)
	if err != nil {
		return nil, err
	}
	var result json.RawMessage
	err = c.Call(ctx, contracts.SubjectGetArtifact, map[string]any{"request_id": "monitoring-check", "ref": "no-such-artifact"}, &result)
	if err == nil {
		return nil, fmt.Errorf("get_artifact of a missing artifact succeeded: %s", result)
	}
	metricsURL := "http://" + svc.HTTPAddr() + "/metrics"
	// The outcome is counted after the reply is sent: wait for it.
	for deadline := time.Now().Add(30 * time.Second); ; {
		families, err := scrape(metricsURL)
		if err != nil {
			return nil, err
		}
		if _, ok := families["worker_message_duration_seconds"]; ok {
			return families, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("no worker_message_duration_seconds 30 s after a request (logs: %s)", logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func scrape(url string) (map[string]*dto.MetricFamily, error) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	text := expfmt.NewTextParser(model.UTF8Validation)
	return text.TextToMetricFamilies(bytes.NewReader(body))
}

func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
