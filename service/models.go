package service

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/routing"
)

// MetricUnresolvedModels counts get_artifact requests whose service_id resolved to no registry
// entry (text only); Prometheus sees worker_registry_unresolved_total. It has no per-name label:
// the names are in the log, one line per name at most every UnresolvedLogEvery.
const MetricUnresolvedModels = "worker.registry.unresolved"

// MetricUnresolvedNames counts model names, not requests: each name is counted once when it
// first resolves to nothing (Prometheus: worker_registry_unresolved_names_total). It has no
// per-name label either, so its cardinality is one series whatever the names; a name is counted
// again only after the worker forgot it (its memory holds maxUnresolvedNames names, and forgets
// those not seen for UnresolvedLogEvery when full). Its increase is the alert: a model name new to
// the worker that gets text only.
const MetricUnresolvedNames = "worker.registry.unresolved_names"

// UnresolvedLogEvery is how often, at most, one name that resolves to nothing is logged.
const UnresolvedLogEvery = 5 * time.Minute

// maxUnresolvedNames bounds the names remembered for the log's rate limit. When it is reached,
// names logged longer than UnresolvedLogEvery ago are forgotten; if every remembered name is more
// recent, a new name is not logged on its own (the counter still counts it), so cycling through
// many names cannot turn the rate-limited log into a line per request.
const maxUnresolvedNames = 4096

// models answers for service ids from the current registry (the watched file, or the built-in
// one) and makes names that resolve to nothing visible: a counter and a rate-limited log line.
type models struct {
	current    func() *llmservices.Registry
	unresolved metric.Int64Counter // nil: not counted
	names      metric.Int64Counter // distinct unresolved names; nil: not counted
	log        *slog.Logger
	now        func() time.Time

	mu     sync.Mutex
	logged map[string]time.Time // name → when it was last logged
}

// Build finds these optional interfaces by assertion; losing a method must not silently turn a
// registry feature off.
var (
	_ handlers.ModelFormats     = (*models)(nil)
	_ handlers.ExtractionPolicy = (*models)(nil)
	_ handlers.ModelDecisions   = (*models)(nil)
	_ handlers.ExtractionPolicy = (*llmservices.Registry)(nil)
	_ handlers.ModelDecisions   = (*llmservices.Registry)(nil)
)

// newModels builds the current registry now (the built-in one is built on first use), so that
// the first request does not pay for it.
func newModels(current func() *llmservices.Registry, meter metric.Meter, log *slog.Logger) (*models, error) {
	m := &models{current: current, log: log, now: time.Now, logged: map[string]time.Time{}}
	_ = current()
	if meter != nil {
		c, err := meter.Int64Counter(MetricUnresolvedModels, metric.WithDescription("get_artifact requests whose service_id resolved to no capability registry entry (text only)."))
		if err != nil {
			return nil, err
		}
		c.Add(context.Background(), 0)
		m.unresolved = c
		n, err := meter.Int64Counter(MetricUnresolvedNames, metric.WithDescription("Model names (each once) that resolved to no capability registry entry (text only)."))
		if err != nil {
			return nil, err
		}
		n.Add(context.Background(), 0)
		m.names = n
	}
	return m, nil
}

func (m *models) Capabilities(serviceID string) []string {
	return m.current().Capabilities(serviceID)
}

func (m *models) Formats(serviceID, fallbackProvider string) routing.Formats {
	return m.current().Formats(serviceID, fallbackProvider)
}

func (m *models) ExtractText(serviceID string) bool { return m.current().ExtractText(serviceID) }

// Decide is the registry's decision; a non-empty name that resolves to nothing is counted and
// logged (once per name per UnresolvedLogEvery).
func (m *models) Decide(serviceID string) contracts.ModelDecision {
	d := m.current().Decide(serviceID)
	if d.DecidedBy != contracts.DecidedByNone || serviceID == "" {
		return d
	}
	if m.unresolved != nil {
		m.unresolved.Add(context.Background(), 1)
	}
	due, first := m.due(serviceID)
	if first && m.names != nil {
		m.names.Add(context.Background(), 1)
	}
	if m.log != nil && due {
		m.log.Warn("model name resolves to no registry entry; it is treated as text only (see `worker models explain`)",
			"service_id", serviceID)
	}
	return d
}

// due reports whether name may be logged now, and notes that it is; first, whether the name was
// not remembered (new, or forgotten since).
func (m *models) due(name string) (due, first bool) {
	if len(name) > 256 {
		name = name[:256]
	}
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	last, ok := m.logged[name]
	if ok && now.Sub(last) < UnresolvedLogEvery {
		return false, false
	}
	if !ok && len(m.logged) >= maxUnresolvedNames {
		for n, last := range m.logged {
			if now.Sub(last) >= UnresolvedLogEvery {
				delete(m.logged, n)
			}
		}
		if len(m.logged) >= maxUnresolvedNames {
			return false, true // not remembered: counted as new each time, never logged on its own
		}
	}
	m.logged[name] = now
	return true, !ok
}
