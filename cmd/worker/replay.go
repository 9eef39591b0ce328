package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/replay"
	"github.com/agentworks/artifact-worker/service"
)

const replayUsage = `usage: worker replay [--subject S]... [--start-seq N | --since 1h | --start-time RFC3339]
                     [--end-seq N] [--end-time RFC3339] [--limit N] [--publish SUBJECT] [--results]
                     [--keep-media] [--timeout 30s] [worker settings]

Runs the requests stored in the worker's stream through the current handlers and prints one JSON line
per request (headers, request and reply) on stdout, base64 media shortened to its length and sha256
unless --keep-media; progress and the summary go to stderr. Nothing is sent to the requests'
Reply-To. Handlers run with their side effects (workspace.file_written records the write again):
filter with --subject to replay read-only subjects only.`

// replayFlags are the flags of `worker replay` besides the worker's settings.
type replayFlags struct {
	subjects  subjectList
	startSeq  uint64
	since     time.Duration
	startTime string
	endSeq    uint64
	endTime   string
	limit     int
	publish   string
	results   bool
	keepMedia bool
	timeout   time.Duration
}

func (f *replayFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.subjects, "subject", "replay only this subject (repeatable, or a comma-separated list; default every subject)")
	fs.Uint64Var(&f.startSeq, "start-seq", 0, "start at this stream sequence")
	fs.DurationVar(&f.since, "since", 0, "start with the requests stored in the last DURATION (e.g. 1h)")
	fs.StringVar(&f.startTime, "start-time", "", "start with the requests stored at or after this RFC 3339 time")
	fs.Uint64Var(&f.endSeq, "end-seq", 0, "stop after this stream sequence (inclusive)")
	fs.StringVar(&f.endTime, "end-time", "", "stop before the requests stored at or after this RFC 3339 time")
	fs.IntVar(&f.limit, "limit", 0, "replay at most this many requests (0: no limit)")
	fs.StringVar(&f.publish, "publish", "", "also publish every reply to this subject (never to the original Reply-To)")
	fs.BoolVar(&f.results, "results", false, "keep the replies in the "+replay.DefaultResultsStream+" stream and report which changed since the last replay")
	fs.BoolVar(&f.keepMedia, "keep-media", false, "print base64 media in full (default: its length and sha256)")
	fs.DurationVar(&f.timeout, "timeout", replay.DefaultTimeout, "bound on one request")
}

// options turns the flags into replay.Options; every bad flag is reported.
func (f *replayFlags) options(now time.Time) (replay.Options, error) {
	o := replay.Options{
		Subjects:  f.subjects,
		StartSeq:  f.startSeq,
		EndSeq:    f.endSeq,
		Limit:     f.limit,
		PublishTo: f.publish,
		Results:   f.results,
		KeepMedia: f.keepMedia,
		Timeout:   f.timeout,
	}
	var errs []error
	starts := 0
	for _, given := range []bool{f.startSeq > 0, f.since != 0, f.startTime != ""} {
		if given {
			starts++
		}
	}
	if starts > 1 {
		errs = append(errs, errors.New("--start-seq, --since and --start-time: give at most one"))
	}
	if f.since < 0 {
		errs = append(errs, fmt.Errorf("--since %s: must be positive", f.since))
	} else if f.since > 0 {
		o.StartTime = now.Add(-f.since)
	}
	if f.startTime != "" {
		t, err := time.Parse(time.RFC3339Nano, f.startTime)
		if err != nil {
			errs = append(errs, fmt.Errorf("--start-time %q: not an RFC 3339 time like 2026-01-02T15:04:05Z", f.startTime))
		}
		o.StartTime = t
	}
	if f.endTime != "" {
		t, err := time.Parse(time.RFC3339Nano, f.endTime)
		if err != nil {
			errs = append(errs, fmt.Errorf("--end-time %q: not an RFC 3339 time like 2026-01-02T15:04:05Z", f.endTime))
		}
		o.EndTime = t
	}
	if f.timeout <= 0 {
		errs = append(errs, fmt.Errorf("--timeout %s: must be positive", f.timeout))
	}
	if len(errs) == 0 {
		if err := o.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return o, errors.Join(errs...)
}

// subjectList is a repeatable flag that also splits comma-separated lists.
type subjectList []string

func (s *subjectList) String() string { return strings.Join(*s, ",") }

func (s *subjectList) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*s = append(*s, part)
		}
	}
	return nil
}

// replayCmd is `worker replay`: it runs stored requests through the current handlers. Exit 0 when
// every selected request was replayed (whatever its reply), 1 when replay could not run or stopped
// early, 2 on bad usage.
func replayCmd(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return replayMain(ctx, args, os.Getenv, os.Stdout, os.Stderr)
}

// replayMain is replayCmd with its environment, output (JSON lines) and diagnostics given.
func replayMain(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("worker replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f replayFlags
	f.register(fs)
	prepareUsageTo(fs, replayUsage, args, stdout) // asked-for help is output, not a diagnostic
	// No positional arguments: the flags are parsed as given (flagsFirst would take the word after a
	// boolean flag such as --results for its value).
	cfg, rest, err := loadConfig(fs, args, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "worker replay: %v\n", err)
		return exitUsage
	}
	if len(rest) != 0 {
		fmt.Fprintf(stderr, "worker replay: unexpected arguments %q\n%s\n", rest, replayUsage)
		return exitUsage
	}
	opts, err := f.options(time.Now())
	if err != nil {
		fmt.Fprintf(stderr, "worker replay: %v\n", err)
		return exitUsage
	}
	out := bufio.NewWriterSize(stdout, 64<<10)
	sum, err := runReplay(ctx, cfg, opts, out, stderr)
	if ferr := out.Flush(); ferr != nil && err == nil {
		err = fmt.Errorf("write stdout: %w", ferr)
	}
	if err == nil || sum.LastSeq > 0 {
		fmt.Fprintf(stderr, "worker replay: %s", sum)
		if opts.Results {
			fmt.Fprintf(stderr, "; %d changed, %d without an earlier result", sum.Changed, sum.New)
		}
		if sum.LastSeq > 0 {
			fmt.Fprintf(stderr, "; last seq %d", sum.LastSeq)
		}
		fmt.Fprintln(stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "worker replay: %v\n", err)
		if errors.Is(err, replay.ErrInvalidOptions) || errors.Is(err, replay.ErrUnknownSubject) {
			return exitUsage
		}
		return exitFailure
	}
	return exitOK
}

// runReplay connects with the worker's settings, builds the current handlers and replays.
func runReplay(ctx context.Context, cfg service.Config, opts replay.Options, out, progress io.Writer) (replay.Summary, error) {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	var log *slog.Logger
	if cfg.LogJSON {
		log = slog.New(slog.NewJSONHandler(progress, &slog.HandlerOptions{Level: level}))
	} else {
		log = slog.New(slog.NewTextHandler(progress, &slog.HandlerOptions{Level: level}))
	}
	nc, err := service.Connect(cfg, "artifact-worker-replay", log)
	if err != nil {
		return replay.Summary{}, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return replay.Summary{}, err
	}
	store, err := service.OpenStore(ctx, cfg)
	if err != nil {
		return replay.Summary{}, err
	}
	var caps handlers.Capabilities = llmservices.Default()
	if cfg.LLMServicesFile != "" {
		w, err := llmservices.NewWatcher(cfg.LLMServicesFile, log, 0)
		if err != nil {
			return replay.Summary{}, fmt.Errorf("LLM_SERVICES_FILE: %w", err)
		}
		caps = w.Current()
	}
	// Build writes settings into the shared stream, consumers and buckets: use the deployment's own.
	if err := service.AdoptDeployed(ctx, js, &cfg); err != nil {
		return replay.Summary{}, err
	}
	c, err := service.Build(ctx, cfg, js, store, caps, nil, log)
	if err != nil {
		return replay.Summary{}, err
	}
	opts.Replicas = cfg.JetStreamReplicas
	return replay.Run(ctx, js, nc, c.Topology.Stream, c.Processor, opts, out, progress)
}
