package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/agentworks/artifact-worker/service"
)

// setting binds one service.Config field to an environment variable and a flag of the same meaning
// (NATS_URL and -nats-url). A flag given on the command line wins over the environment.
type setting struct {
	env   string
	usage string
	set   func(c *service.Config, v string) error
}

func str(p func(*service.Config) *string) func(*service.Config, string) error {
	return func(c *service.Config, v string) error { *p(c) = v; return nil }
}

func boolean(p func(*service.Config) *bool) func(*service.Config, string) error {
	return func(c *service.Config, v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%q is not true or false", v)
		}
		*p(c) = b
		return nil
	}
}

func integer(p func(*service.Config) *int) func(*service.Config, string) error {
	return func(c *service.Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%q is not a whole number", v)
		}
		*p(c) = n
		return nil
	}
}

func byteSize(p func(*service.Config) *int64) func(*service.Config, string) error {
	return func(c *service.Config, v string) error {
		n, err := service.ParseByteSize(v)
		if err != nil {
			return err
		}
		*p(c) = n
		return nil
	}
}

func duration(p func(*service.Config) *time.Duration) func(*service.Config, string) error {
	return func(c *service.Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%q is not a duration like 30s or 2h", v)
		}
		*p(c) = d
		return nil
	}
}

var settings = []setting{
	{"NATS_URL", "NATS server URL(s); empty starts an embedded nats-server", str(func(c *service.Config) *string { return &c.NATSURL })},
	{"NATS_CREDS", "NATS credentials file (.creds: user JWT and NKey seed)", str(func(c *service.Config) *string { return &c.NATSCreds })},
	{"NATS_TLS_CA", "PEM CA file for the NATS servers' certificates (default: system roots)", str(func(c *service.Config) *string { return &c.NATSTLSCA })},
	{"NATS_TLS_CERT", "PEM client certificate for NATS servers that verify clients (with NATS_TLS_KEY)", str(func(c *service.Config) *string { return &c.NATSTLSCert })},
	{"NATS_TLS_KEY", "PEM key of NATS_TLS_CERT", str(func(c *service.Config) *string { return &c.NATSTLSKey })},
	{"JETSTREAM_REPLICAS", "replicas of every stream, KV bucket and object store the worker creates (3 on a 3-node cluster)", integer(func(c *service.Config) *int { return &c.JetStreamReplicas })},
	{"EMBEDDED_NATS_ADDR", "listen address of the embedded nats-server", str(func(c *service.Config) *string { return &c.EmbeddedNATSAddr })},
	{"S3_ENDPOINT", "S3/MinIO host:port; empty uses a local directory store under DATA_DIR", str(func(c *service.Config) *string { return &c.S3Endpoint })},
	{"S3_ACCESS_KEY", "S3 access key", str(func(c *service.Config) *string { return &c.S3AccessKey })},
	{"S3_SECRET_KEY", "S3 secret key", str(func(c *service.Config) *string { return &c.S3SecretKey })},
	{"S3_CREDENTIALS", "static (S3_ACCESS_KEY/S3_SECRET_KEY) or chain (AWS_*/MINIO_* env, web identity/IRSA, ECS or EC2 role)", str(func(c *service.Config) *string { return &c.S3Credentials })},
	{"S3_BUCKET", "bucket holding artifacts/ and workspaces/", str(func(c *service.Config) *string { return &c.S3Bucket })},
	{"S3_USE_SSL", "use https for S3", boolean(func(c *service.Config) *bool { return &c.S3UseSSL })},
	{"S3_CA_FILE", "PEM CA file for an S3 endpoint with a private CA (with S3_USE_SSL)", str(func(c *service.Config) *string { return &c.S3CAFile })},
	{"S3_REGION", "S3 region", str(func(c *service.Config) *string { return &c.S3Region })},
	{"DATA_DIR", "directory for the embedded server and the local store", str(func(c *service.Config) *string { return &c.DataDir })},
	{"LLM_SERVICES_FILE", "capability registry (llmservices.json), reloaded on change; empty uses the built-in one", str(func(c *service.Config) *string { return &c.LLMServicesFile })},
	{"HTTP_ADDR", "listen address for /healthz, /readyz, /metrics and /artifacts", str(func(c *service.Config) *string { return &c.HTTPAddr })},
	{"HTTP_TOKEN", "bearer token required by /artifacts endpoints", str(func(c *service.Config) *string { return &c.HTTPToken })},
	{"HTTP_SCOPE", "scope of /artifacts requests made with HTTP_TOKEN (Artifact-Worker-Scope grammar; default *)", str(func(c *service.Config) *string { return &c.HTTPScope })},
	{"HTTP_TOKENS_FILE", "file of /artifacts bearer tokens, one \"<token> <scope>\" (or \"<token> tenant:<name> <scope>\") per line", str(func(c *service.Config) *string { return &c.HTTPTokensFile })},
	{"REQUIRE_SCOPE", "answer NATS requests without the Artifact-Worker-Scope header invalid_request; every /artifacts token needs a scope", boolean(func(c *service.Config) *bool { return &c.RequireScope })},
	{"TENANTS", "comma-separated tenants this pool also serves, each on its own subjects tenant.<name>.<subject>, keys and buckets (the NATS server's permissions decide who publishes there)", str(func(c *service.Config) *string { return &c.Tenants })},
	{"TENANT_CONCURRENCY", "requests per subject one replica handles at once for each tenant of TENANTS", integer(func(c *service.Config) *int { return &c.TenantConcurrency })},
	{"TENANT_WORK_SLOTS", "with TENANTS: requests one replica works on at once across all tenants; each active tenant holds at most its share, granted in turn (default GOMAXPROCS, the CPUs Go uses)", integer(func(c *service.Config) *int { return &c.TenantWorkSlots })},
	{"TENANT_HISTORY_MAX_BYTES", "size limit of each of a tenant's history-image buckets (bytes or 512MiB, 1GiB); images that do not fit stay in the context (-1: no limit)", byteSize(func(c *service.Config) *int64 { return &c.TenantHistoryMaxBytes })},
	{"TENANT_WORKSPACE_MAX_BYTES", "what the worker stores for a tenant's workspaces (file_written contents in S3 plus metadata); content that does not fit is refused payload_too_large before it is stored (-1: no limit)", byteSize(func(c *service.Config) *int64 { return &c.TenantWorkspaceMaxBytes })},
	{"MAX_ARTIFACT_BYTES", "largest artifact read; bigger ones are described", byteSize(func(c *service.Config) *int64 { return &c.MaxArtifactSize })},
	{"EXTRACT_MAX_CHARS", "most characters of text extracted from one document (extract_text); the rest is counted", integer(func(c *service.Config) *int { return &c.ExtractMaxChars })},
	{"EXTRACT_TIMEOUT", "time limit of text extraction from one document (below HANDLER_TIMEOUT)", duration(func(c *service.Config) *time.Duration { return &c.ExtractTimeout })},
	{"RENDER_TIMEOUT", "time limit of drawing one PDF's pages as images for a model that takes no PDF (below HANDLER_TIMEOUT); the pages drawn by then are sent", duration(func(c *service.Config) *time.Duration { return &c.RenderTimeout })},
	{"PDF_MAX_PAGES", "most PDF pages sent as images for one request (the provider's image limit may lower it)", integer(func(c *service.Config) *int { return &c.PDFMaxPages })},
	{"STREAM_MAX_AGE", "how long requests stay in the stream for replay", duration(func(c *service.Config) *time.Duration { return &c.StreamMaxAge })},
	{"STREAM_MAX_BYTES", "size limit of the request stream WORKER_REQUESTS (bytes or 512MiB, 2GiB); the oldest requests go first (-1: no limit)", byteSize(func(c *service.Config) *int64 { return &c.StreamMaxBytes })},
	{"NATS_SWITCH_AFTER", "how long JetStream may go unanswered on a connected NATS server before the worker reconnects to another (a server cut off from its cluster; default 4s, negative: never)", duration(func(c *service.Config) *time.Duration { return &c.NATSSwitchAfter })},
	{"ACK_WAIT", "JetStream AckWait of the consumers: how long a dead replica's requests wait (default 10s)", duration(func(c *service.Config) *time.Duration { return &c.AckWait })},
	{"MAX_DELIVER", "deliveries before a failing request is dead-lettered", integer(func(c *service.Config) *int { return &c.MaxDeliver })},
	{"CONCURRENCY", "requests per subject one replica handles at once", integer(func(c *service.Config) *int { return &c.Concurrency })},
	{"MEMORY_BUDGET", "bytes the requests one replica works on may hold (8x each artifact read, 2x each claim-checked body); a request that would exceed it waits (-1: no budget)", byteSize(func(c *service.Config) *int64 { return &c.MemoryBudget })},
	{"DRAIN_TIMEOUT", "how long SIGTERM waits for in-flight requests", duration(func(c *service.Config) *time.Duration { return &c.DrainTimeout })},
	{"HANDLER_TIMEOUT", "one attempt at a request (default 20s; a delivery is worked on for at most 3x that)", duration(func(c *service.Config) *time.Duration { return &c.HandlerTimeout })},
	{"HISTORY_IMAGE_TTL", "how long history images stay cached", duration(func(c *service.Config) *time.Duration { return &c.HistoryTTL })},
	{"HISTORY_KEEP_TURNS", "latest turns of a context that keep their media in context.preprocess (a request's keep_turns wins)", integer(func(c *service.Config) *int { return &c.HistoryKeepTurns })},
	{"CLAIM_CHECK_TTL", "how long claim-checked bodies nobody deleted are kept (readers delete them)", duration(func(c *service.Config) *time.Duration { return &c.ClaimTTL })},
	{"CLAIM_CHECK_MAX_BYTES", "size limit of the claim-check bucket in bytes; a body that does not fit is retried, then answered unavailable (-1: no limit)", byteSize(func(c *service.Config) *int64 { return &c.ClaimMaxBytes })},
	{"LOG_LEVEL", "debug, info, warn or error", str(func(c *service.Config) *string { return &c.LogLevel })},
	{"LOG_FORMAT", "json or text", func(c *service.Config, v string) error {
		switch v {
		case "json":
			c.LogJSON = true
		case "text":
			c.LogJSON = false
		default:
			return fmt.Errorf("%q is not json or text", v)
		}
		return nil
	}},
	// The OTel specification: "true" in any case disables the SDK; every other value leaves it on.
	{"OTEL_SDK_DISABLED", "true disables OpenTelemetry (traces and the worker_* metrics); any other value leaves it on", func(c *service.Config, v string) error {
		c.OTelDisabled = strings.EqualFold(strings.TrimSpace(v), "true")
		return nil
	}},
}

func flagName(env string) string { return strings.ReplaceAll(strings.ToLower(env), "_", "-") }

// loadConfig builds the configuration from the environment and then the command-line flags. Every
// bad value is reported, each by its variable name. It returns the remaining arguments.
func loadConfig(fs *flag.FlagSet, args []string, getenv func(string) string) (service.Config, []string, error) {
	cfg := service.Config{LogJSON: true}
	flags := make(map[string]*string, len(settings))
	for _, s := range settings {
		flags[s.env] = fs.String(flagName(s.env), "", s.usage+" (env "+s.env+")")
	}
	if err := fs.Parse(args); err != nil {
		return cfg, nil, err
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	for _, s := range settings {
		v, from := getenv(s.env), s.env
		if given[flagName(s.env)] {
			v, from = *flags[s.env], "-"+flagName(s.env)
		}
		if v == "" {
			continue
		}
		if err := s.set(&cfg, v); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", from, err))
		}
	}
	cfg.OTLPEnabled = getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
	cfg.SetDefaults()
	if err := errors.Join(errs...); err != nil {
		return cfg, nil, err
	}
	return cfg, fs.Args(), namedAsGiven(cfg.Validate(), given)
}

// namedAsGiven rewrites the lines of a Validate error that name a setting given as a flag to name
// the flag: the operator sees what they wrote (-memory-budget, not MEMORY_BUDGET).
func namedAsGiven(err error, given map[string]bool) error {
	if err == nil {
		return nil
	}
	lines := strings.Split(err.Error(), "\n")
	changed := false
	for i, line := range lines {
		env, rest, ok := strings.Cut(line, ": ")
		if ok && given[flagName(env)] {
			lines[i], changed = "-"+flagName(env)+": "+rest, true
		}
	}
	if !changed {
		return err
	}
	return errors.New(strings.Join(lines, "\n"))
}

// settingWarnings names values that are accepted but probably not what was meant. OTEL_SDK_DISABLED
// other than true or false leaves OpenTelemetry on, as the OTel specification says, with a warning.
func settingWarnings(getenv func(string) string) []string {
	var out []string
	if v := strings.TrimSpace(getenv("OTEL_SDK_DISABLED")); v != "" && !strings.EqualFold(v, "true") && !strings.EqualFold(v, "false") {
		out = append(out, fmt.Sprintf("OTEL_SDK_DISABLED=%q is neither true nor false: OpenTelemetry stays on", v))
	}
	return out
}
