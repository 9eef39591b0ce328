package main

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
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
	for _, name := range []string{"NATS_URL", "CONCURRENCY", "S3_ACCESS_KEY", "S3_SECRET_KEY", "S3_BUCKET", "LOG_LEVEL", "MAX_DELIVER", "STREAM_MAX_AGE", "HTTP_ADDR"} {
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
