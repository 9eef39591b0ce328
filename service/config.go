package service

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Config is the worker's whole configuration. cmd/worker fills it from flags and environment
// variables (the names are in the field comments); Validate names every bad setting.
type Config struct {
	NATSURL   string // NATS_URL; empty: embedded nats-server with JetStream on EmbeddedNATSAddr
	NATSCreds string // NATS_CREDS: path of a .creds file
	// EmbeddedNATSAddr is where the embedded server listens (default 127.0.0.1:4222).
	EmbeddedNATSAddr string // EMBEDDED_NATS_ADDR

	S3Endpoint  string // S3_ENDPOINT; empty: local directory store under DataDir
	S3AccessKey string // S3_ACCESS_KEY
	S3SecretKey string // S3_SECRET_KEY
	S3Bucket    string // S3_BUCKET (default artifacts)
	S3UseSSL    bool   // S3_USE_SSL
	S3Region    string // S3_REGION

	DataDir         string // DATA_DIR (default ./data)
	LLMServicesFile string // LLM_SERVICES_FILE; empty: the built-in registry
	HTTPAddr        string // HTTP_ADDR (default 127.0.0.1:8080)
	HTTPToken       string // HTTP_TOKEN: bearer token for /artifacts/*

	MaxArtifactSize int64         // MAX_ARTIFACT_BYTES (default 20 MB)
	StreamMaxAge    time.Duration // STREAM_MAX_AGE (default 24h)
	AckWait         time.Duration // ACK_WAIT (default 60s)
	MaxDeliver      int           // MAX_DELIVER (default 5)
	Concurrency     int           // CONCURRENCY: requests per subject per replica (default 4)
	DrainTimeout    time.Duration // DRAIN_TIMEOUT (default 30s)
	HandlerTimeout  time.Duration // HANDLER_TIMEOUT: one attempt at a request (default ACK_WAIT/3, below ACK_WAIT/2)
	HistoryTTL      time.Duration // HISTORY_IMAGE_TTL (default 2h)
	ClaimTTL        time.Duration // CLAIM_CHECK_TTL (default 1h)

	LogLevel string // LOG_LEVEL: debug, info, warn, error (default info)
	LogJSON  bool   // LOG_FORMAT=json (default) or text

	OTLPEnabled  bool // set when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
	OTelDisabled bool // OTEL_SDK_DISABLED
}

// SetDefaults fills unset fields.
func (c *Config) SetDefaults() {
	if c.EmbeddedNATSAddr == "" {
		c.EmbeddedNATSAddr = "127.0.0.1:4222"
	}
	if c.S3Bucket == "" {
		c.S3Bucket = "artifacts"
	}
	if c.DataDir == "" {
		c.DataDir = "./data"
	}
	if c.HTTPAddr == "" {
		c.HTTPAddr = "127.0.0.1:8080"
	}
	if c.MaxArtifactSize == 0 {
		c.MaxArtifactSize = 20 << 20
	}
	if c.StreamMaxAge == 0 {
		c.StreamMaxAge = 24 * time.Hour
	}
	if c.AckWait == 0 {
		c.AckWait = 60 * time.Second
	}
	if c.MaxDeliver == 0 {
		c.MaxDeliver = 5
	}
	if c.Concurrency == 0 {
		c.Concurrency = 4
	}
	if c.DrainTimeout == 0 {
		c.DrainTimeout = 30 * time.Second
	}
	if c.HistoryTTL == 0 {
		c.HistoryTTL = 2 * time.Hour
	}
	if c.ClaimTTL == 0 {
		c.ClaimTTL = time.Hour
	}
	if c.LogLevel == "" {
		c.LogLevel = "info"
	}
}

// Validate reports every invalid setting at once, each by its environment variable name.
func (c Config) Validate() error {
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", name, fmt.Sprintf(format, args...)))
	}
	if c.NATSURL != "" {
		for _, u := range strings.Split(c.NATSURL, ",") {
			pu, err := url.Parse(strings.TrimSpace(u))
			if err != nil || pu.Host == "" || !oneOf(pu.Scheme, "nats", "tls", "ws", "wss") {
				bad("NATS_URL", "%q is not a nats://host:port URL", u)
			}
		}
	} else if _, _, err := net.SplitHostPort(c.EmbeddedNATSAddr); err != nil {
		bad("EMBEDDED_NATS_ADDR", "%q is not host:port", c.EmbeddedNATSAddr)
	}
	if c.NATSCreds != "" && c.NATSURL == "" {
		bad("NATS_CREDS", "set without NATS_URL (the embedded server takes no credentials)")
	}
	if c.S3Endpoint != "" {
		if strings.Contains(c.S3Endpoint, "/") {
			bad("S3_ENDPOINT", "%q must be host:port without a scheme or path (use S3_USE_SSL for https)", c.S3Endpoint)
		}
		if c.S3AccessKey == "" {
			bad("S3_ACCESS_KEY", "required when S3_ENDPOINT is set")
		}
		if c.S3SecretKey == "" {
			bad("S3_SECRET_KEY", "required when S3_ENDPOINT is set")
		}
	}
	if l := len(c.S3Bucket); l < 3 || l > 63 || strings.ToLower(c.S3Bucket) != c.S3Bucket || strings.ContainsAny(c.S3Bucket, "_ /") {
		bad("S3_BUCKET", "%q is not a valid bucket name (3-63 lower-case letters, digits, '-' or '.')", c.S3Bucket)
	}
	if _, _, err := net.SplitHostPort(c.HTTPAddr); err != nil {
		bad("HTTP_ADDR", "%q is not host:port", c.HTTPAddr)
	}
	if c.MaxArtifactSize < 1 {
		bad("MAX_ARTIFACT_BYTES", "must be positive, got %d", c.MaxArtifactSize)
	}
	if c.StreamMaxAge < time.Minute {
		bad("STREAM_MAX_AGE", "must be at least 1m, got %s", c.StreamMaxAge)
	}
	if c.AckWait < 3*time.Second {
		bad("ACK_WAIT", "must be at least 3s, got %s", c.AckWait)
	}
	if c.MaxDeliver < 1 {
		bad("MAX_DELIVER", "must be at least 1, got %d", c.MaxDeliver)
	}
	if c.Concurrency < 1 || c.Concurrency > 256 {
		bad("CONCURRENCY", "must be 1..256, got %d", c.Concurrency)
	}
	if c.HandlerTimeout < 0 || (c.HandlerTimeout > 0 && 2*c.HandlerTimeout >= c.AckWait) {
		bad("HANDLER_TIMEOUT", "must be positive and below half of ACK_WAIT (%s), got %s", c.AckWait, c.HandlerTimeout)
	}
	if c.DrainTimeout < time.Second {
		bad("DRAIN_TIMEOUT", "must be at least 1s, got %s", c.DrainTimeout)
	}
	if c.HistoryTTL < time.Second {
		bad("HISTORY_IMAGE_TTL", "must be at least 1s, got %s", c.HistoryTTL)
	}
	if c.ClaimTTL < time.Minute {
		bad("CLAIM_CHECK_TTL", "must be at least 1m, got %s", c.ClaimTTL)
	}
	if !oneOf(c.LogLevel, "debug", "info", "warn", "error") {
		bad("LOG_LEVEL", "%q is not one of debug, info, warn, error", c.LogLevel)
	}
	return errors.Join(errs...)
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}
