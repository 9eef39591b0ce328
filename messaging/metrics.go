package messaging

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/scope"
)

// Metric names (OTel; the Prometheus exporter turns dots into underscores and adds _total to
// counters and the unit to the others: worker.messages is worker_messages_total). docs/operations.md
// lists them as Prometheus names; every series exists at zero from New on, except the duration
// histogram's, which appear with the first request of their subject and outcome.
const (
	// MetricMessages counts deliveries handled, by subject and outcome.
	MetricMessages = "worker.messages"
	// MetricDuration is the time from delivery to outcome, by subject and outcome.
	MetricDuration = "worker.message.duration"
	// MetricBytesIn counts request body bytes (claim checks resolved), by subject.
	MetricBytesIn = "worker.bytes.in"
	// MetricBytesOut counts reply body bytes, by subject.
	MetricBytesOut = "worker.bytes.out"
	// MetricFailed counts requests answered with an error (error replies and dead letters), by subject
	// and wire error code.
	MetricFailed = "worker.failed_requests"
	// MetricInFlight is the number of requests being worked on, by subject.
	MetricInFlight = "worker.in_flight"
	// MetricClaimChecks counts bodies that travelled through the claim-check bucket, by subject and
	// direction (in: requests, out: replies).
	MetricClaimChecks = "worker.claim_checks"
	// MetricClaimCheckBytes counts the bytes of those bodies, by subject and direction.
	MetricClaimCheckBytes = "worker.claim_check.size"
	// MetricDeadLetters counts requests dead-lettered, by subject and reason (DeadLetterReasons).
	MetricDeadLetters = "worker.dead_letters"
	// MetricClaimBucketSize is the claim-check bucket's size now (observed at each collection).
	MetricClaimBucketSize = "worker.claim_check.bucket.size"
	// MetricClaimBucketLimit is the claim-check bucket's size limit (-1: none).
	MetricClaimBucketLimit = "worker.claim_check.bucket.limit"
	// MetricClaimFull counts replies that could not be stored because the claim-check bucket was
	// full (each is retried, then answered unavailable).
	MetricClaimFull = "worker.claim_check.full"
	// MetricMemoryBudget is the size of the memory budget (MEMORY_BUDGET).
	MetricMemoryBudget = "worker.memory.budget"
	// MetricMemoryReserved is the part of it the requests in flight hold now (it may exceed the
	// budget by requests' second reservations).
	MetricMemoryReserved = "worker.memory.reserved"
	// MetricMemoryWaiting is the number of requests waiting for room in the budget.
	MetricMemoryWaiting = "worker.memory.waiting"
	// MetricExpired counts requests not executed because their deadline had passed, by subject.
	MetricExpired = "worker.expired_requests"
	// MetricScopeRefusals counts requests that named something outside their scope (answered as
	// not found), by subject and reason (ScopeReasons).
	MetricScopeRefusals = "worker.scope.refusals"
)

// ScopeReasons are the values of MetricScopeRefusals' reason label.
var ScopeReasons = []string{scope.ReasonWorkspace, scope.ReasonArtifact, scope.ReasonWrite}

// Dead-letter reasons, the reason label of MetricDeadLetters (the Dead-Letter-Reason header starts
// with the same word, spelled for people).
const (
	ReasonPoison        = "poison"         // undecodable or invalid request
	ReasonPanic         = "panic"          // the handler panicked
	ReasonMaxDeliveries = "max_deliveries" // a dependency stayed down over MaxDeliver deliveries
	ReasonNoOutcome     = "no_outcome"     // the last delivery never finished (worker killed, hung)
	ReasonPermanent     = "permanent"      // an error mapped to a permanent code after the handler
)

// DeadLetterReasons are the values of MetricDeadLetters' reason label.
var DeadLetterReasons = []string{ReasonPoison, ReasonPanic, ReasonMaxDeliveries, ReasonNoOutcome, ReasonPermanent}

// Outcomes are the values of the outcome label.
var Outcomes = []string{outcomeOK, outcomeErrorReply, outcomeRetry, outcomeDeadLetter, outcomeHandedBack, outcomeExpired, outcomeLost, outcomeReplayed}

const (
	directionIn  = "in"
	directionOut = "out"
)

type instruments struct {
	messages    metric.Int64Counter
	duration    metric.Float64Histogram
	bytesIn     metric.Int64Counter
	bytesOut    metric.Int64Counter
	failed      metric.Int64Counter
	inFlight    metric.Int64UpDownCounter
	claims      metric.Int64Counter
	claimBytes  metric.Int64Counter
	deadLetters metric.Int64Counter
	expired     metric.Int64Counter
	full        metric.Int64Counter
	refusals    metric.Int64Counter
}

func newInstruments(m metric.Meter) (instruments, error) {
	var in instruments
	if m == nil {
		m = noop.NewMeterProvider().Meter("")
	}
	var err error
	counter := func(name, unit, desc string) metric.Int64Counter {
		if err != nil {
			return nil
		}
		var c metric.Int64Counter
		opts := []metric.Int64CounterOption{metric.WithDescription(desc)}
		if unit != "" {
			opts = append(opts, metric.WithUnit(unit))
		}
		c, err = m.Int64Counter(name, opts...)
		return c
	}
	in.messages = counter(MetricMessages, "", "Requests handled, by subject and outcome.")
	in.bytesIn = counter(MetricBytesIn, "By", "Request body bytes (claim checks resolved), by subject.")
	in.bytesOut = counter(MetricBytesOut, "By", "Reply body bytes, by subject.")
	in.failed = counter(MetricFailed, "", "Requests answered with an error reply, by subject and error code.")
	in.claims = counter(MetricClaimChecks, "", "Bodies that travelled through the claim-check bucket, by subject and direction.")
	in.claimBytes = counter(MetricClaimCheckBytes, "By", "Bytes of the bodies that travelled through the claim-check bucket, by subject and direction.")
	in.deadLetters = counter(MetricDeadLetters, "", "Requests dead-lettered, by subject and reason.")
	in.expired = counter(MetricExpired, "", "Requests not executed because their deadline had passed, by subject.")
	in.full = counter(MetricClaimFull, "", "Replies not stored because the claim-check bucket was full.")
	in.refusals = counter(MetricScopeRefusals, "", ScopeRefusalsDescription)
	if err != nil {
		return in, err
	}
	if in.inFlight, err = m.Int64UpDownCounter(MetricInFlight, metric.WithDescription("Requests being worked on, by subject.")); err != nil {
		return in, err
	}
	in.duration, err = m.Float64Histogram(MetricDuration, metric.WithUnit("s"), metric.WithDescription("Time from delivery to outcome, by subject and outcome."),
		metric.WithExplicitBucketBoundaries(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
	return in, err
}

// zero makes every series of subjects exist at zero, so that rates and alerts see them before the
// first request (a series that appears with its first increment hides that increment from rate()).
func (in instruments) zero(ctx context.Context, subjects []string) {
	for _, s := range subjects {
		subj := attribute.String("subject", s)
		for _, o := range Outcomes {
			in.messages.Add(ctx, 0, metric.WithAttributes(subj, attribute.String("outcome", o)))
		}
		in.bytesIn.Add(ctx, 0, metric.WithAttributes(subj))
		in.bytesOut.Add(ctx, 0, metric.WithAttributes(subj))
		in.expired.Add(ctx, 0, metric.WithAttributes(subj))
		in.inFlight.Add(ctx, 0, metric.WithAttributes(subj))
		for _, code := range contracts.ErrorCodes {
			in.failed.Add(ctx, 0, metric.WithAttributes(subj, attribute.String("code", code)))
		}
		for _, dir := range []string{directionIn, directionOut} {
			in.claims.Add(ctx, 0, metric.WithAttributes(subj, attribute.String("direction", dir)))
			in.claimBytes.Add(ctx, 0, metric.WithAttributes(subj, attribute.String("direction", dir)))
		}
		for _, r := range DeadLetterReasons {
			in.deadLetters.Add(ctx, 0, metric.WithAttributes(subj, attribute.String("reason", r)))
		}
		for _, r := range ScopeReasons {
			in.refusals.Add(ctx, 0, metric.WithAttributes(subj, attribute.String("reason", r)))
		}
	}
}

// ScopeRefusalsDescription is MetricScopeRefusals' description (the HTTP endpoints count on the
// same instrument).
const ScopeRefusalsDescription = "Requests that named something outside their scope, answered as not found, by subject and reason."

// record counts one outcome of a delivery of subject.
func (in instruments) record(ctx context.Context, subject string, st *state, d time.Duration) {
	subj := attribute.String("subject", subject)
	attrs := metric.WithAttributes(subj, attribute.String("outcome", st.outcome))
	in.messages.Add(ctx, 1, attrs)
	if d > 0 {
		in.duration.Record(ctx, d.Seconds(), attrs)
	}
	if st.bytesIn > 0 {
		in.bytesIn.Add(ctx, int64(st.bytesIn), metric.WithAttributes(subj))
	}
	if st.bytesOut > 0 {
		in.bytesOut.Add(ctx, int64(st.bytesOut), metric.WithAttributes(subj))
	}
	if st.claimedIn {
		in.claims.Add(ctx, 1, metric.WithAttributes(subj, attribute.String("direction", directionIn)))
		in.claimBytes.Add(ctx, int64(st.bytesIn), metric.WithAttributes(subj, attribute.String("direction", directionIn)))
	}
	if st.claimedOut {
		in.claims.Add(ctx, 1, metric.WithAttributes(subj, attribute.String("direction", directionOut)))
		in.claimBytes.Add(ctx, int64(st.bytesOut), metric.WithAttributes(subj, attribute.String("direction", directionOut)))
	}
	if st.code != "" && (st.outcome == outcomeErrorReply || st.outcome == outcomeDeadLetter) {
		in.failed.Add(ctx, 1, metric.WithAttributes(subj, attribute.String("code", st.code)))
	}
	if st.outcome == outcomeExpired {
		in.expired.Add(ctx, 1, metric.WithAttributes(subj))
	}
	if st.refusal != nil {
		in.refusals.Add(ctx, 1, metric.WithAttributes(subj, attribute.String("reason", st.refusal.Reason)))
	}
	if st.outcome == outcomeDeadLetter && st.reason != "" {
		in.deadLetters.Add(ctx, 1, metric.WithAttributes(subj, attribute.String("reason", st.reason)))
	}
}

// claimFull counts a reply the full claim-check bucket refused.
func (in instruments) claimFull(ctx context.Context) { in.full.Add(ctx, 1) }

// observeBucket reports the claim-check bucket's size and limit at each collection.
func observeBucket(m metric.Meter, claims *claimcheck.Store) error {
	if m == nil {
		return nil
	}
	size, err := m.Int64ObservableGauge(MetricClaimBucketSize, metric.WithUnit("By"), metric.WithDescription("Size of the claim-check bucket."))
	if err != nil {
		return err
	}
	limit, err := m.Int64ObservableGauge(MetricClaimBucketLimit, metric.WithUnit("By"), metric.WithDescription("Size limit of the claim-check bucket (-1: none)."))
	if err != nil {
		return err
	}
	_, err = m.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		n, max, err := claims.Usage(ctx)
		if err != nil {
			return nil // no sample this time: NATS is unreachable, which other signals show
		}
		o.ObserveInt64(size, int64(n))
		o.ObserveInt64(limit, max)
		return nil
	}, size, limit)
	return err
}

// observeBudget reports the memory budget's size, what is reserved of it and who waits.
func observeBudget(m metric.Meter, b *membudget.Budget) error {
	if m == nil || b == nil {
		return nil
	}
	size, err := m.Int64ObservableGauge(MetricMemoryBudget, metric.WithUnit("By"), metric.WithDescription("Size of the memory budget of the requests in flight."))
	if err != nil {
		return err
	}
	used, err := m.Int64ObservableGauge(MetricMemoryReserved, metric.WithUnit("By"), metric.WithDescription("Memory reserved by the requests in flight."))
	if err != nil {
		return err
	}
	waiting, err := m.Int64ObservableGauge(MetricMemoryWaiting, metric.WithDescription("Requests waiting for room in the memory budget."))
	if err != nil {
		return err
	}
	_, err = m.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		o.ObserveInt64(size, b.Size())
		o.ObserveInt64(used, b.Used())
		o.ObserveInt64(waiting, int64(b.Waiting()))
		return nil
	}, size, used, waiting)
	return err
}

// inFlightAdd moves the in-flight gauge of subject by n.
func (in instruments) inFlightAdd(ctx context.Context, subject string, n int64) {
	in.inFlight.Add(ctx, n, metric.WithAttributes(attribute.String("subject", subject)))
}
