package service

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/agentworks/artifact-worker/llmservices"
)

// MetricRegistryReloads counts reloads of LLM_SERVICES_FILE by result (ok, failed); Prometheus sees
// worker_registry_reloads_total. Both series exist from start-up, with or without a file.
const MetricRegistryReloads = "worker.registry.reloads"

// countReloads makes w (nil without LLM_SERVICES_FILE) count its reloads on m.
func countReloads(m metric.Meter, w *llmservices.Watcher) error {
	c, err := m.Int64Counter(MetricRegistryReloads, metric.WithDescription("Reloads of the capability registry file, by result."))
	if err != nil {
		return err
	}
	ok := metric.WithAttributes(attribute.String("result", "ok"))
	failed := metric.WithAttributes(attribute.String("result", "failed"))
	c.Add(context.Background(), 0, ok)
	c.Add(context.Background(), 0, failed)
	if w != nil {
		w.OnReload = func(err error) {
			if err != nil {
				c.Add(context.Background(), 1, failed)
			} else {
				c.Add(context.Background(), 1, ok)
			}
		}
	}
	return nil
}
