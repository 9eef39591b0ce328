package messaging_test

import (
	"context"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

// A request asked again while its first execution is still running (a client's re-ask under
// another Nats-Msg-Id) does not run again: it waits for the first execution's reply and is
// answered with it (outcome replayed). The first run outlives the marker's lease (ACK_WAIT, 1 s)
// several times over: its heartbeat keeps the claim. A request that writes
// (file_written) writes once; on a read-only subject the handler may run alongside the claim,
// but its result is dropped and both callers get the first run's reply.
func TestRequestAskedAgainWhileRunningRunsOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the first run outlives ACK_WAIT on purpose (seconds)")
	}
	t.Run("writes", func(t *testing.T) { t.Parallel(); testAskedAgainWhileRunning(t, contracts.SubjectFileWritten, nil) })
	t.Run("read-only", func(t *testing.T) {
		t.Parallel()
		testAskedAgainWhileRunning(t, contracts.SubjectGetArtifact, []string{contracts.SubjectGetArtifact})
	})
}

func testAskedAgainWhileRunning(t *testing.T, subject string, readOnly []string) {
	const ackWait = time.Second
	var writes atomic.Int32
	started := make(chan struct{}, 4)
	release := make(chan struct{})
	logs := &syncBuffer{}
	r := newRigWith(t, messaging.Config{ReadOnly: readOnly, Concurrency: 2, HandlerTimeout: 20 * time.Second, Topology: messaging.Topology{AckWait: ackWait}},
		map[string]messaging.Handler{subject: func(ctx context.Context, req messaging.Request) (any, error) {
			n := writes.Add(1)
			started <- struct{}{}
			if n == 1 {
				select {
				case <-release:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			return map[string]any{"run": n}, nil
		}}, &rig{replies: true, log: slog.New(slog.NewJSONHandler(logs, nil))})
	body := `{"request_id":"slow"}`
	first := r.send(subject, body, nats.Header{contracts.HeaderMsgID: []string{"slow"}})
	<-started
	again := r.send(subject, body, nats.Header{contracts.HeaderMsgID: []string{"slow.again-1"}})
	// Past four leases: a marker that was not kept alive, or an ask that did not wait, would run it
	// again meanwhile (writes 2).
	time.Sleep(4 * ackWait)
	if n := writes.Load(); n != 1 && readOnly == nil {
		t.Fatalf("the request ran %d times while its first run was still going, want once", n)
	}
	close(release)
	a, b := r.reply(first), r.reply(again)
	if !a.OK || string(a.Result) != `{"run":1}` || !b.OK || string(b.Result) != string(a.Result) {
		t.Fatalf("replies %+v %s and %+v %s, want the first run's reply to both", a.Error, a.Result, b.Error, b.Result)
	}
	if n := writes.Load(); n != 1 && readOnly == nil {
		t.Fatalf("the request ran %d times, want once", n)
	}
	want := map[string][]string{"slow": {"ok", "replayed"}}
	deadline := time.Now().Add(10 * time.Second)
	for got := logs.outcomes(); !maps.EqualFunc(got, want, slices.Equal); got = logs.outcomes() {
		if time.Now().After(deadline) {
			t.Fatalf("outcomes logged %v, want %v", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A replica that dies while it runs a request (its connections gone, as on SIGKILL) leaves its
// running marker behind; it is no longer written with a heartbeat, so JetStream's redelivery to the
// other replica takes the request over once the marker's lease ran out, runs it and answers: the
// dead replica's claim does not keep it from running.
func TestDeadReplicasRunningMarkerIsTakenOver(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: waits for ACK_WAIT after a replica dies (seconds)")
	}
	t.Parallel()
	const ackWait, handlerTimeout = time.Second, 30 * time.Second
	cfg := messaging.Config{Concurrency: 1, HandlerTimeout: handlerTimeout, Topology: messaging.Topology{AckWait: ackWait}}
	started := make(chan struct{}, 1)
	hang := make(chan struct{})
	t.Cleanup(func() { close(hang) })
	var runs atomic.Int32
	r := newRigWith(t, cfg, map[string]messaging.Handler{subj: echo}, &rig{replies: true})
	if err := r.pipeline.Shutdown(context.Background()); err != nil { // only the victim runs at first
		t.Fatal(err)
	}
	ctx := context.Background()
	claims, err := claimcheck.Ensure(ctx, r.js, time.Hour, r.nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	sub, pub := natstest.Connect(t, r.server), natstest.Connect(t, r.server)
	pubJS, _ := jetstream.New(pub) // its marker is written on its own connection, which dies with it
	replies, err := messaging.EnsureReplies(ctx, pubJS, messaging.ReplyConfig{})
	if err != nil {
		t.Fatal(err)
	}
	victim, err := messaging.New(cfg, messaging.Deps{SubConn: sub, PubConn: pub, Claims: claims, Replies: replies, MapError: mapError,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))},
		map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
			runs.Add(1)
			started <- struct{}{}
			<-hang // never answers
			return nil, ctx.Err()
		}})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = victim.Run(context.Background()) }()
	<-victim.Running()
	out := r.send(subj, `{"request_id":"victim"}`, nil)
	<-started
	time.Sleep(2 * ackWait) // its heartbeat keeps the delivery and the marker meanwhile
	sub.Close()             // the replica dies: no ack, no heartbeat, no marker written again
	pub.Close()
	died := time.Now()
	r.startPipeline(cfg, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		runs.Add(1)
		return map[string]uint64{"delivery": req.Delivery}, nil
	}})
	rep := r.reply(out)
	t.Logf("answered by the other replica %s after the first one died (AckWait %s)", time.Since(died).Round(time.Millisecond), ackWait)
	if !rep.OK || string(rep.Result) != `{"delivery":2}` {
		t.Fatalf("reply %+v %s, want ok from the second delivery", rep.Error, rep.Result)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("the request started %d times, want twice (the dead replica's run, the survivor's)", n)
	}
	if took := time.Since(died); took >= handlerTimeout {
		t.Fatalf("answered %s after the replica died: the dead replica's marker held it until its handler's deadline", took)
	}
}
