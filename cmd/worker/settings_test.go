package main

import (
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/internal/testing/testcerts"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadConfigDefaultsToTheEmbeddedSetup(t *testing.T) {
	cfg, rest, err := loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.NATSURL != "" || cfg.S3Endpoint != "" || cfg.DataDir != "./data" || cfg.HTTPAddr != "127.0.0.1:8080" ||
		cfg.S3Bucket != "artifacts" || cfg.MaxArtifactSize != 20<<20 || cfg.StreamMaxAge != 24*time.Hour || !cfg.LogJSON || len(rest) != 0 {
		t.Fatalf("defaults = %+v", cfg)
	}
}

func TestLoadConfigFlagsOverrideEnvironment(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	cfg, rest, err := loadConfig(fs, []string{"-concurrency", "9", "file.png"}, env(map[string]string{
		"CONCURRENCY": "3", "NATS_URL": "nats://n1:4222", "STREAM_MAX_AGE": "2h", "S3_USE_SSL": "true",
		"S3_ENDPOINT": "minio:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "s", "LOG_FORMAT": "text",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Concurrency != 9 || cfg.NATSURL != "nats://n1:4222" || cfg.StreamMaxAge != 2*time.Hour || !cfg.S3UseSSL || cfg.LogJSON {
		t.Fatalf("cfg = %+v", cfg)
	}
	if len(rest) != 1 || rest[0] != "file.png" {
		t.Fatalf("rest = %v", rest)
	}
}

// Every bad setting is reported at once, each by its name.
func TestLoadConfigNamesEveryBadSetting(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, _, err := loadConfig(fs, []string{"-http-addr", "nonsense"}, env(map[string]string{
		"NATS_URL":       "http://wrong",
		"ACK_WAIT":       "soon",
		"CONCURRENCY":    "0",
		"S3_ENDPOINT":    "minio:9000",
		"S3_BUCKET":      "Bad_Bucket",
		"LOG_LEVEL":      "loud",
		"S3_USE_SSL":     "maybe",
		"MAX_DELIVER":    "-1",
		"STREAM_MAX_AGE": "1s",
	}))
	if err == nil {
		t.Fatal("bad settings accepted")
	}
	// Values that do not parse are reported first; fix them and the rest is validated.
	for _, name := range []string{"ACK_WAIT", "S3_USE_SSL"} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
	_, _, err = loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-http-addr", "nonsense"}, env(map[string]string{
		"NATS_URL": "http://wrong", "CONCURRENCY": "-2", "S3_ENDPOINT": "minio:9000", "S3_BUCKET": "Bad_Bucket",
		"LOG_LEVEL": "loud", "MAX_DELIVER": "-1", "STREAM_MAX_AGE": "1s",
	}))
	for _, name := range []string{"NATS_URL", "CONCURRENCY", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_BUCKET", "LOG_LEVEL", "MAX_DELIVER", "STREAM_MAX_AGE", "-http-addr: "} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
}

func TestFlagsFirst(t *testing.T) {
	got := flagsFirst([]string{"file.png", "--id", "x", "--mime=image/png", "--", "-odd"})
	want := "--id x --mime=image/png file.png -odd"
	if strings.Join(got, " ") != want {
		t.Fatalf("flagsFirst = %q, want %q", strings.Join(got, " "), want)
	}
}

func TestWithRequestID(t *testing.T) {
	if got := string(withRequestID([]byte(`{"request_id":"mine","ref":"a"}`))); got != `{"request_id":"mine","ref":"a"}` {
		t.Errorf("kept id: %s", got)
	}
	if got := string(withRequestID([]byte(`{"ref":"a"}`))); !strings.Contains(got, `"request_id":"call-`) {
		t.Errorf("added id: %s", got)
	}
	if got := string(withRequestID([]byte(`not json`))); got != "not json" {
		t.Errorf("non-object changed: %s", got)
	}
}

func TestWithField(t *testing.T) {
	if got := string(withField([]byte(`{"ref":"a","media":"both"}`), "media", "assembly")); got != `{"media":"assembly","ref":"a"}` {
		t.Errorf("set media: %s", got)
	}
	if got := string(withField([]byte(`[1]`), "media", "assembly")); got != "[1]" {
		t.Errorf("non-object changed: %s", got)
	}
}

// The TLS, credentials and clustering settings: files must be readable and hold what they must
// (PEM certificates, a matching key, a .creds file), pairs go together, and the embedded server (a
// single node without TLS) takes none of them.
func TestLoadConfigSecuritySettings(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certPEM, keyPEM := testcerts.SelfSigned(t)
	credsData := testcerts.UserCreds(t)
	ca, key, creds := write("ca.pem", certPEM), write("key.pem", keyPEM), write("user.creds", credsData)
	notPEM := write("not.pem", []byte("pem"))
	missing := filepath.Join(dir, "missing.pem")
	tests := []struct {
		name string
		env  map[string]string
		bad  []string // settings the error names; none: accepted
	}{
		{"cluster with TLS and creds", map[string]string{"NATS_URL": "tls://n1:4222,tls://n2:4222", "NATS_TLS_CA": ca, "NATS_CREDS": creds, "JETSTREAM_REPLICAS": "3"}, nil},
		{"client certificate pair", map[string]string{"NATS_URL": "tls://n1:4222", "NATS_TLS_CERT": ca, "NATS_TLS_KEY": key}, nil},
		{"files that are not PEM or creds", map[string]string{"NATS_URL": "tls://n1:4222", "NATS_TLS_CA": notPEM, "NATS_CREDS": ca, "NATS_TLS_CERT": key, "NATS_TLS_KEY": ca}, []string{"NATS_TLS_CA", "NATS_CREDS", "NATS_TLS_CERT", "NATS_TLS_KEY"}},
		{"S3 CA not PEM", map[string]string{"S3_ENDPOINT": "s3:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "s", "S3_USE_SSL": "true", "S3_CA_FILE": notPEM}, []string{"S3_CA_FILE"}},
		{"certificate without key", map[string]string{"NATS_URL": "tls://n1:4222", "NATS_TLS_CERT": ca}, []string{"NATS_TLS_CERT"}},
		{"missing files", map[string]string{"NATS_URL": "tls://n1:4222", "NATS_TLS_CA": missing, "NATS_CREDS": missing}, []string{"NATS_TLS_CA", "NATS_CREDS"}},
		{"TLS on the embedded server", map[string]string{"NATS_TLS_CA": ca}, []string{"NATS_TLS_CA"}},
		{"replicas on the embedded server", map[string]string{"JETSTREAM_REPLICAS": "3"}, []string{"JETSTREAM_REPLICAS"}},
		{"replicas out of range", map[string]string{"NATS_URL": "nats://n1:4222", "JETSTREAM_REPLICAS": "7"}, []string{"JETSTREAM_REPLICAS"}},
		{"S3 over TLS with a private CA", map[string]string{"S3_ENDPOINT": "s3:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "s", "S3_USE_SSL": "true", "S3_CA_FILE": ca}, nil},
		{"S3 CA without TLS", map[string]string{"S3_ENDPOINT": "s3:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "s", "S3_CA_FILE": ca}, []string{"S3_CA_FILE"}},
		{"S3 credential chain", map[string]string{"S3_ENDPOINT": "s3.amazonaws.com", "S3_USE_SSL": "true", "S3_CREDENTIALS": "chain"}, nil},
		{"S3 chain with static keys", map[string]string{"S3_ENDPOINT": "s3:9000", "S3_ACCESS_KEY": "a", "S3_SECRET_KEY": "s", "S3_CREDENTIALS": "chain"}, []string{"S3_CREDENTIALS"}},
		{"S3 credentials unknown", map[string]string{"S3_ENDPOINT": "s3:9000", "S3_CREDENTIALS": "vault"}, []string{"S3_CREDENTIALS"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.env["DATA_DIR"] = dir
			_, _, err := loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil, env(tt.env))
			if len(tt.bad) == 0 {
				if err != nil {
					t.Fatalf("rejected: %v", err)
				}
				return
			}
			for _, name := range tt.bad {
				if err == nil || !strings.Contains(err.Error(), name) {
					t.Errorf("error does not name %s: %v", name, err)
				}
			}
		})
	}
}

// OTEL_SDK_DISABLED as the OTel specification reads it: "true" in any case disables, any other value
// (including one that is not a boolean) leaves the SDK on and is not a bad setting.
func TestOTelSDKDisabledFollowsTheSpecification(t *testing.T) {
	for v, want := range map[string]bool{"true": true, "TRUE": true, " True ": true, "false": false, "1": false, "yes": false, "": false} {
		cfg, _, err := loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil, env(map[string]string{"OTEL_SDK_DISABLED": v}))
		if err != nil {
			t.Fatalf("OTEL_SDK_DISABLED=%q: %v", v, err)
		}
		if cfg.OTelDisabled != want {
			t.Errorf("OTEL_SDK_DISABLED=%q: disabled=%v, want %v", v, cfg.OTelDisabled, want)
		}
		// The specification: a value other than true or false is warned about.
		warned := len(settingWarnings(env(map[string]string{"OTEL_SDK_DISABLED": v}))) > 0
		if wantWarn := v == "1" || v == "yes"; warned != wantWarn {
			t.Errorf("OTEL_SDK_DISABLED=%q: warned=%v, want %v", v, warned, wantWarn)
		}
	}
}

func TestLoadConfigExtractionLimits(t *testing.T) {
	cfg, _, err := loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ExtractMaxChars != 100_000 || cfg.ExtractTimeout != 10*time.Second {
		t.Errorf("defaults: EXTRACT_MAX_CHARS %d, EXTRACT_TIMEOUT %s; want 100000, 10s", cfg.ExtractMaxChars, cfg.ExtractTimeout)
	}
	// A short handler time shortens the default extraction time to half of it.
	cfg, _, err = loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil, env(map[string]string{"HANDLER_TIMEOUT": "4s"}))
	if err != nil || cfg.ExtractTimeout != 2*time.Second {
		t.Errorf("HANDLER_TIMEOUT 4s: EXTRACT_TIMEOUT %s (%v), want 2s", cfg.ExtractTimeout, err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, _, err = loadConfig(fs, nil, env(map[string]string{"EXTRACT_MAX_CHARS": "-5", "EXTRACT_TIMEOUT": "30s", "HANDLER_TIMEOUT": "20s"}))
	for _, name := range []string{"EXTRACT_MAX_CHARS", "EXTRACT_TIMEOUT"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("error does not name %s:\n%v", name, err)
		}
	}
}

// Sizes as operators write them: bytes, or a number with a unit; a bad one is named by the variable
// or flag it came from.
func TestLoadConfigSizesWithUnits(t *testing.T) {
	cfg, _, err := loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-claim-check-max-bytes", "200MB"}, env(map[string]string{
		"MEMORY_BUDGET": "128MiB", "MAX_ARTIFACT_BYTES": "20971520", "STREAM_MAX_BYTES": "1.5GiB",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MemoryBudget != 128<<20 || cfg.MaxArtifactSize != 20<<20 || cfg.StreamMaxBytes != 3<<29 || cfg.ClaimMaxBytes != 200_000_000 {
		t.Fatalf("sizes: budget %d, artifact %d, stream %d, claims %d", cfg.MemoryBudget, cfg.MaxArtifactSize, cfg.StreamMaxBytes, cfg.ClaimMaxBytes)
	}
	if cfg, _, err := loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil, env(nil)); err != nil || cfg.StreamMaxBytes != 2<<30 {
		t.Fatalf("STREAM_MAX_BYTES default %d (%v), want 2 GiB", cfg.StreamMaxBytes, err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	_, _, err = loadConfig(fs, []string{"-memory-budget", "lots"}, env(map[string]string{"STREAM_MAX_BYTES": "2 gigabytes"}))
	for _, want := range []string{`-memory-budget: "lots" is not a size`, `STREAM_MAX_BYTES: "2 gigabytes" is not a size: unknown unit "gigabytes"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
	_, _, err = loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), nil, env(map[string]string{"STREAM_MAX_BYTES": "1MiB"}))
	if err == nil || !strings.Contains(err.Error(), "STREAM_MAX_BYTES: must be at least 67108864 (64 MiB)") {
		t.Errorf("a 1 MiB stream: %v", err)
	}
	// A value refused by validation is named as the operator gave it: the flag, when it was a flag.
	_, _, err = loadConfig(flag.NewFlagSet("t", flag.ContinueOnError), []string{"-stream-max-bytes", "1MiB"}, env(map[string]string{"MEMORY_BUDGET": "1MiB"}))
	for _, want := range []string{"-stream-max-bytes: must be at least 67108864", "MEMORY_BUDGET: must be at least 16777216"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not say %q", err, want)
		}
	}
}
