// Package telemetry sets up OpenTelemetry for the worker: a tracer provider exporting over OTLP/HTTP
// when the standard OTEL_EXPORTER_OTLP_* variables name an endpoint, and a meter provider read by a
// Prometheus exporter served on /metrics. The standard OTEL_* variables (service name, resource
// attributes, sampler, endpoints, headers) are read by the SDK itself.
package telemetry

import (
	"context"
	"errors"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"
)

// Config selects exporters. Environment lookups happen in the caller (cmd/worker).
type Config struct {
	ServiceName string
	// OTLPEnabled turns on the OTLP/HTTP trace exporter (endpoint and headers from OTEL_* variables).
	OTLPEnabled bool
	// Disabled turns every provider into a no-op (OTEL_SDK_DISABLED=true).
	Disabled bool
}

// Telemetry holds the providers and the /metrics handler.
type Telemetry struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Metrics        http.Handler
	shutdown       []func(context.Context) error
}

// Setup builds the providers and installs them (and the W3C propagator) as the OTel globals.
func Setup(ctx context.Context, cfg Config) (*Telemetry, error) {
	if cfg.ServiceName == "" {
		cfg.ServiceName = "artifact-worker"
	}
	res, err := resource.Merge(resource.Default(), resource.NewSchemaless(semconv.ServiceName(cfg.ServiceName)))
	if err != nil {
		return nil, err
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	exp, err := otelprom.New(otelprom.WithRegisterer(reg))
	if err != nil {
		return nil, err
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(exp))
	t := &Telemetry{
		MeterProvider: mp,
		Metrics:       promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		shutdown:      []func(context.Context) error{mp.Shutdown},
	}
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	if cfg.OTLPEnabled && !cfg.Disabled {
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
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	return t, nil
}

// Shutdown flushes and stops the providers.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}
