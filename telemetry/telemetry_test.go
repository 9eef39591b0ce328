package telemetry_test

import (
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/telemetry"
)

// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES set service.name as the OTel specification says
// (the variable over the attributes); without either it is artifact-worker.
func TestServiceNameFollowsTheEnvironment(t *testing.T) {
	for _, tc := range []struct {
		name, serviceName, attributes, want string
	}{
		{"default", "", "", telemetry.DefaultServiceName},
		{"OTEL_SERVICE_NAME", "worker-eu", "", "worker-eu"},
		{"OTEL_RESOURCE_ATTRIBUTES", "", "service.name=from-attrs,deployment.environment=prod", "from-attrs"},
		{"both: the variable wins", "worker-eu", "service.name=from-attrs", "worker-eu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_SERVICE_NAME", tc.serviceName)
			t.Setenv("OTEL_RESOURCE_ATTRIBUTES", tc.attributes)
			tel := setup(t, telemetry.Config{})
			if got := tel.ServiceName(); got != tc.want {
				t.Errorf("service.name %q, want %q", got, tc.want)
			}
			if !strings.Contains(scrape(t, tel), `service_name="`+tc.want+`"`) {
				t.Errorf("/metrics target_info lacks service_name=%q", tc.want)
			}
		})
	}
}

// OTEL_SDK_DISABLED=true: no spans are recorded and no OTel metric is exported; /metrics still
// serves the runtime collectors.
func TestDisabledSDKRecordsNothing(t *testing.T) {
	for _, disabled := range []bool{false, true} {
		tel := setup(t, telemetry.Config{Disabled: disabled})
		_, span := tel.TracerProvider.Tracer("t").Start(context.Background(), "s")
		recording := span.IsRecording()
		span.End()
		c, err := tel.MeterProvider.Meter("t").Int64Counter("probe.calls")
		if err != nil {
			t.Fatal(err)
		}
		c.Add(context.Background(), 1)
		body := scrape(t, tel)
		if recording == disabled {
			t.Errorf("disabled=%v: span recording=%v", disabled, recording)
		}
		if strings.Contains(body, "probe_calls_total") == disabled {
			t.Errorf("disabled=%v: /metrics has the OTel counter: %v", disabled, !disabled)
		}
		if tel.Enabled == disabled {
			t.Errorf("disabled=%v: Enabled=%v", disabled, tel.Enabled)
		}
		if !strings.Contains(body, "go_goroutines") {
			t.Errorf("disabled=%v: /metrics lacks the Go collector", disabled)
		}
	}
}

func setup(t *testing.T, cfg telemetry.Config) *telemetry.Telemetry {
	t.Helper()
	tel, err := telemetry.Setup(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tel.Shutdown(context.Background()) })
	return tel
}

func scrape(t *testing.T, tel *telemetry.Telemetry) string {
	t.Helper()
	rec := httptest.NewRecorder()
	tel.Metrics.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, _ := io.ReadAll(rec.Body)
	return string(b)
}
