package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentworks/artifact-worker/service"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2 // bad flags or settings
	// exitErrorReply: worker call got a reply, printed, that is an error reply ("ok": false).
	exitErrorReply = 3
)

func run(args []string) int {
	fs := flag.NewFlagSet("worker run", flag.ContinueOnError)
	prepareUsage(fs, `usage: worker run [worker settings]

Serves the worker's NATS subjects (tool.get_artifact, ... and their plain request/reply subjects
artifact-worker.<subject>) and its HTTP listener, until SIGTERM. With no NATS_URL it starts an
embedded nats-server on EMBEDDED_NATS_ADDR and keeps its data under DATA_DIR.`, args)
	cfg, rest, err := loadConfig(fs, args, os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err == nil && len(rest) != 0 {
		err = fmt.Errorf("unexpected arguments %q", rest)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "worker: bad settings:\n%v\n", err)
		return exitUsage
	}
	log := newLogger(cfg)
	for _, w := range settingWarnings(os.Getenv) {
		log.Warn(w)
	}
	ctx, stop := signalContext()
	defer stop()
	svc, err := service.New(ctx, cfg, log)
	if se := (*service.SettingError)(nil); errors.As(err, &se) {
		// Refused credentials or certificates: a bad setting, which retrying cannot fix.
		log.Error("start-up failed: bad setting", "setting", se.Settings, "error", err.Error())
		return exitUsage
	}
	if err != nil {
		log.Error("start-up failed", "error", err.Error())
		return exitFailure
	}
	if err := svc.Run(ctx); err != nil {
		log.Error("worker stopped with an error", "error", err.Error())
		return exitFailure
	}
	return exitOK
}

// signalContext is cancelled by SIGTERM or SIGINT, with a service.Stopped cause naming the signal.
func signalContext() (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		if sig, ok := <-sigs; ok {
			name := "SIGTERM"
			if sig == syscall.SIGINT {
				name = "SIGINT"
			}
			cancel(service.Stopped{Signal: name})
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(sigs)
		cancel(nil)
	}
}

func newLogger(cfg service.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogJSON {
		return slog.New(slog.NewJSONHandler(os.Stderr, opts))
	}
	return slog.New(slog.NewTextHandler(os.Stderr, opts))
}
