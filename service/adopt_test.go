package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/service"
)

// A tool building the handlers with other settings adopts the deployment's instead of rewriting them.
func TestAdoptDeployedKeepsTheRunningSettings(t *testing.T) {
	w := startWorker(t, func(c *service.Config) {
		c.StreamMaxAge, c.AckWait, c.MaxDeliver, c.HistoryTTL, c.ClaimTTL = 3*time.Hour, 21*time.Second, 7, 90*time.Minute, 2*time.Hour
		c.StreamMaxBytes = 100 << 20
	})
	js, _ := jetstream.New(w.Conn)
	cfg := service.Config{} // a laptop's defaults: 24h, 60s, 5, 2h, 1h
	if err := service.AdoptDeployed(context.Background(), js, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.StreamMaxAge != 3*time.Hour || cfg.AckWait != 21*time.Second || cfg.MaxDeliver != 7 || cfg.HistoryTTL != 90*time.Minute || cfg.ClaimTTL != 2*time.Hour {
		t.Fatalf("adopted %s %s %d %s %s", cfg.StreamMaxAge, cfg.AckWait, cfg.MaxDeliver, cfg.HistoryTTL, cfg.ClaimTTL)
	}
	// The stream itself carries STREAM_MAX_BYTES.
	if cfg.StreamMaxBytes != 100<<20 {
		t.Fatalf("adopted STREAM_MAX_BYTES %d, want the stream's 100 MiB", cfg.StreamMaxBytes)
	}
}
