package service

import (
	"errors"
	"log/slog"
	"net/url"
	"strings"

	"github.com/agentworks/artifact-worker/internal/buildinfo"
	"github.com/agentworks/artifact-worker/telemetry"
)

// Stopped is the cause a caller gives the context of Run when a signal stops the worker; Run's
// shutdown log names it.
type Stopped struct{ Signal string }

func (s Stopped) Error() string { return "stopped by " + s.Signal }

// logStart writes the start-up line: what the worker is and where it connects, without secrets.
func logStart(log *slog.Logger, cfg Config, natsURL string, embedded bool, tel *telemetry.Telemetry) {
	attrs := []any{
		"version", buildinfo.Version,
		"commit", buildinfo.CommitOrUnknown(),
		"nats_url", redactURLs(natsURL),
		"embedded_nats", embedded,
		"nats_creds", cfg.NATSCreds != "",
	}
	if cfg.S3Endpoint != "" {
		attrs = append(attrs, "s3_endpoint", cfg.S3Endpoint, "s3_bucket", cfg.S3Bucket, "s3_tls", cfg.S3UseSSL)
	} else {
		attrs = append(attrs, "store", LocalStoreDir(cfg))
	}
	attrs = append(attrs, "otel", tel.Enabled, "otlp_traces", tel.Enabled && cfg.OTLPEnabled)
	if tel.Enabled {
		attrs = append(attrs, "service_name", tel.ServiceName())
	}
	log.Info("starting", attrs...)
}

// stopReason names what ended Run's context: the signal, or the cause.
func stopReason(cause error) []any {
	var s Stopped
	switch {
	case cause == nil:
		return nil
	case errors.As(cause, &s):
		return []any{"signal", s.Signal}
	default:
		return []any{"cause", cause.Error()}
	}
}

// redactURLs drops user names, passwords and tokens from a comma-separated list of NATS URLs.
func redactURLs(urls string) string {
	parts := strings.Split(urls, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if u, err := url.Parse(p); err == nil && u.User != nil {
			u.User = nil
			p = u.String()
		} else if err != nil && strings.Contains(p, "@") {
			p = "(unparsable URL with credentials)"
		}
		parts[i] = p
	}
	return strings.Join(parts, ",")
}
