package main

import (
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/service"
)

// SIGTERM cancels the run context with a cause that names it (the shutdown log shows it).
func TestSignalContextNamesTheSignal(t *testing.T) {
	ctx, stop := signalContext()
	defer stop()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not cancel the context")
	}
	var s service.Stopped
	if cause := context.Cause(ctx); !errors.As(cause, &s) || s.Signal != "SIGTERM" {
		t.Fatalf("cause %v, want service.Stopped{SIGTERM}", cause)
	}
}
