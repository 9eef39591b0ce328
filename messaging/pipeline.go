package messaging

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/ThreeDotsLabs/watermill/message/router/middleware"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/internal/membudget"
)

// Request is what a Handler receives (handling.Request; the alias keeps the pipeline's API in its
// own terms).
type Request = handling.Request

// Handler answers one request (handling.Handler). The result is marshalled to JSON into the reply's
// "result". An error is mapped by the ErrorMapper: permanent errors are answered at once; transient
// ones are retried.
type Handler = handling.Handler

// Config tunes the pipeline. The zero value is completed by setDefaults.
type Config struct {
	Topology Topology
	// Concurrency is the number of requests per subject one replica works on at once (default 16);
	// Deps.Budget bounds their memory.
	Concurrency int
	// HandlerTimeout bounds one attempt (default 20s). In-process retries stop once HandlerTimeout
	// has elapsed, so the handler runs for at most about twice HandlerTimeout per delivery; with the
	// reply or dead letter, a delivery is worked on for at most DeliveryBudget(HandlerTimeout). It is
	// independent of AckWait: a heartbeat (in progress, every AckWait/3) keeps the message meanwhile.
	HandlerTimeout time.Duration
	// Retries are in-process retries of a transient failure before the message is nak'ed (default 2).
	Retries int
	// RetryInterval is the first in-process back-off, doubled per retry (default 200ms).
	RetryInterval time.Duration
	// NakDelays are the redelivery delays after the n-th failed delivery (default 1s, 3s, 10s, 30s;
	// the last repeats).
	NakDelays []time.Duration
	// DrainTimeout bounds how long Shutdown waits for in-flight requests (default 30s).
	DrainTimeout time.Duration
	// DefaultDeadline is the deadline of a request without contracts.HeaderDeadline, counted from
	// the time the stream stored it (default contracts.DefaultRequestTimeout).
	DefaultDeadline time.Duration
	// SubjectConcurrency overrides Concurrency for some subjects (a tenant's: TENANT_CONCURRENCY).
	SubjectConcurrency map[string]int
	// WorkSlots, when above 0, is how many requests one replica works on at once across all its
	// subjects (TENANT_WORK_SLOTS), shared fairly between the groups of Group (fairgate.go: each
	// active group holds at most its share, granted in turn): a request fetched while its group
	// has no slot waits its turn, heartbeats keeping it. 0: no shared bound (each subject's slots
	// only).
	WorkSlots int
	// Group names the group (a tenant) a subject's requests belong to for WorkSlots; nil: one
	// group.
	Group func(subject string) string
	// RequireScope answers a request without the scope header (contracts.HeaderScope)
	// invalid_request (REQUIRE_SCOPE).
	RequireScope bool
	// ReadOnly lists the subjects whose handlers change nothing but their reply (reads: a second run
	// of one is harmless). With Deps.Replies, their reply record is looked up, and the request
	// claimed with a running marker (running.go), while the handler runs instead of before it, which
	// saves a round trip to the server per request; when a record is found or waited for, it answers
	// and the handler's result is dropped. Every other subject's handler runs only once its delivery
	// claimed the request.
	ReadOnly []string
}

func (c *Config) setDefaults() {
	c.Topology.setDefaults()
	c.Concurrency = cmp.Or(c.Concurrency, 16)
	c.HandlerTimeout = cmp.Or(c.HandlerTimeout, DefaultHandlerTimeout)
	c.Retries = cmp.Or(c.Retries, 2)
	c.RetryInterval = cmp.Or(c.RetryInterval, 200*time.Millisecond)
	if len(c.NakDelays) == 0 {
		c.NakDelays = []time.Duration{time.Second, 3 * time.Second, 10 * time.Second, 30 * time.Second}
	}
	c.DrainTimeout = cmp.Or(c.DrainTimeout, 30*time.Second)
	c.DefaultDeadline = cmp.Or(c.DefaultDeadline, contracts.DefaultRequestTimeout)
}

// DefaultHandlerTimeout is HandlerTimeout's default.
const DefaultHandlerTimeout = 20 * time.Second

// Validate reports every invalid field.
func (c Config) Validate() error {
	errs := []error{c.Topology.Validate()}
	if c.Concurrency < 1 || c.Concurrency > 256 {
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, fmt.Errorf("Concurrency %d: must be 1..256", c.Concurrency))
	}
	for subject, n := range c.SubjectConcurrency {
		if n < 1 || n > 256 {
			errs = append(errs, fmt.Errorf("SubjectConcurrency[%s] %d: must be 1..256", subject, n))
		}
	}
	if c.HandlerTimeout < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("HandlerTimeout %s: must be at least 100ms", c.HandlerTimeout))
	}
	if c.DefaultDeadline < 0 {
		errs = append(errs, fmt.Errorf("DefaultDeadline %s: must not be negative", c.DefaultDeadline))
	}
	if c.WorkSlots < 0 || c.WorkSlots > 1024 {
		errs = append(errs, fmt.Errorf("WorkSlots %d: must be 0..1024", c.WorkSlots))
	}
	if c.Retries < 0 {
		//lint:ignore ST1005 the message starts with the config field's Go name, as Validate names every bad field
		errs = append(errs, fmt.Errorf("Retries %d: must not be negative", c.Retries))
	}
	return errors.Join(errs...)
}

// Deps are the pipeline's collaborators.
type Deps struct {
	// SubConn consumes requests and carries their acks; PubConn carries replies, dead letters and
	// claim checks, so a slow consumer of one never stalls the other. The caller closes both after
	// Shutdown.
	SubConn *nats.Conn
	// PubConn publishes replies and dead letters; it stays open after Shutdown.
	PubConn *nats.Conn
	Claims  *claimcheck.Store
	// SubjectClaims, optional, are the claim-check buckets of some subjects (a tenant's own,
	// contracts.TenantClaimCheckBucket): their requests' bodies are resolved and their large replies
	// stored there, never in Claims.
	SubjectClaims map[string]*claimcheck.Store
	// Replies, optional, records each request's reply (EnsureReplies): a request asked again is
	// answered with it instead of running again.
	Replies  *Replies
	MapError ErrorMapper
	// Envelope decodes the request_id of each request; nil means DecodeEnvelope.
	Envelope EnvelopeDecoder
	// CompleteError, optional, completes every error reply (see ErrorCompleter).
	CompleteError ErrorCompleter
	// Budget, optional, bounds the memory of the requests in flight by bytes: each attempt gets an
	// account on it (membudget.Attach) that the object store and the claim check charge before they
	// allocate, released once the attempt's reply was published.
	Budget *membudget.Budget
	Logger *slog.Logger
	Tracer trace.Tracer
	Meter  metric.Meter
}

// Pipeline consumes the request subjects and answers them. Create it with New, start it with Run,
// stop it with Shutdown.
type Pipeline struct {
	cfg      Config
	deps     Deps
	router   *message.Router
	sub      *subscriber
	draining atomic.Bool
	answers  atomic.Int64 // answerExhausted goroutines running
	advMu    sync.Mutex
	metrics  instruments
	handlers map[string]Handler
	bound    atomic.Bool
	js       jetstream.JetStream
	advisory *nats.Subscription
	clock    func() time.Time // nil: time.Now (tests set it)
	gate     *fairGate        // nil without Config.WorkSlots
}

// New builds a pipeline serving handlers (by subject). Every subject needs a durable consumer made by
// EnsureTopology.
func New(cfg Config, deps Deps, handlers map[string]Handler) (*Pipeline, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if deps.SubConn == nil || deps.PubConn == nil || deps.Claims == nil || deps.MapError == nil {
		return nil, errors.New("messaging: SubConn, PubConn, Claims and MapError are required")
	}
	if deps.SubConn == deps.PubConn {
		return nil, errors.New("messaging: SubConn and PubConn must be separate connections")
	}
	if deps.Logger == nil {
		deps.Logger = slog.Default()
	}
	if deps.Envelope == nil {
		deps.Envelope = DecodeEnvelope
	}
	p := &Pipeline{cfg: cfg, deps: deps, handlers: handlers}
	if cfg.WorkSlots > 0 {
		p.gate = newFairGate(cfg.WorkSlots)
	}
	var err error
	if p.js, err = jetstream.New(deps.PubConn); err != nil {
		return nil, err
	}
	if p.metrics, err = newInstruments(deps.Meter); err != nil {
		return nil, err
	}
	p.metrics.zero(context.Background(), slices.Sorted(maps.Keys(handlers)))
	p.metrics.full.Add(context.Background(), 0)
	if err := observeBucket(deps.Meter, deps.Claims); err != nil {
		return nil, err
	}
	if err := observeBudget(deps.Meter, deps.Budget); err != nil {
		return nil, err
	}
	if p.deps.Tracer == nil {
		p.deps.Tracer = noopTracer()
	}
	wlog := watermill.NewSlogLoggerWithLevelMapping(deps.Logger.With("component", "watermill"), map[slog.Level]slog.Level{slog.LevelInfo: slog.LevelDebug})
	subJS, err := jetstream.New(deps.SubConn)
	if err != nil {
		return nil, err
	}
	p.sub = newSubscriber(subJS, cfg.Topology.Stream, cfg.Topology.AckWait, DeliveryBudget(cfg.HandlerTimeout), nakDelay{p: p}.WaitTime, deps.Logger)
	p.sub.afterAck = p.releaseClaim
	// Shutdown has already waited for in-flight work when it closes the router.
	p.router, err = message.NewRouter(message.RouterConfig{CloseTimeout: 5 * time.Second}, wlog)
	if err != nil {
		return nil, err
	}
	for subject, h := range handlers {
		slots := cfg.Concurrency
		if n, ok := cfg.SubjectConcurrency[subject]; ok {
			slots = n
		}
		for i := range slots {
			name := fmt.Sprintf("%s#%d", subject, i)
			wh := p.router.AddConsumerHandler(name, subject, p.sub, p.serve(subject, h))
			// First added runs first (outermost). The order is deliberate, see middleware.go.
			wh.AddMiddleware(
				p.admit,
				p.takeSlot,
				p.observe,
				p.finalize,
				p.expire,
				middleware.Recoverer,
				middleware.Retry{
					MaxRetries:      cfg.Retries,
					InitialInterval: cfg.RetryInterval,
					Multiplier:      2,
					MaxInterval:     cfg.HandlerTimeout / 4,
					MaxElapsedTime:  cfg.HandlerTimeout,
					// Timeout below cancels each attempt's context; start every retry from the original.
					ResetContextOnRetry: true,
					ShouldRetry:         func(rp middleware.RetryParams) bool { return p.transient(rp.Err) },
				}.Middleware,
				middleware.Timeout(cfg.HandlerTimeout),
			)
		}
	}
	return p, nil
}

// Run consumes until ctx is cancelled or Shutdown is called. It returns once the router stopped.
func (p *Pipeline) Run(ctx context.Context) error {
	p.advMu.Lock()
	if !p.draining.Load() {
		sub, err := p.watchExhausted()
		if err != nil {
			p.advMu.Unlock()
			return fmt.Errorf("messaging: subscribe to max-deliveries advisories: %w", err)
		}
		p.advisory = sub
	}
	p.advMu.Unlock()
	go func() {
		select {
		case <-p.router.Running():
			p.bound.Store(true)
		case <-ctx.Done():
		}
	}()
	return p.router.Run(ctx)
}

// Ready reports whether every consumer is bound, pulls work, and the pipeline is not shutting down.
func (p *Pipeline) Ready() bool { return p.bound.Load() && p.sub.Healthy() && !p.draining.Load() }

// Activity reports the requests in flight now and the requests taken since the pipeline started.
func (p *Pipeline) Activity() (inFlight int64, taken uint64) {
	return p.sub.inflight.Load(), p.sub.handled.Load()
}

// Running is closed once every handler has subscribed.
func (p *Pipeline) Running() <-chan struct{} { return p.router.Running() }

// Shutdown stops taking work and lets the work in flight finish: it stops fetching (a message
// fetched but not started goes back to JetStream at once, for another replica), waits until every
// message in flight was answered and acked, within Config.DrainTimeout or ctx, then closes the router.
// Work that did not finish in time stays unacked and JetStream redelivers it after AckWait; Shutdown
// then returns the deadline error.
func (p *Pipeline) Shutdown(ctx context.Context) error {
	var errs []error
	p.advMu.Lock()
	p.draining.Store(true)
	if p.gate != nil {
		// Requests still waiting for a work slot were never started: handed back at once.
		p.gate.close()
	}
	if p.advisory != nil {
		// Drain: advisories already received are still answered.
		if err := p.advisory.Drain(); err != nil {
			errs = append(errs, fmt.Errorf("max-deliveries advisories: %w", err))
		}
		p.advisory = nil
	}
	p.advMu.Unlock()
	p.sub.stopFetching()
	drainCtx, cancel := context.WithTimeout(ctx, p.cfg.DrainTimeout)
	defer cancel()
	if err := p.sub.waitIdle(drainCtx); err != nil {
		errs = append(errs, err)
	}
	// Acks are sent without waiting for confirmation: make sure those sent so far left this process.
	if err := p.deps.SubConn.FlushWithContext(drainCtx); err != nil {
		errs = append(errs, fmt.Errorf("acks not flushed (JetStream redelivers what it did not get): %w", err))
	}
	if err := p.router.Close(); err != nil {
		errs = append(errs, err)
	}
	answersCtx, cancelAnswers := context.WithTimeout(ctx, 5*time.Second)
	defer cancelAnswers()
	if err := waitZero(answersCtx, &p.answers); err != nil {
		errs = append(errs, fmt.Errorf("exhausted requests still being answered: %w", err))
	}
	return errors.Join(errs...)
}

type nakDelay struct{ p *Pipeline }

// WaitTime is the back-off before redelivery after the n-th delivery failed. Work handed back while
// draining is redelivered at once (to another replica: this one no longer fetches).
func (d nakDelay) WaitTime(n uint64) time.Duration {
	if d.p.draining.Load() {
		return 0
	}
	delays := d.p.cfg.NakDelays
	if n == 0 {
		n = 1
	}
	return delays[min(int(n)-1, len(delays)-1)]
}
