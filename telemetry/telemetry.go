// Package telemetry sets up OpenTelemetry for the worker: a tracer provider exporting over OTLP/HTTP
// when the standard OTEL_EXPORTER_OTLP_* variables name an endpoint, and a meter provider read by a
// Prometheus exporter served on /metrics. The standard OTEL_* variables (OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES, the sampler, endpoints, headers) are read by the SDK itself;
// OTEL_SDK_DISABLED arrives as Config.Disabled.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Config selects exporters. Environment lookups happen in the caller (cmd/worker).
type Config struct {
	ServiceName string
	// OTLPEnabled turns on the OTLP/HTTP trace exporter (endpoint and headers from OTEL_* variables).
	OTLPEnabled bool
	// Disabled turns the tracer and meter providers into no-ops (OTEL_SDK_DISABLED=true): no spans,
	// no OTel metrics. /metrics still serves the Go runtime and process collectors.
	Disabled bool
}

// DefaultServiceName is service.name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES sets it.
const DefaultServiceName = "artifact-worker"

// Telemetry holds the providers and the /metrics handler.
type Telemetry struct {
	// Enabled is false when the SDK is disabled (the providers are no-ops).
	Enabled bool
	// Resource is the OTel resource (service.name, ...) of the providers; nil when disabled.
	Resource       *resource.Resource
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Metrics        http.Handler
	shutdown       []func(context.Context) error
}

// Setup builds the providers and installs them (and the W3C propagator) as the OTel globals.
func Setup(ctx context.Context, cfg Config) (*Telemetry, error) {
	serviceName := cfg.ServiceName
	if serviceName == "" {
		serviceName = DefaultServiceName
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	t := &Telemetry{Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{})}
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	if cfg.Disabled {
		t.TracerProvider = tracenoop.NewTracerProvider()
		t.MeterProvider = metricnoop.NewMeterProvider()
		otel.SetTracerProvider(t.TracerProvider)
		otel.SetMeterProvider(t.MeterProvider)
		return t, nil
	}
	// Later sources win: the default name, then the SDK's own attributes, then OTEL_RESOURCE_ATTRIBUTES
	// and OTEL_SERVICE_NAME (the specification's order: OTEL_SERVICE_NAME over the attributes).
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName(serviceName)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	t.Enabled, t.Resource = true, res
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(exp))
	t.MeterProvider = mp
	t.shutdown = append(t.shutdown, mp.Shutdown)
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if cfg.OTLPEnabled {
		te, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, err
		}
		topts = append(topts, sdktrace.WithBatcher(te))
	}
	tp := sdktrace.NewTracerProvider(topts...)
	t.TracerProvider = tp
	t.shutdown = append(t.shutdown, tp.Shutdown)
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	return t, nil
}

// ServiceName is the service.name the providers report ("" when disabled).
func (t *Telemetry) ServiceName() string {
	if t.Resource == nil {
		return ""
	}
	v, _ := t.Resource.Set().Value(semconv.ServiceNameKey)
	return v.AsString()
}

// Shutdown flushes and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}
