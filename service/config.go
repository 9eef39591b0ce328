package service

import (
	"cmp"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nkeys"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/internal/quorum"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/pdfpages"
)

// Config is the worker's whole configuration. cmd/worker fills it from flags and environment
// variables (the names are in the field comments); Validate names every bad setting.
type Config struct {
	NATSURL   string // NATS_URL; empty: embedded nats-server with JetStream on EmbeddedNATSAddr
	NATSCreds string // NATS_CREDS: path of a .creds file (NKey/JWT user)
	// NATSTLSCA is a PEM file of the CAs that sign the NATS servers' certificates (default: the
	// system roots); NATSTLSCert and NATSTLSKey are a client certificate for servers that verify
	// clients (both or neither).
	NATSTLSCA   string // NATS_TLS_CA
	NATSTLSCert string // NATS_TLS_CERT
	NATSTLSKey  string // NATS_TLS_KEY
	// JetStreamReplicas is the replica count of every stream, KV bucket and object store the
	// worker creates: 1 on a single server, 3 on a 3-node cluster (at most the cluster's size).
	JetStreamReplicas int // JETSTREAM_REPLICAS (default 1)
	// EmbeddedNATSAddr is where the embedded server listens (default 127.0.0.1:4222).
	EmbeddedNATSAddr string // EMBEDDED_NATS_ADDR

	S3Endpoint  string // S3_ENDPOINT; empty: local directory store under DataDir
	S3AccessKey string // S3_ACCESS_KEY
	S3SecretKey string // S3_SECRET_KEY
	// S3Credentials is where S3 credentials come from: "static" (S3_ACCESS_KEY and S3_SECRET_KEY)
	// or "chain" (AWS_*/MINIO_* environment, web identity (IRSA), ECS or EC2 instance role).
	S3Credentials string // S3_CREDENTIALS (default static)
	S3Bucket      string // S3_BUCKET (default artifacts)
	S3UseSSL      bool   // S3_USE_SSL
	S3CAFile      string // S3_CA_FILE: PEM CAs for an S3 endpoint signed by a private CA (with S3_USE_SSL)
	S3Region      string // S3_REGION

	DataDir         string // DATA_DIR (default ./data)
	LLMServicesFile string // LLM_SERVICES_FILE; empty: the built-in registry
	HTTPAddr        string // HTTP_ADDR (default 127.0.0.1:8080)
	HTTPToken       string // HTTP_TOKEN: bearer token for /artifacts/*
	// HTTPScope is the scope (the Artifact-Worker-Scope grammar) of /artifacts requests made with
	// HTTP_TOKEN (default "*"); HTTPTokensFile holds more tokens, one "<token> <scope>" per line.
	HTTPScope      string // HTTP_SCOPE
	HTTPTokensFile string // HTTP_TOKENS_FILE
	// RequireScope answers a NATS request without the Artifact-Worker-Scope header invalid_request,
	// and requires every /artifacts token to have an explicit scope.
	RequireScope bool // REQUIRE_SCOPE
	// Tenants is the comma-separated allow-list of the tenants this pool also serves, each on its
	// own subjects (tenant.<name>.<subject>), keys, buckets and consumers (tenants.go); empty: none.
	Tenants string // TENANTS
	// TenantConcurrency is the requests per subject one replica works on at once for each tenant
	// (default 4): what one tenant's burst may take of a replica.
	TenantConcurrency int // TENANT_CONCURRENCY
	// TenantWorkSlots, with Tenants, is how many requests one replica works on at once across the
	// pool's own subjects and every tenant's (default the CPUs Go uses, GOMAXPROCS): while several
	// tenants are active each holds at most its share, granted in turn (messaging.Config.WorkSlots).
	TenantWorkSlots int // TENANT_WORK_SLOTS
	// TenantHistoryMaxBytes and TenantWorkspaceMaxBytes limit the size of each tenant's own
	// history-image buckets (each of HISTORY_IMAGES_<t> and HISTORY_IMAGES_BLOBS_<t>; default
	// 1 GiB) and workspace metadata bucket (WORKSPACE_FILES_<t>; default 256 MiB); -1: none. The
	// pool's own buckets have no limit.
	TenantHistoryMaxBytes   int64 // TENANT_HISTORY_MAX_BYTES
	TenantWorkspaceMaxBytes int64 // TENANT_WORKSPACE_MAX_BYTES

	MaxArtifactSize int64 // MAX_ARTIFACT_BYTES (default 20 MB)
	// ExtractMaxChars and ExtractTimeout bound text extraction (extract_text): characters kept
	// per document, and time spent on one document (below the handler's time for the request).
	ExtractMaxChars int           // EXTRACT_MAX_CHARS (default 100000)
	ExtractTimeout  time.Duration // EXTRACT_TIMEOUT (default 10s, at most half the handler's time)
	// RenderTimeout and PDFMaxPages bound a PDF sent as page images to a model that reads images
	// but takes no PDF (package pdfpages): the time spent drawing one document (below the
	// handler's time; the pages drawn by then are sent) and the pages sent for one request.
	RenderTimeout time.Duration // RENDER_TIMEOUT (default 15s, at most half the handler's time)
	PDFMaxPages   int           // PDF_MAX_PAGES (default 20, at most 1000)
	StreamMaxAge  time.Duration // STREAM_MAX_AGE (default 24h)
	// StreamMaxBytes bounds the request stream WORKER_REQUESTS; the oldest requests go first.
	StreamMaxBytes int64 // STREAM_MAX_BYTES (default 2 GiB, messaging.DefaultStreamMaxBytes; -1: none)
	// AckWait is how long a request stays with a replica that neither acks it nor reports it in
	// progress (every ACK_WAIT/3 while it works): the time a dead replica's requests wait.
	AckWait time.Duration // ACK_WAIT (default 10s)
	// NATSSwitchAfter is how long JetStream may go unanswered (timeouts, no responders) on a
	// connected server before the worker reconnects to another server of the cluster: a server cut
	// off from the others keeps its clients' connections up while every JetStream call through it
	// fails (internal/quorum). Negative: never.
	NATSSwitchAfter time.Duration // NATS_SWITCH_AFTER (default 4s)
	MaxDeliver      int           // MAX_DELIVER (default 5)
	Concurrency     int           // CONCURRENCY: requests per subject per replica (default 16)
	// MemoryBudget bounds, in bytes, what the requests a replica works on hold (internal/membudget):
	// a request that would take it over waits for room before it reads a large artifact or body.
	MemoryBudget   int64         // MEMORY_BUDGET (default 512 MiB; -1: none)
	DrainTimeout   time.Duration // DRAIN_TIMEOUT (default 30s)
	HandlerTimeout time.Duration // HANDLER_TIMEOUT: one attempt at a request (default 20s; a delivery gets 3x that)
	HistoryTTL     time.Duration // HISTORY_IMAGE_TTL (default 2h)
	// HistoryKeepTurns is how many of a context's latest turns keep their media in
	// context.preprocess when the request does not say (keep_turns).
	HistoryKeepTurns int           // HISTORY_KEEP_TURNS (default 1: the latest turn)
	ClaimTTL         time.Duration // CLAIM_CHECK_TTL (default 1h)
	ClaimMaxBytes    int64         // CLAIM_CHECK_MAX_BYTES: size limit of the claim-check bucket (default 1 GiB; -1: none)

	LogLevel string // LOG_LEVEL: debug, info, warn, error (default info)
	LogJSON  bool   // LOG_FORMAT=json (default) or text

	OTLPEnabled  bool // set when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is
	OTelDisabled bool // OTEL_SDK_DISABLED
}

// DefaultMemoryBudget is MEMORY_BUDGET's default: 512 MiB, three 20 MB artifacts at once
// (membudget.ArtifactFactor charges 8x an artifact's size) and up to CONCURRENCY small ones.
const DefaultMemoryBudget = 512 << 20

// SetDefaults fills unset fields.
func (c *Config) SetDefaults() {
	c.EmbeddedNATSAddr = cmp.Or(c.EmbeddedNATSAddr, "127.0.0.1:4222")
	c.S3Bucket = cmp.Or(c.S3Bucket, "artifacts")
	c.S3Credentials = cmp.Or(c.S3Credentials, S3CredentialsStatic)
	c.JetStreamReplicas = cmp.Or(c.JetStreamReplicas, 1)
	c.DataDir = cmp.Or(c.DataDir, "./data")
	c.HTTPAddr = cmp.Or(c.HTTPAddr, "127.0.0.1:8080")
	c.MaxArtifactSize = cmp.Or(c.MaxArtifactSize, 20<<20)
	c.ExtractMaxChars = cmp.Or(c.ExtractMaxChars, 100_000)
	c.StreamMaxAge = cmp.Or(c.StreamMaxAge, 24*time.Hour)
	c.StreamMaxBytes = cmp.Or(c.StreamMaxBytes, messaging.DefaultStreamMaxBytes)
	c.AckWait = cmp.Or(c.AckWait, messaging.DefaultAckWait)
	c.NATSSwitchAfter = cmp.Or(c.NATSSwitchAfter, quorum.DefaultAfter)
	c.MaxDeliver = cmp.Or(c.MaxDeliver, 5)
	c.Concurrency = cmp.Or(c.Concurrency, 16)
	c.TenantConcurrency = cmp.Or(c.TenantConcurrency, DefaultTenantConcurrency)
	c.TenantWorkSlots = cmp.Or(c.TenantWorkSlots, runtime.GOMAXPROCS(0))
	c.TenantHistoryMaxBytes = cmp.Or(c.TenantHistoryMaxBytes, DefaultTenantHistoryMaxBytes)
	c.TenantWorkspaceMaxBytes = cmp.Or(c.TenantWorkspaceMaxBytes, DefaultTenantWorkspaceMaxBytes)
	c.MemoryBudget = cmp.Or(c.MemoryBudget, DefaultMemoryBudget)
	c.DrainTimeout = cmp.Or(c.DrainTimeout, 30*time.Second)
	c.HistoryTTL = cmp.Or(c.HistoryTTL, 2*time.Hour)
	c.HistoryKeepTurns = cmp.Or(c.HistoryKeepTurns, 1)
	c.ClaimTTL = cmp.Or(c.ClaimTTL, time.Hour)
	c.ClaimMaxBytes = cmp.Or(c.ClaimMaxBytes, claimcheck.DefaultMaxBytes)
	c.LogLevel = cmp.Or(c.LogLevel, "info")
	// Last: its default depends on HandlerTimeout.
	c.ExtractTimeout = cmp.Or(c.ExtractTimeout, min(10*time.Second, c.handlerTime()/2))
	c.RenderTimeout = cmp.Or(c.RenderTimeout, min(pdfpages.DefaultTimeout, c.handlerTime()/2))
	c.PDFMaxPages = cmp.Or(c.PDFMaxPages, pdfpages.DefaultMaxPages)
}

// Renderer is the configuration of the PDF page renderer: its compilation cache under DATA_DIR,
// one module instance per request in flight up to the cores (drawing is CPU work), RENDER_TIMEOUT
// and PDF_MAX_PAGES.
func (c Config) Renderer() pdfpages.Config {
	return pdfpages.Config{
		CacheDir:  filepath.Join(c.DataDir, "wasm-cache"),
		Instances: max(1, min(c.Concurrency, runtime.NumCPU())),
		Timeout:   c.RenderTimeout,
		MaxPages:  c.PDFMaxPages,
	}
}

// handlerTime is the time one attempt at a request has: HANDLER_TIMEOUT, else its default.
func (c Config) handlerTime() time.Duration {
	return cmp.Or(c.HandlerTimeout, messaging.DefaultHandlerTimeout)
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
	for _, f := range []struct {
		name, path string
		check      func([]byte) error
	}{
		{"NATS_CREDS", c.NATSCreds, credsFile}, {"NATS_TLS_CA", c.NATSTLSCA, certificates}, {"NATS_TLS_CERT", c.NATSTLSCert, certificates}, {"NATS_TLS_KEY", c.NATSTLSKey, privateKey},
	} {
		if f.path != "" && c.NATSURL == "" {
			bad(f.name, "set without NATS_URL (the embedded server takes no credentials and no TLS)")
		} else if f.path != "" {
			fileOf(bad, f.name, f.path, f.check)
		}
	}
	if (c.NATSTLSCert == "") != (c.NATSTLSKey == "") {
		bad("NATS_TLS_CERT", "NATS_TLS_CERT and NATS_TLS_KEY go together (a client certificate and its key)")
	} else if c.NATSTLSCert != "" && c.NATSURL != "" && fileOf(nil, "", c.NATSTLSCert, certificates) == nil && fileOf(nil, "", c.NATSTLSKey, privateKey) == nil {
		if _, err := tls.LoadX509KeyPair(c.NATSTLSCert, c.NATSTLSKey); err != nil {
			bad("NATS_TLS_KEY", "%s is not the key of the certificate in NATS_TLS_CERT: %v", c.NATSTLSKey, err)
		}
	}
	if c.JetStreamReplicas < 1 || c.JetStreamReplicas > 5 {
		bad("JETSTREAM_REPLICAS", "must be 1..5 (at most the number of NATS servers), got %d", c.JetStreamReplicas)
	}
	if c.JetStreamReplicas > 1 && c.NATSURL == "" {
		bad("JETSTREAM_REPLICAS", "%d needs a NATS cluster (NATS_URL); the embedded server is a single node", c.JetStreamReplicas)
	}
	if c.S3Endpoint != "" {
		if strings.Contains(c.S3Endpoint, "/") {
			bad("S3_ENDPOINT", "%q must be host:port without a scheme or path (use S3_USE_SSL for https)", c.S3Endpoint)
		}
		switch c.S3Credentials {
		case S3CredentialsStatic:
			if c.S3AccessKey == "" {
				bad("S3_ACCESS_KEY", "required when S3_ENDPOINT is set (or S3_CREDENTIALS=chain)")
			}
			if c.S3SecretKey == "" {
				bad("S3_SECRET_KEY", "required when S3_ENDPOINT is set (or S3_CREDENTIALS=chain)")
			}
		case S3CredentialsChain:
			if c.S3AccessKey != "" || c.S3SecretKey != "" {
				bad("S3_CREDENTIALS", "chain takes the keys from the environment or the platform: unset S3_ACCESS_KEY and S3_SECRET_KEY")
			}
		default:
			bad("S3_CREDENTIALS", "%q is not static or chain", c.S3Credentials)
		}
	}
	if c.S3CAFile != "" {
		if !c.S3UseSSL || c.S3Endpoint == "" {
			bad("S3_CA_FILE", "set without S3_ENDPOINT and S3_USE_SSL=true")
		}
		fileOf(bad, "S3_CA_FILE", c.S3CAFile, certificates)
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
	if c.StreamMaxBytes != -1 && c.StreamMaxBytes < messaging.MinStreamMaxBytes {
		bad("STREAM_MAX_BYTES", "must be at least %d (64 MiB), or -1 for no limit, got %d", messaging.MinStreamMaxBytes, c.StreamMaxBytes)
	}
	if c.NATSSwitchAfter > 0 && c.NATSSwitchAfter < time.Second {
		bad("NATS_SWITCH_AFTER", "must be at least 1s (or negative: never), got %s", c.NATSSwitchAfter)
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
	if c.MemoryBudget != -1 && c.MemoryBudget < 16<<20 {
		bad("MEMORY_BUDGET", "must be at least 16777216 (16 MiB), or -1 for no budget, got %d", c.MemoryBudget)
	}
	if c.HandlerTimeout < 0 || (c.HandlerTimeout > 0 && c.HandlerTimeout < time.Second) {
		bad("HANDLER_TIMEOUT", "must be at least 1s, got %s", c.HandlerTimeout)
	}
	if c.ExtractMaxChars < 1 || c.ExtractMaxChars > 10_000_000 {
		bad("EXTRACT_MAX_CHARS", "must be 1..10000000, got %d", c.ExtractMaxChars)
	}
	if handlerTime := c.handlerTime(); c.RenderTimeout <= 0 || c.RenderTimeout >= handlerTime {
		bad("RENDER_TIMEOUT", "must be positive and below HANDLER_TIMEOUT (%s), got %s", handlerTime, c.RenderTimeout)
	}
	if c.PDFMaxPages < 1 || c.PDFMaxPages > pdfpages.MaxMaxPages {
		bad("PDF_MAX_PAGES", "must be 1..%d, got %d", pdfpages.MaxMaxPages, c.PDFMaxPages)
	}
	if handlerTime := c.handlerTime(); c.ExtractTimeout <= 0 || c.ExtractTimeout >= handlerTime {
		bad("EXTRACT_TIMEOUT", "must be positive and below HANDLER_TIMEOUT (%s), got %s", handlerTime, c.ExtractTimeout)
	}
	if c.DrainTimeout < time.Second {
		bad("DRAIN_TIMEOUT", "must be at least 1s, got %s", c.DrainTimeout)
	}
	if c.HistoryKeepTurns < 1 || c.HistoryKeepTurns > 10000 {
		bad("HISTORY_KEEP_TURNS", "must be 1..10000, got %d", c.HistoryKeepTurns)
	}
	if c.HistoryTTL < time.Second {
		bad("HISTORY_IMAGE_TTL", "must be at least 1s, got %s", c.HistoryTTL)
	}
	if c.ClaimTTL < time.Minute {
		bad("CLAIM_CHECK_TTL", "must be at least 1m, got %s", c.ClaimTTL)
	}
	if c.ClaimMaxBytes != -1 && c.ClaimMaxBytes < 1<<20 {
		bad("CLAIM_CHECK_MAX_BYTES", "must be at least 1048576 (1 MiB), or -1 for no limit, got %d", c.ClaimMaxBytes)
	}
	validateScopeSettings(c, bad)
	validateTenantSettings(c, bad)
	if !oneOf(c.LogLevel, "debug", "info", "warn", "error") {
		bad("LOG_LEVEL", "%q is not one of debug, info, warn, error", c.LogLevel)
	}
	return errors.Join(errs...)
}

// S3_CREDENTIALS values.
const (
	S3CredentialsStatic = "static"
	S3CredentialsChain  = "chain"
)

// fileOf reports a file setting whose file cannot be read or does not hold what it must (check): a
// missing, unreadable or non-PEM certificate or credentials file is a bad setting, found before any
// connection is tried instead of being retried like an outage. bad may be nil; the error is returned.
func fileOf(bad func(name, format string, args ...any), name, path string, check func([]byte) error) error {
	data, err := os.ReadFile(path)
	if err == nil {
		err = check(data)
		if err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
	}
	if err != nil && bad != nil {
		bad(name, "%v", err)
	}
	return err
}

// certificates checks for at least one PEM certificate, every certificate parsing.
func certificates(data []byte) error {
	n := 0
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if block.Type != "CERTIFICATE" {
			continue
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return fmt.Errorf("certificate %d: %w", n+1, err)
		}
		n++
	}
	if n == 0 {
		return errors.New("holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
	}
	return nil
}

// privateKey checks for a PEM private key.
func privateKey(data []byte) error {
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		if strings.HasSuffix(block.Type, "PRIVATE KEY") {
			return nil
		}
	}
	return errors.New("holds no PEM private key (-----BEGIN PRIVATE KEY-----)")
}

// credsFile checks for a NATS user's .creds file: a user JWT and an NKey seed.
func credsFile(data []byte) error {
	token, _ := nkeys.ParseDecoratedJWT(data) // the whole file when it has no JWT block
	if _, err := jwt.DecodeUserClaims(token); err != nil {
		return fmt.Errorf("not a .creds file (no user JWT): %w", err)
	}
	if _, err := nkeys.ParseDecoratedUserNKey(data); err != nil {
		return fmt.Errorf("not a .creds file (no user NKey seed): %w", err)
	}
	return nil
}

func oneOf(s string, options ...string) bool {
	for _, o := range options {
		if s == o {
			return true
		}
	}
	return false
}
