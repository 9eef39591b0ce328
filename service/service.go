package service

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/httpapi"
	"github.com/agentworks/artifact-worker/internal/backoff"
	"github.com/agentworks/artifact-worker/internal/buildinfo"
	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/internal/quorum"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/telemetry"
	"github.com/agentworks/artifact-worker/workspace"
)

// Store is what the worker needs of its object store.
type Store interface {
	handlers.ArtifactBlobs
	handlers.WorkspaceBlobs
	Put(ctx context.Context, key string, r io.Reader, size int64, contentType string, meta map[string]string) (objectstore.Info, error)
	Ping(ctx context.Context) error
}

var (
	_ Store = (*objectstore.S3)(nil)
	_ Store = (*objectstore.Local)(nil)
)

// Service is a running worker. Build it with New, run it with Run.
type Service struct {
	cfg       Config
	log       *slog.Logger
	embedded  *server.Server
	subConn   *nats.Conn
	pubConn   *nats.Conn
	store     Store
	registry  *llmservices.Watcher
	pipeline  *messaging.Pipeline
	js        jetstream.JetStream
	front     *messaging.RequestReply
	telemetry *telemetry.Telemetry
	http      *http.Server
	listener  net.Listener
	renderer  *pdfpages.Renderer
	// quorum tracks, per connection, whether JetStream answers through its server (subConn, pubConn).
	quorum [2]*quorum.Tracker
}

// New wires the worker: it connects to NATS (or starts the embedded server), opens storage, ensures
// the JetStream topology and builds the pipeline. Nothing is consumed until Run.
func New(ctx context.Context, cfg Config, log *slog.Logger) (_ *Service, err error) {
	cfg.SetDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Service{cfg: cfg, log: log}
	defer func() {
		if err != nil {
			if cerr := errors.Join(s.close()...); cerr != nil {
				log.Warn("clean-up after the failed start-up", "error", cerr.Error())
			}
		}
	}()
	if s.telemetry, err = telemetry.Setup(ctx, telemetry.Config{OTLPEnabled: cfg.OTLPEnabled, Disabled: cfg.OTelDisabled}); err != nil {
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	url := cfg.NATSURL
	if url == "" {
		if s.embedded, err = startEmbeddedNATS(cfg.EmbeddedNATSAddr, cfg.DataDir); err != nil {
			return nil, err
		}
		url = s.embedded.ClientURL()
		log.Info("embedded nats-server started", "url", url, "store", filepath.Join(cfg.DataDir, "jetstream"))
	}
	logStart(log, cfg, url, s.embedded != nil, s.telemetry)
	// Dependencies that are still starting (a NATS or MinIO pod scheduled at the same time) are
	// waited for, within StartupTimeout, instead of failing the start.
	if err := retryStartup(ctx, log, "nats", func() error {
		if s.subConn, err = connect(url, cfg, "artifact-worker-consume", log); err != nil {
			return err
		}
		if s.pubConn, err = connect(url, cfg, "artifact-worker-publish", log); err != nil {
			s.subConn.Close()
			s.subConn = nil
		}
		return err
	}); err != nil {
		return nil, err
	}
	// Every permission the worker needs is tried before anything else: a missing one stops the
	// start at once, named, instead of a worker that reports ready and then misbehaves.
	if err := retryStartup(ctx, log, "nats", func() error {
		nc, err := connect(url, cfg, "artifact-worker-permissions", log)
		if err != nil {
			return err
		}
		defer nc.Close()
		return provePermissions(ctx, nc, append(WorkerPermissions(), TenantPermissions(cfg.TenantList())...))
	}); err != nil {
		return nil, err
	}
	js, err := jetstream.New(s.pubConn)
	if err != nil {
		return nil, err
	}
	s.js = js
	if err := retryStartup(ctx, log, "storage", func() error {
		s.store, err = OpenStore(ctx, cfg)
		return err
	}); err != nil {
		return nil, err
	}
	if cfg.LLMServicesFile != "" {
		if s.registry, err = llmservices.NewWatcher(cfg.LLMServicesFile, log, 2*time.Second); err != nil {
			return nil, fmt.Errorf("LLM_SERVICES_FILE: %w", err)
		}
	}
	meter := s.telemetry.MeterProvider.Meter("artifact-worker")
	if err := countReloads(meter, s.registry); err != nil {
		return nil, err
	}
	// The topology (streams, consumers, buckets) is created or updated idempotently, and retried
	// within StartupTimeout: a cluster that is still electing its leaders, or just restarted, times
	// out JetStream API calls, and replicas starting together race to create the same stream.
	caps, err := newModels(s.currentRegistry(), meter, log)
	if err != nil {
		return nil, err
	}
	var c *Components
	noJetStream := 0
	// Creating it, each JetStream API call waits topologyCall, not the client's 5 s, and an attempt
	// that timed out is repeated soon: replicas creating one stream or bucket at once on a cluster
	// often get no answer (the cluster answers one of several equal proposals), and a create the
	// cluster completed meanwhile is then found as it is. Once every asset exists, Build runs again
	// on the worker's own JetStream context (with the client's defaults), which the components keep.
	topoJS, err := jetstream.New(s.pubConn, jetstream.WithDefaultTimeout(topologyCall))
	if err != nil {
		return nil, err
	}
	if err := retryStartupWith(ctx, log, "jetstream", topologyBackoff, func() error {
		if _, err := topoJS.AccountInfo(ctx); err != nil {
			// A JetStream API call the user may not make fails as a timeout; the server told the
			// connection why.
			if se := natsSettingError(s.pubConn.LastError()); se != nil {
				return errors.Join(se, err)
			}
			// Twice in a row, so that a server still starting is not taken for one without it.
			if se := jetStreamSettingError(err); se != nil {
				if noJetStream++; noJetStream > 1 {
					return se
				}
			}
			return fmt.Errorf("jetstream: %w", err)
		}
		noJetStream = 0
		_, err := Build(ctx, cfg, topoJS, s.store, caps, meter, log)
		if err == nil {
			c, err = Build(ctx, cfg, js, s.store, caps, meter, log)
		}
		if err != nil {
			// A JetStream API call the user may not make fails as a timeout; the server told the
			// connection why.
			if se := natsSettingError(s.pubConn.LastError()); se != nil {
				return errors.Join(se, err)
			}
			if se := jetStreamSettingError(err); se != nil {
				return errors.Join(se, err)
			}
		}
		return err
	}); err != nil {
		if jsErrorCode(err) == jsInsufficientResources {
			return nil, &SettingError{Settings: "JETSTREAM_REPLICAS", Err: fmt.Errorf("%d replicas could not be placed within %s (more than the cluster's servers?): %w", cfg.JetStreamReplicas, StartupTimeout, err)}
		}
		return nil, err
	}
	// The renderer compiles (or loads from DATA_DIR/wasm-cache) at the first PDF it draws: readiness
	// never waits for it, and a worker that draws no PDF holds none of it (docs/operations.md).
	s.renderer = c.Renderer
	pc := messaging.Config{
		Topology:       c.Topology,
		Concurrency:    cfg.Concurrency,
		DrainTimeout:   cfg.DrainTimeout,
		HandlerTimeout: cfg.HandlerTimeout,
		RequireScope:   cfg.RequireScope,
		// Reads: their reply record is looked up while they run.
		ReadOnly: []string{contracts.SubjectGetArtifact, contracts.SubjectMetadata},
	}
	deps := messaging.Deps{
		SubConn:       s.subConn,
		PubConn:       s.pubConn,
		Claims:        c.Claims,
		Replies:       c.Replies,
		MapError:      handlers.Policy.MapError,
		Envelope:      handlers.Policy.Envelope,
		CompleteError: completeError,
		Logger:        log,
		Tracer:        s.telemetry.TracerProvider.Tracer("artifact-worker"),
		Meter:         meter,
		Budget:        memoryBudget(cfg.MemoryBudget),
	}
	tenantPipeline(cfg, c, &pc, &deps)
	s.pipeline, err = messaging.New(pc, deps, c.Handlers)
	if err != nil {
		return nil, err
	}
	for i, nc := range []*nats.Conn{s.subConn, s.pubConn} {
		s.quorum[i] = quorum.NewTracker(nc, cfg.NATSSwitchAfter, log)
	}
	api := httpapi.New(s.telemetry.Metrics, []httpapi.Check{
		{Name: "nats", Func: func(context.Context) error { return connected(s.subConn, s.pubConn) }},
		{Name: "jetstream", Func: func(context.Context) error {
			for _, q := range s.quorum {
				if !q.Answering() {
					return errors.New("JetStream does not answer through this NATS server (cut off from its cluster?)")
				}
			}
			return nil
		}},
		{Name: "storage", Func: s.store.Ping},
		{Name: "consumers", Func: func(context.Context) error {
			if !s.pipeline.Ready() {
				return errors.New("consumers not bound")
			}
			return nil
		}},
	})
	auth, err := httpAuth(cfg, meter, log, c.TenantArtifacts)
	if err != nil {
		return nil, err
	}
	api.HandleArtifacts(c.Artifacts, handlers.MapError, auth)
	if s.listener, err = net.Listen("tcp", cfg.HTTPAddr); err != nil {
		return nil, &SettingError{Settings: "HTTP_ADDR", Err: err} // malformed, in use, not this host's
	}
	// No WriteTimeout: /artifacts/{id}/content streams up to MAX_ARTIFACT_BYTES to slow clients.
	s.http = &http.Server{Handler: api.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	return s, nil
}

// knownMedia is how many media context.preprocess remembers as checked (historyimage.Known): a
// few thousand screenshots of the sessions in flight, at about 150 bytes each.
const knownMedia = 4096

// Components are the worker's handlers and what they share, built on a NATS connection and a store.
type Components struct {
	// Renderer draws PDF pages for tool.get_artifact; Close it with the components.
	Renderer  *pdfpages.Renderer
	Topology  messaging.Topology
	Claims    *claimcheck.Store
	Replies   *messaging.Replies
	Handlers  map[string]messaging.Handler
	Artifacts *handlers.Artifacts
	// SubjectClaims are the claim-check buckets of the tenants' subjects (TENANTS), and
	// TenantArtifacts each tenant's artifacts; both nil without tenants.
	SubjectClaims   map[string]*claimcheck.Store
	TenantArtifacts map[string]*handlers.Artifacts
}

// Build ensures the JetStream resources (stream, consumers, buckets) and builds every subject's
// handler. `worker run` serves them; `worker replay` runs stored requests through them. meter
// (nil: none) takes the handlers' own metrics (worker.tokens.saved).
func Build(ctx context.Context, cfg Config, js jetstream.JetStream, store Store, caps handlers.Capabilities, meter metric.Meter, log *slog.Logger) (*Components, error) {
	cfg.SetDefaults()
	topo, err := messaging.EnsureTopology(ctx, js, messaging.Topology{
		Subjects:   tenantSubjects(cfg.TenantList()),
		MaxAge:     cfg.StreamMaxAge,
		MaxBytes:   cfg.StreamMaxBytes,
		AckWait:    cfg.AckWait,
		MaxDeliver: cfg.MaxDeliver,
		Replicas:   cfg.JetStreamReplicas,
	})
	if err != nil {
		return nil, fmt.Errorf("jetstream topology: %w", err)
	}
	replies, err := messaging.EnsureReplies(ctx, js, messaging.ReplyConfig{TTL: min(messaging.DefaultReplyTTL, cfg.ClaimTTL), Replicas: cfg.JetStreamReplicas})
	if err != nil {
		return nil, err
	}
	if meter == nil {
		meter = noop.NewMeterProvider().Meter("")
	}
	tokens, err := handlers.NewTokens(meter)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	tokens.Zero(ctx, []string{contracts.SubjectGetArtifact, contracts.SubjectGetHistoryImage}, contracts.Dialects)
	renderer, err := pdfpages.New(cfg.Renderer())
	if err != nil {
		return nil, fmt.Errorf("pdf renderer: %w", err)
	}
	c := &Components{Renderer: renderer, Topology: topo, Replies: replies, Handlers: map[string]messaging.Handler{}}
	for _, tenant := range append([]string{""}, cfg.TenantList()...) {
		t, err := buildTenant(ctx, cfg, js, store, tenant, caps, tokens, renderer, log)
		if err != nil {
			_ = renderer.Close()
			return nil, err
		}
		if tenant == "" {
			c.Claims, c.Artifacts = t.claims, t.artifacts
			maps.Copy(c.Handlers, t.handlers)
			continue
		}
		if c.SubjectClaims == nil {
			c.SubjectClaims, c.TenantArtifacts = map[string]*claimcheck.Store{}, map[string]*handlers.Artifacts{}
		}
		c.TenantArtifacts[tenant] = t.artifacts
		for subject, h := range t.handlers {
			ts := contracts.TenantSubject(tenant, subject)
			c.Handlers[ts], c.SubjectClaims[ts] = h, t.claims
		}
	}
	return c, nil
}

// tenantParts are the handlers of one tenant ("": the pool's own) by request subject, on the
// tenant's own store view and buckets.
type tenantParts struct {
	claims    *claimcheck.Store
	artifacts *handlers.Artifacts
	handlers  map[string]messaging.Handler
}

func buildTenant(ctx context.Context, cfg Config, js jetstream.JetStream, store Store, tenant string, caps handlers.Capabilities, tokens *handlers.Tokens, renderer *pdfpages.Renderer, log *slog.Logger) (tenantParts, error) {
	b := bucketsOf(tenant)
	if tenant != "" {
		store = tenantStore{inner: store, prefix: contracts.TenantKeys(tenant)}
		log = log.With("tenant", tenant)
	}
	maxPayload := js.Conn().MaxPayload()
	claims, err := claimcheck.EnsureConfig(ctx, js, claimcheck.Config{TTL: cfg.ClaimTTL, MaxBytes: cfg.ClaimMaxBytes, Replicas: cfg.JetStreamReplicas, Bucket: b.claims}, maxPayload)
	if err != nil {
		return tenantParts{}, err
	}
	// Requests carry at most an artifact in base64 (file_written) or a context of images
	// (preprocess): bound what one claim-checked request may make a replica download.
	claims = claims.Limit(max(claimcheck.DefaultMaxBody, 2*cfg.MaxArtifactSize+1<<20))
	var historyMax, filesMax int64 // the pool's own buckets: no limit
	if tenant != "" {
		historyMax, filesMax = cfg.TenantHistoryMaxBytes, cfg.TenantWorkspaceMaxBytes
	}
	metas, err := workspace.NewMetaStore(ctx, js, workspace.MetaConfig{Replicas: cfg.JetStreamReplicas, Bucket: b.files, MaxBytes: filesMax})
	if err != nil {
		return tenantParts{}, fmt.Errorf("workspace metadata: %w", err)
	}
	cache, err := historyimage.NewCache(ctx, js, historyimage.CacheConfig{TTL: cfg.HistoryTTL, Replicas: cfg.JetStreamReplicas, KVBucket: b.historyKV, ObjectBucket: b.historyObjects, MaxBytes: historyMax})
	if err != nil {
		return tenantParts{}, fmt.Errorf("history image cache: %w", err)
	}
	// Spans for storage and KV calls, children of the request's span (no-ops unless telemetry.Setup
	// installed a tracer provider).
	tracer := otel.GetTracerProvider().Tracer("artifact-worker")
	store = tracedStore{Store: store, tracer: tracer}
	files := tracedFiles{MetaStore: metas, tracer: tracer}
	history := tracedHistory{Cache: cache, tracer: tracer}
	artifacts := &handlers.Artifacts{Blobs: store, Files: files, MaxSize: cfg.MaxArtifactSize}
	formats, _ := caps.(handlers.ModelFormats)
	getArtifact := &handlers.GetArtifact{Blobs: store, Capabilities: caps, Formats: formats, Files: files, MaxSize: cfg.MaxArtifactSize, Tokens: tokens,
		Extraction: handlers.Extraction{MaxChars: cfg.ExtractMaxChars, Timeout: cfg.ExtractTimeout}}
	if e, ok := caps.(handlers.ExtractionPolicy); ok {
		getArtifact.Extraction.Policy = e
	}
	if d, ok := caps.(handlers.ModelDecisions); ok {
		getArtifact.Decisions = d
	}
	getArtifact.Pages = renderer // compiled at its first PDF
	fileWritten := &handlers.FileWritten{Blobs: store, Files: files, MaxSize: cfg.MaxArtifactSize}
	metadata := &handlers.Metadata{Artifacts: artifacts}
	preprocess := &handlers.Preprocess{Cache: history, Capabilities: caps, Formats: formats, KeepTurns: cfg.HistoryKeepTurns, MaxPartBytes: cfg.MaxArtifactSize,
		Known: historyimage.NewKnown(knownMedia), Pages: renderer, Logger: log}
	historyImage := &handlers.GetHistoryImage{Cache: history, Capabilities: caps, Formats: formats, Tokens: tokens, Pages: renderer}
	return tenantParts{
		claims:    claims,
		artifacts: artifacts,
		handlers: map[string]messaging.Handler{
			contracts.SubjectGetArtifact:     getArtifact.Handle,
			contracts.SubjectFileWritten:     fileWritten.Handle,
			contracts.SubjectMetadata:        metadata.Handle,
			contracts.SubjectPreprocess:      preprocess.Handle,
			contracts.SubjectGetHistoryImage: historyImage.Handle,
		},
	}, nil
}

// Processor is subject's handler run under the worker's policy (handlers.Policy), with the claim
// checks of c: what replay runs a stored request through, as the pipeline runs it. ok is false for
// a subject the worker does not serve.
func (c *Components) Processor(subject string) (p messaging.Processor, ok bool) {
	h, ok := c.Handlers[subject]
	claims := c.Claims
	if tc, isTenant := c.SubjectClaims[subject]; isTenant {
		claims = tc
	}
	return messaging.Processor{Claims: claims, MapError: handlers.Policy.MapError, Envelope: handlers.Policy.Envelope,
		CompleteError: completeError, Handler: h}, ok
}

// startFront registers the plain request/reply front (the NATS micro service) on the consuming
// connection; it stores requests through the publishing one.
func (s *Service) startFront() error {
	front, err := messaging.StartRequestReply(s.subConn, s.js, messaging.RequestReplyConfig{
		Subjects:      tenantSubjects(s.cfg.TenantList()),
		Version:       buildinfo.Version,
		Metadata:      map[string]string{"commit": buildinfo.CommitOrUnknown()},
		CompleteError: completeError,
	}, s.log)
	if err != nil {
		return fmt.Errorf("request/reply front: %w", err)
	}
	s.front = front
	return nil
}

// currentRegistry is the registry to route with: the watched file's latest, or the built-in one.
func (s *Service) currentRegistry() func() *llmservices.Registry {
	if w := s.registry; w != nil {
		return w.Current
	}
	return llmservices.Default
}

// Run serves until ctx is cancelled (SIGTERM), then shuts down gracefully: readiness turns false,
// new messages are handed back, in-flight requests finish within DrainTimeout, connections drain.
func (s *Service) Run(ctx context.Context) error {
	errc := make(chan error, 3)
	runCtx, cancelRun := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelRun()
	go func() {
		if err := s.http.Serve(s.listener); err != nil && !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("http: %w", err)
		}
	}()
	if s.registry != nil {
		go s.registry.Run(runCtx)
	}
	go releaseWhenIdle(runCtx, s.pipeline.Activity, time.Second, idleRelease, freeMemory)
	// Each connection proves every second that JetStream answers through its server, with a write
	// that needs the cluster's quorum; unanswered for NATS_SWITCH_AFTER, it moves to another server.
	for i, nc := range []*nats.Conn{s.subConn, s.pubConn} {
		js, err := jetstream.New(nc)
		if err != nil {
			return err
		}
		key := "$KV." + contracts.ReplyBucket + ".health." + nuid.Next()
		go s.quorum[i].Watch(runCtx, quorumProbeEvery, func(ctx context.Context) error {
			_, err := js.Publish(ctx, key, nil)
			return err
		})
	}
	pipelineDone := make(chan error, 1)
	go func() { pipelineDone <- s.pipeline.Run(runCtx) }()
	var runErr error
	select {
	case <-s.pipeline.Running():
		if runErr = s.startFront(); runErr != nil {
			break
		}
		s.log.Info("worker ready", "http", s.listener.Addr().String(), "concurrency", s.cfg.Concurrency, "memory_budget", s.cfg.MemoryBudget)
		select {
		case <-ctx.Done():
		case runErr = <-errc:
		case runErr = <-pipelineDone:
			runErr = fmt.Errorf("pipeline stopped: %w", runErr)
		}
	case runErr = <-pipelineDone:
		runErr = fmt.Errorf("pipeline: %w", runErr)
	case <-ctx.Done():
	}
	s.log.Info("shutting down", append(stopReason(context.Cause(ctx)), "drain_timeout", s.cfg.DrainTimeout.String())...)
	var shutdownErrs []error
	if s.front != nil {
		// No new plain requests are taken; those already stored are handled (or redelivered).
		if err := s.front.Stop(); err != nil {
			shutdownErrs = append(shutdownErrs, fmt.Errorf("request/reply front: %w", err))
		}
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), s.cfg.DrainTimeout+5*time.Second)
	defer cancel()
	if err := s.pipeline.Shutdown(shutdownCtx); err != nil {
		shutdownErrs = append(shutdownErrs, fmt.Errorf("pipeline (JetStream redelivers unfinished work): %w", err))
	}
	// Downloads in progress get a budget of their own, not what the drain left.
	httpCtx, cancelHTTP := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelHTTP()
	if err := s.http.Shutdown(httpCtx); err != nil {
		shutdownErrs = append(shutdownErrs, fmt.Errorf("http: %w", err))
	}
	shutdownErrs = append(shutdownErrs, s.close()...)
	// A shutdown that did not go cleanly is reported, but does not make the exit a failure: the
	// worker stopped as asked, and JetStream redelivers whatever it left.
	if err := errors.Join(shutdownErrs...); err != nil {
		s.log.Warn("stopped", "shutdown_error", err.Error())
	} else {
		s.log.Info("stopped")
	}
	return runErr
}

// close drains the NATS connections and releases the rest, returning what failed.
func (s *Service) close() []error {
	var errs []error
	for _, nc := range []*nats.Conn{s.subConn, s.pubConn} {
		if nc != nil && !nc.IsClosed() {
			if err := nc.Drain(); err != nil {
				errs = append(errs, fmt.Errorf("nats drain: %w", err))
			}
		}
	}
	for _, nc := range []*nats.Conn{s.subConn, s.pubConn} {
		for nc != nil && nc.IsDraining() {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if s.listener != nil {
		if err := s.listener.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, fmt.Errorf("http listener: %w", err))
		}
	}
	if s.renderer != nil {
		if err := s.renderer.Close(); err != nil {
			errs = append(errs, fmt.Errorf("pdf renderer: %w", err))
		}
	}
	if s.telemetry != nil {
		if err := s.telemetry.Shutdown(context.Background()); err != nil {
			errs = append(errs, fmt.Errorf("telemetry: %w", err))
		}
	}
	if s.embedded != nil {
		s.embedded.Shutdown()
		s.embedded.WaitForShutdown()
	}
	return errs
}

// quorumProbeEvery is how often each connection proves that JetStream answers through its server.
const quorumProbeEvery = time.Second

// StartupTimeout bounds how long New waits for each dependency (NATS, the object store, the JetStream
// topology) to become reachable.
const StartupTimeout = 60 * time.Second

// topologyCall bounds one JetStream API call while the topology is created.
const topologyCall = 2 * time.Second

// topologyBackoff spaces the attempts at creating the JetStream topology: 250 ms, then every 1 s.
var topologyBackoff = backoff.Policy{Initial: 250 * time.Millisecond, Max: time.Second}

// retryStartup runs f until it succeeds, StartupTimeout passes or ctx ends, logging each failure.
// A *SettingError (refused credentials or certificates) ends it at once: waiting cannot fix it.
func retryStartup(ctx context.Context, log *slog.Logger, what string, f func() error) error {
	return retryStartupWith(ctx, log, what, startupBackoff, f)
}

// retryStartupWith is retryStartup with its own back-off.
func retryStartupWith(ctx context.Context, log *slog.Logger, what string, policy backoff.Policy, f func() error) error {
	deadline := time.Now().Add(StartupTimeout)
	for attempt := 0; ; attempt++ {
		wait := policy.Delay(attempt)
		err := f()
		if err == nil {
			return nil
		}
		if se := (*SettingError)(nil); errors.As(err, &se) {
			return err
		}
		if time.Now().Add(wait).After(deadline) {
			return err
		}
		log.Warn("waiting for a dependency", "dependency", what, "error", err.Error(), "retry_in", wait.String())
		if backoff.Sleep(ctx, wait) != nil {
			return err
		}
	}
}

// startupBackoff spaces the start-up attempts: 0.5 s, 1 s, 2 s, 4 s, then every 5 s.
var startupBackoff = backoff.Policy{Initial: 500 * time.Millisecond, Max: 5 * time.Second}

func connected(conns ...*nats.Conn) error {
	for _, nc := range conns {
		if !nc.IsConnected() {
			return fmt.Errorf("nats connection %s: %s", nc.Opts.Name, nc.Status())
		}
	}
	return nil
}

// Connect opens a NATS connection with the worker's settings (for `worker call` and the service),
// and extra options (a tenant's inbox prefix).
func Connect(cfg Config, name string, log *slog.Logger, extra ...nats.Option) (*nats.Conn, error) {
	cfg.SetDefaults()
	url := cfg.NATSURL
	if url == "" {
		url = "nats://" + cfg.EmbeddedNATSAddr
	}
	return connect(url, cfg, name, log, extra...)
}

// connect opens a connection with the credentials and TLS settings of cfg.
func connect(url string, cfg Config, name string, log *slog.Logger, extra ...nats.Option) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(500 * time.Millisecond),
		nats.RetryOnFailedConnect(false),
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if err != nil {
				log.Warn("nats disconnected", "connection", name, "error", err.Error())
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("nats reconnected", "connection", name, "url", nc.ConnectedUrl()) }),
		// Permission violations and slow consumers arrive asynchronously; without this they are silent.
		nats.ErrorHandler(func(_ *nats.Conn, sub *nats.Subscription, err error) {
			attrs := []any{"connection", name, "error", err.Error()}
			if sub != nil {
				attrs = append(attrs, "subscription", sub.Subject)
			}
			log.Warn("nats async error", attrs...)
		}),
	}
	if cfg.NATSCreds != "" {
		opts = append(opts, nats.UserCredentials(cfg.NATSCreds))
	}
	if cfg.NATSTLSCA != "" {
		opts = append(opts, nats.RootCAs(cfg.NATSTLSCA))
	}
	if cfg.NATSTLSCert != "" {
		opts = append(opts, nats.ClientCert(cfg.NATSTLSCert, cfg.NATSTLSKey))
	}
	nc, err := nats.Connect(url, append(opts, extra...)...)
	if err != nil {
		// Name the setting the operator used: without NATS_URL the address is EMBEDDED_NATS_ADDR's
		// (its default included), where a running worker's embedded server listens.
		if cfg.NATSURL == "" {
			err = fmt.Errorf("EMBEDDED_NATS_ADDR %s (NATS_URL is not set: the embedded nats-server of a worker running on this address): %w", cfg.EmbeddedNATSAddr, err)
		} else {
			err = fmt.Errorf("NATS_URL %s: %w", url, err)
		}
		if se := natsSettingError(err); se != nil {
			return nil, se
		}
		return nil, err
	}
	return nc, nil
}

// LocalStoreDir is the directory of the local object store (no S3_ENDPOINT):
// DATA_DIR/store/S3_BUCKET, of cfg with its defaults set.
func LocalStoreDir(cfg Config) string {
	cfg.SetDefaults()
	return filepath.Join(cfg.DataDir, "store", cfg.S3Bucket)
}

// OpenStore opens the configured object store: MinIO/S3 when S3_ENDPOINT is set (the bucket is
// created if missing), else a local directory under DATA_DIR with the same key layout.

func OpenStore(ctx context.Context, cfg Config) (Store, error) {
	cfg.SetDefaults()
	if cfg.S3Endpoint == "" {
		st, err := objectstore.NewLocal(LocalStoreDir(cfg))
		if err != nil {
			return nil, fmt.Errorf("DATA_DIR: %w", err)
		}
		return st, nil
	}
	var roots *x509.CertPool
	if cfg.S3CAFile != "" {
		pem, err := os.ReadFile(cfg.S3CAFile)
		if err != nil {
			return nil, &SettingError{Settings: "S3_CA_FILE", Err: err}
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return nil, &SettingError{Settings: "S3_CA_FILE", Err: fmt.Errorf("%s holds no PEM certificate", cfg.S3CAFile)}
		}
	}
	st, err := objectstore.NewS3(objectstore.S3Config{
		Endpoint:        cfg.S3Endpoint,
		AccessKey:       cfg.S3AccessKey,
		SecretKey:       cfg.S3SecretKey,
		CredentialChain: cfg.S3Credentials == S3CredentialsChain,
		Bucket:          cfg.S3Bucket,
		UseSSL:          cfg.S3UseSSL,
		RootCAs:         roots,
		Region:          cfg.S3Region,
	})
	if err != nil {
		return nil, fmt.Errorf("S3_ENDPOINT: %w", err)
	}
	if err := st.EnsureBucket(ctx); err != nil {
		if se := storageSettingError(err, cfg); se != nil {
			return nil, se
		}
		if unreachable(err) {
			// Nothing answered at the endpoint: an outage, or a wrong address.
			return nil, fmt.Errorf("S3_ENDPOINT %s: not reachable: %w", cfg.S3Endpoint, err)
		}
		if !cfg.S3UseSSL && speaksTLS(ctx, cfg.S3Endpoint) {
			// An HTTPS server answers plain HTTP with a bare 400.
			return nil, &SettingError{Settings: "S3_USE_SSL", Err: fmt.Errorf("S3_USE_SSL is false but S3_ENDPOINT %s speaks HTTPS: %w", cfg.S3Endpoint, err)}
		}
		return nil, fmt.Errorf("S3_BUCKET %s at S3_ENDPOINT %s: %w", cfg.S3Bucket, cfg.S3Endpoint, err)
	}
	return st, nil
}

// HTTPAddr is the address the HTTP listener is bound to (useful with HTTP_ADDR=127.0.0.1:0).
func (s *Service) HTTPAddr() string { return s.listener.Addr().String() }

// memoryBudget is the pipeline's budget for MEMORY_BUDGET (nil for -1: none).
func memoryBudget(n int64) *membudget.Budget {
	if n < 0 {
		return nil
	}
	return membudget.New(n)
}
