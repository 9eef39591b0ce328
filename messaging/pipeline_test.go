package messaging_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/membudget"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

var errFlaky = errors.New("dependency unavailable")

type wireErr struct{ code string }

func (e wireErr) Error() string { return e.code }

// mapError treats errFlaky as transient and wireErr as a permanent wire error.
func mapError(err error) (*contracts.Error, bool) {
	var we wireErr
	if errors.As(err, &we) {
		return &contracts.Error{Code: we.code, Message: "permanent"}, false
	}
	if errors.Is(err, errFlaky) {
		return &contracts.Error{Code: contracts.CodeUnavailable, Message: err.Error()}, true
	}
	return &contracts.Error{Code: contracts.CodeInternal, Message: err.Error()}, false
}

type rig struct {
	t        *testing.T
	server   *server.Server
	nc       *nats.Conn
	js       jetstream.JetStream
	pipeline *messaging.Pipeline
	complete messaging.ErrorCompleter
	budget   *membudget.Budget
	// replies: the pipelines record replies (messaging.EnsureReplies); log, when set, takes their logs.
	replies bool
	log     *slog.Logger
}

func newRig(t *testing.T, cfg messaging.Config, handlers map[string]messaging.Handler) *rig {
	return newRigCompleting(t, cfg, handlers, nil)
}

// newRigCompleting is newRig with an ErrorCompleter.
func newRigCompleting(t *testing.T, cfg messaging.Config, handlers map[string]messaging.Handler, complete messaging.ErrorCompleter) *rig {
	return newRigWith(t, cfg, handlers, &rig{complete: complete})
}

// newRigWith is newRig with the ErrorCompleter and memory budget of with.
func newRigWith(t *testing.T, cfg messaging.Config, handlers map[string]messaging.Handler, with *rig) *rig {
	t.Helper()
	s := natstest.Start(t)
	nc := natstest.Connect(t, s)
	js, _ := jetstream.New(nc)
	r := &rig{t: t, server: s, nc: nc, js: js, complete: with.complete, budget: with.budget, replies: with.replies, log: with.log}
	r.pipeline = r.startPipeline(cfg, handlers)
	return r
}

// startPipeline runs one more replica on the rig's server until the test ends.
func (r *rig) startPipeline(cfg messaging.Config, handlers map[string]messaging.Handler) *messaging.Pipeline {
	t := r.t
	t.Helper()
	ctx := context.Background()
	topo, err := messaging.EnsureTopology(ctx, r.js, cfg.Topology)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Topology = topo
	claims, err := claimcheck.Ensure(ctx, r.js, time.Hour, r.nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	var replies *messaging.Replies
	if r.replies {
		if replies, err = messaging.EnsureReplies(ctx, r.js, messaging.ReplyConfig{}); err != nil {
			t.Fatal(err)
		}
	}
	log := r.log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	p, err := messaging.New(cfg, messaging.Deps{
		SubConn: natstest.Connect(t, r.server), PubConn: natstest.Connect(t, r.server), Claims: claims, Replies: replies, MapError: mapError,
		CompleteError: r.complete, Logger: log, Budget: r.budget,
	}, handlers)
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Run(context.Background()) }()
	select {
	case <-p.Running():
	case <-time.After(10 * time.Second):
		t.Fatal("pipeline not running")
	}
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
	return p
}

// send publishes a request with a Reply-To inbox and returns the subscription for its replies.
func (r *rig) send(subject string, body string, hdr nats.Header) *nats.Subscription {
	r.t.Helper()
	inbox := nats.NewInbox()
	sub, err := r.nc.SubscribeSync(inbox)
	if err != nil {
		r.t.Fatal(err)
	}
	msg := &nats.Msg{Subject: subject, Data: []byte(body), Header: nats.Header{}}
	for k, v := range hdr {
		msg.Header[k] = v
	}
	msg.Header.Set(contracts.HeaderReplyTo, inbox)
	if _, err := r.js.PublishMsg(context.Background(), msg); err != nil {
		r.t.Fatal(err)
	}
	return sub
}

func (r *rig) reply(sub *nats.Subscription) contracts.Reply {
	r.t.Helper()
	m, err := sub.NextMsg(20 * time.Second)
	if err != nil {
		r.t.Fatalf("no reply: %v", err)
	}
	var rep contracts.Reply
	if err := json.Unmarshal(m.Data, &rep); err != nil {
		r.t.Fatalf("bad reply %q: %v", m.Data, err)
	}
	return rep
}

// deadLetters returns the messages on deadletter.<subject>.
func (r *rig) deadLetters(subject string, want int) []jetstream.Msg {
	r.t.Helper()
	c, err := r.js.OrderedConsumer(context.Background(), "WORKER_DEADLETTER", jetstream.OrderedConsumerConfig{FilterSubjects: []string{contracts.DeadLetterPrefix + subject}})
	if err != nil {
		r.t.Fatal(err)
	}
	// Fetch returns once it has want messages: the long wait costs nothing when they come, and
	// leaves a loaded machine time to publish them (the reply goes out before the dead letter).
	batch, err := c.Fetch(want, jetstream.FetchMaxWait(30*time.Second))
	if err != nil {
		r.t.Fatal(err)
	}
	var out []jetstream.Msg
	for m := range batch.Messages() {
		out = append(out, m)
	}
	return out
}

const subj = contracts.SubjectGetArtifact

func echo(ctx context.Context, req messaging.Request) (any, error) {
	return map[string]string{"echo": req.RequestID}, nil
}

func TestReplyEnvelope(t *testing.T) {
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: echo})
	rep := r.reply(r.send(subj, `{"request_id":"abc"}`, nil))
	if !rep.OK || rep.RequestID != "abc" || string(rep.Result) != `{"echo":"abc"}` {
		t.Fatalf("reply = %+v result %s", rep, rep.Result)
	}
}

func TestPermanentErrorIsAnsweredOnceAndNotRetried(t *testing.T) {
	var calls atomic.Int32
	// Retries and redeliveries 10 ms apart: a wrong retry or nak shows within the wait below
	// (with the defaults, 200 ms and 1 s, it could hide behind it).
	cfg := messaging.Config{RetryInterval: 5 * time.Millisecond, NakDelays: []time.Duration{10 * time.Millisecond}}
	r := newRig(t, cfg, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		calls.Add(1)
		return nil, wireErr{"artifact_not_found"}
	}})
	rep := r.reply(r.send(subj, `{"request_id":"p1"}`, nil))
	if rep.OK || rep.Error.Code != "artifact_not_found" {
		t.Fatalf("reply = %+v", rep)
	}
	// The request is acked: nothing pending, nothing redelivered.
	cons, err := r.js.Consumer(context.Background(), messaging.DefaultStream, messaging.ConsumerName(subj))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		info, err := cons.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.NumAckPending == 0 && info.AckFloor.Stream >= 1 {
			if info.NumRedelivered != 0 {
				t.Fatalf("redelivered %d times", info.NumRedelivered)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not acked: %+v", info)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // 20 redelivery delays
	if n := calls.Load(); n != 1 {
		t.Fatalf("handler ran %d times, want 1", n)
	}
}

func TestTransientErrorIsRetriedUntilItSucceeds(t *testing.T) {
	var calls atomic.Int32
	cfg := messaging.Config{RetryInterval: 10 * time.Millisecond, NakDelays: []time.Duration{50 * time.Millisecond}}
	r := newRig(t, cfg, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		if calls.Add(1) < 5 { // 3 in-process attempts fail, then a redelivery fails once more
			return nil, errFlaky
		}
		return map[string]uint64{"delivery": req.Delivery}, nil
	}})
	rep := r.reply(r.send(subj, `{"request_id":"t1"}`, nil))
	if !rep.OK || string(rep.Result) != `{"delivery":2}` {
		t.Fatalf("reply = %+v %s", rep, rep.Result)
	}
}

func TestTransientErrorExhaustingMaxDeliverIsAnsweredAndDeadLettered(t *testing.T) {
	var calls atomic.Int32
	cfg := messaging.Config{
		Topology:      messaging.Topology{MaxDeliver: 3},
		Retries:       1,
		RetryInterval: 5 * time.Millisecond,
		NakDelays:     []time.Duration{20 * time.Millisecond},
	}
	r := newRig(t, cfg, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		calls.Add(1)
		return nil, errFlaky
	}})
	sub := r.send(subj, `{"request_id":"x1"}`, nil)
	rep := r.reply(sub)
	if rep.OK || rep.Error.Code != contracts.CodeUnavailable || !rep.Error.Retryable || rep.RequestID != "x1" {
		t.Fatalf("reply = %+v %+v", rep, rep.Error)
	}
	if n := calls.Load(); n != 6 { // 3 deliveries x (1 attempt + 1 retry)
		t.Errorf("handler ran %d times, want 6", n)
	}
	dl := r.deadLetters(subj, 1)
	if len(dl) != 1 {
		t.Fatalf("dead letters = %d, want 1", len(dl))
	}
	h := dl[0].Headers()
	if h.Get(contracts.HeaderDeliveryCount) != "3" || h.Get(contracts.HeaderOriginalSubject) != subj || h.Get(contracts.HeaderDeadLetterReason) == "" {
		t.Errorf("dead-letter headers = %v", h)
	}
	if string(dl[0].Data()) != `{"request_id":"x1"}` {
		t.Errorf("dead letter body = %q", dl[0].Data())
	}
}

func TestPoisonMessagesAreAnsweredAndDeadLettered(t *testing.T) {
	var calls atomic.Int32
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		calls.Add(1)
		return echo(ctx, req)
	}})
	cases := []struct{ name, body, field string }{
		{"not json", `{"request_id":`, ""},
		{"not an object", `[1,2]`, ""},
		{"no request_id", `{"ref":"a"}`, "request_id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep := r.reply(r.send(subj, c.body, nats.Header{contracts.HeaderMsgID: {"poison-" + c.name}}))
			if rep.OK || rep.Error.Code != contracts.CodeInvalidRequest || rep.Error.Field != c.field {
				t.Fatalf("reply = %+v %+v", rep, rep.Error)
			}
			if rep.RequestID != "poison-"+c.name {
				t.Errorf("request_id = %q, want the Nats-Msg-Id", rep.RequestID)
			}
		})
	}
	if got := len(r.deadLetters(subj, len(cases))); got != len(cases) {
		t.Fatalf("dead letters = %d, want %d", got, len(cases))
	}
	if calls.Load() != 0 {
		t.Fatal("handler ran for a poison message")
	}
}

// A poison message whose Nats-Msg-Id is over-long is answered without echoing it.
func TestPoisonMessageDoesNotEchoAnOverlongMsgID(t *testing.T) {
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: echo})
	long := strings.Repeat("m", contracts.MaxIDLen+1)
	rep := r.reply(r.send(subj, `[1,2]`, nats.Header{contracts.HeaderMsgID: {long}}))
	if rep.OK || rep.Error.Code != contracts.CodeInvalidRequest {
		t.Fatalf("reply = %+v %+v", rep, rep.Error)
	}
	if rep.RequestID != "" {
		t.Errorf("reply echoes a request_id of %d bytes", len(rep.RequestID))
	}
}

func TestPanicIsContainedAnsweredAndDeadLettered(t *testing.T) {
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		if req.RequestID == "boom" {
			panic("handler bug")
		}
		return echo(ctx, req)
	}})
	rep := r.reply(r.send(subj, `{"request_id":"boom"}`, nil))
	if rep.OK || rep.Error.Code != contracts.CodeInternal {
		t.Fatalf("reply = %+v", rep)
	}
	if rep := r.reply(r.send(subj, `{"request_id":"after"}`, nil)); !rep.OK {
		t.Fatalf("worker stopped serving after a panic: %+v", rep)
	}
	if len(r.deadLetters(subj, 1)) != 1 {
		t.Fatal("panicked message not dead-lettered")
	}
}

// TestEveryErrorReplyIsCompleted: the ErrorCompleter sees every error reply, whichever step made it,
// with the subject and the request body, and what it returns is what the caller gets.
func TestEveryErrorReplyIsCompleted(t *testing.T) {
	complete := func(subject string, body []byte, e *contracts.Error) *contracts.Error {
		out := *e
		out.Message = e.Message + " | " + subject + " " + string(body)
		return &out
	}
	cfg := messaging.Config{
		Topology:      messaging.Topology{MaxDeliver: 2},
		RetryInterval: 5 * time.Millisecond,
		NakDelays:     []time.Duration{20 * time.Millisecond},
	}
	r := newRigCompleting(t, cfg, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		switch req.RequestID {
		case "permanent":
			return nil, wireErr{contracts.CodeArtifactNotFound}
		case "panic":
			panic("handler bug")
		case "flaky":
			return nil, errFlaky
		}
		return echo(ctx, req)
	}}, complete)
	for _, c := range []struct{ body, code string }{
		{`{"request_id":"permanent","locale":"en"}`, contracts.CodeArtifactNotFound},
		{`{"request_id":"panic","locale":"en"}`, contracts.CodeInternal},
		{`{"request_id":"flaky","locale":"en"}`, contracts.CodeUnavailable},
		{`{"locale":"en"}`, contracts.CodeInvalidRequest},
		{`{"request_id":`, contracts.CodeInvalidRequest},
	} {
		rep := r.reply(r.send(subj, c.body, nats.Header{contracts.HeaderMsgID: {c.body}}))
		if rep.OK || rep.Error.Code != c.code || !strings.HasSuffix(rep.Error.Message, " | "+subj+" "+c.body) {
			t.Errorf("%s: reply = %+v, want %s completed with the subject and body", c.body, rep.Error, c.code)
		}
	}
	if rep := r.reply(r.send(subj, `{"request_id":"fine"}`, nil)); !rep.OK {
		t.Errorf("ok reply = %+v", rep)
	}
}

// A repeated header key made watermill-nats' default unmarshaler fail and its subscriber crash; here
// the first value wins and the request is served.
func TestRepeatedHeaderKeyDoesNotCrash(t *testing.T) {
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: echo})
	rep := r.reply(r.send(subj, `{"request_id":"dup"}`, nats.Header{"X-Dup": {"a", "b"}, "traceparent": {"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "junk"}}))
	if !rep.OK {
		t.Fatalf("reply = %+v", rep)
	}
}

// A Reply-To that cannot or must not take a reply (a wildcard, a system subject, a subject the
// worker's streams capture) makes the message poison: nothing is published there.
func TestUnusableReplyToIsPoison(t *testing.T) {
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: echo})
	bad := []string{"bad.*.subject", "$JS.API.STREAM.DELETE.WORKER_REQUESTS", contracts.SubjectGetArtifact, "deadletter.tool.get_artifact", "a..b"}
	for i, replyTo := range bad {
		msg := &nats.Msg{Subject: subj, Data: []byte(fmt.Sprintf(`{"request_id":"rt-%d"}`, i)), Header: nats.Header{contracts.HeaderReplyTo: {replyTo}}}
		if _, err := r.js.PublishMsg(context.Background(), msg); err != nil {
			t.Fatal(err)
		}
	}
	if dl := r.deadLetters(subj, len(bad)); len(dl) != len(bad) {
		t.Fatalf("dead letters = %d, want %d", len(dl), len(bad))
	}
	info, err := r.js.Stream(context.Background(), "WORKER_REQUESTS")
	if err != nil {
		t.Fatal(err)
	}
	if n := info.CachedInfo().State.Msgs; n != uint64(len(bad)) {
		t.Fatalf("stream holds %d messages: a reply was stored as a request", n)
	}
}

func TestLargeRequestAndReplyTravelByClaimCheck(t *testing.T) {
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = 'a' + byte(i%26)
	}
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		var in struct{ Blob string }
		_ = json.Unmarshal(req.Body, &in)
		return map[string]string{"blob": in.Blob}, nil
	}})
	claims, err := claimcheck.Ensure(context.Background(), r.js, time.Hour, r.nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`{"request_id":"big","blob":%q}`, big)
	inbox := nats.NewInbox()
	sub, _ := r.nc.SubscribeSync(inbox)
	msg, err := claims.Prepare(context.Background(), subj, nats.Header{contracts.HeaderReplyTo: {inbox}}, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if msg.Header.Get(contracts.HeaderClaimCheck) == "" {
		t.Fatal("a 3 MB request was not claim-checked")
	}
	if _, err := r.js.PublishMsg(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	m, err := sub.NextMsg(20 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if m.Header.Get(contracts.HeaderClaimCheck) == "" || len(m.Data) != 0 {
		t.Fatal("a 3 MB reply was not claim-checked")
	}
	data, err := claims.Resolve(context.Background(), m.Header, m.Data)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		OK     bool
		Result struct{ Blob string }
	}
	if err := json.Unmarshal(data, &rep); err != nil || !rep.OK || rep.Result.Blob != string(big) {
		t.Fatalf("claim-checked round trip lost data (ok=%v, err=%v)", rep.OK, err)
	}
}

// Shutdown lets in-flight requests finish and reply, and hands queued ones back to JetStream.
func TestShutdownFinishesInFlightWork(t *testing.T) {
	started := make(chan struct{}, 10)
	release := make(chan struct{})
	r := newRig(t, messaging.Config{Concurrency: 1, DrainTimeout: 10 * time.Second}, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		started <- struct{}{}
		<-release
		return echo(ctx, req)
	}})
	first := r.send(subj, `{"request_id":"inflight"}`, nil)
	<-started
	var wg sync.WaitGroup
	wg.Add(1)
	var shutdownErr error
	go func() {
		defer wg.Done()
		shutdownErr = r.pipeline.Shutdown(context.Background())
	}()
	waitFor(t, func() bool { return !r.pipeline.Ready() })
	close(release)
	wg.Wait()
	if shutdownErr != nil {
		t.Fatalf("Shutdown: %v", shutdownErr)
	}
	if rep := r.reply(first); !rep.OK {
		t.Fatalf("in-flight request not answered: %+v", rep)
	}
	// The in-flight message was acked: the consumer has nothing pending. Shutdown flushed the ack to
	// the server, which applies it to the consumer asynchronously: wait for it (unacked, it would
	// stay pending for AckWait, 60s).
	c, _ := r.js.Consumer(context.Background(), "WORKER_REQUESTS", messaging.ConsumerName(subj))
	var info *jetstream.ConsumerInfo
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		var err error
		if info, err = c.Info(context.Background()); err != nil {
			t.Fatal(err)
		}
		if (info.NumAckPending == 0 && info.NumPending == 0) || time.Now().After(deadline) {
			break
		}
	}
	if info.NumAckPending != 0 || info.NumPending != 0 {
		t.Fatalf("after shutdown: ack pending %d, pending %d", info.NumAckPending, info.NumPending)
	}
}

// A request that arrives while the only replica drains is not bounced back and forth until its
// deliveries run out: it waits in the stream and the next replica answers it normally.
func TestRequestArrivingDuringDrainGoesToTheNextReplica(t *testing.T) {
	started := make(chan string, 10)
	release := make(chan struct{})
	handler := func(ctx context.Context, req messaging.Request) (any, error) {
		started <- req.RequestID
		if req.RequestID == "inflight" {
			<-release
		}
		return map[string]uint64{"delivery": req.Delivery}, nil
	}
	r := newRig(t, messaging.Config{Concurrency: 2, DrainTimeout: 10 * time.Second}, map[string]messaging.Handler{subj: handler})
	first := r.send(subj, `{"request_id":"inflight"}`, nil)
	<-started
	shutdown := make(chan error, 1)
	go func() { shutdown <- r.pipeline.Shutdown(context.Background()) }()
	waitFor(t, func() bool { return !r.pipeline.Ready() })
	late := r.send(subj, `{"request_id":"late"}`, nil)
	time.Sleep(500 * time.Millisecond) // time for a hand-back loop to show
	close(release)
	if err := <-shutdown; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if rep := r.reply(first); !rep.OK {
		t.Fatalf("in-flight request: %+v", rep.Error)
	}
	r.startPipeline(messaging.Config{}, map[string]messaging.Handler{subj: handler})
	rep := r.reply(late)
	if !rep.OK {
		t.Fatalf("late request: %+v", rep.Error)
	}
	var res struct{ Delivery uint64 }
	_ = json.Unmarshal(rep.Result, &res)
	if res.Delivery > 2 {
		t.Fatalf("late request was delivered %d times: bounced during the drain", res.Delivery)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 30s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A request whose last delivery never completes (the worker hung or died) is still answered and
// dead-lettered, from JetStream's max-deliveries advisory.
func TestRequestExhaustedWithoutOutcomeIsAnsweredAndDeadLettered(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for every delivery to time out (seconds)")
	}
	release := make(chan struct{})
	cfg := messaging.Config{
		Topology:       messaging.Topology{AckWait: 2 * time.Second, MaxDeliver: 2},
		HandlerTimeout: 500 * time.Millisecond,
		DrainTimeout:   time.Second,
	}
	// The answer from the advisory is completed like every other error reply.
	complete := func(subject string, body []byte, e *contracts.Error) *contracts.Error {
		out := *e
		out.Message = e.Message + " | " + subject + " " + string(body)
		return &out
	}
	r := newRigCompleting(t, cfg, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		<-release // a dependency call that ignores its deadline
		return echo(ctx, req)
	}}, complete)
	t.Cleanup(func() { close(release) })
	rep := r.reply(r.send(subj, `{"request_id":"hung"}`, nats.Header{contracts.HeaderMsgID: {"hung"}}))
	if rep.OK || rep.Error.Code != contracts.CodeUnavailable || rep.RequestID != "hung" || !rep.Error.Retryable {
		t.Fatalf("reply = %+v %+v", rep, rep.Error)
	}
	if !strings.HasSuffix(rep.Error.Message, " | "+subj+` {"request_id":"hung"}`) {
		t.Errorf("exhausted reply not completed: %q", rep.Error.Message)
	}
	dl := r.deadLetters(subj, 1)
	if len(dl) != 1 || dl[0].Headers().Get(contracts.HeaderStreamSequence) != "1" {
		t.Fatalf("dead letters = %d", len(dl))
	}
}

// A claim check naming a body over the limit is refused without downloading it.
func TestOversizeClaimCheckIsRefused(t *testing.T) {
	r := newRig(t, messaging.Config{}, map[string]messaging.Handler{subj: echo})
	claims, err := claimcheck.Ensure(context.Background(), r.js, time.Hour, r.nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	big := make([]byte, claimcheck.DefaultMaxBody+1)
	msg, err := claims.Prepare(context.Background(), subj, nats.Header{contracts.HeaderMsgID: {"huge"}}, big)
	if err != nil {
		t.Fatal(err)
	}
	inbox := nats.NewInbox()
	sub, _ := r.nc.SubscribeSync(inbox)
	msg.Header.Set(contracts.HeaderReplyTo, inbox)
	if _, err := r.js.PublishMsg(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	rep := r.reply(sub)
	if rep.OK || rep.Error.Code != contracts.CodePayloadTooLarge || rep.RequestID != "huge" {
		t.Fatalf("reply = %+v %+v", rep, rep.Error)
	}
}

// A consumer deleted under a running worker turns readiness false; once it exists again (another
// replica's start-up or an operator recreates it) the worker binds it again and serves.
func TestDeletedConsumerIsReboundAndReadinessFollows(t *testing.T) {
	r := newRig(t, messaging.Config{Concurrency: 1}, map[string]messaging.Handler{subj: echo})
	waitFor(t, r.pipeline.Ready)
	ctx := context.Background()
	if err := r.js.DeleteConsumer(ctx, "WORKER_REQUESTS", messaging.ConsumerName(subj)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return !r.pipeline.Ready() })
	if _, err := messaging.EnsureTopology(ctx, r.js, messaging.Topology{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return r.pipeline.Ready() })
	if rep := r.reply(r.send(subj, `{"request_id":"after-rebind"}`, nil)); !rep.OK {
		t.Fatalf("reply = %+v", rep.Error)
	}
}
