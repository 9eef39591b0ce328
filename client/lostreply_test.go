package client_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

// gatedDialer dials normally while open, and fails while closed: a connection that lost its server
// stays away (reconnecting) until the test opens the gate.
type gatedDialer struct{ closed atomic.Bool }

func (d *gatedDialer) Dial(network, address string) (net.Conn, error) {
	if d.closed.Load() {
		return nil, errors.New("gate closed")
	}
	return net.Dial(network, address)
}

// lostReplyRig is a caller whose connection the test can take away (dropCaller: it stays away
// until the dialer's gate opens again), and the worker's buckets on a connection of the worker's:
// records written through the caller's gated connection would wait for the gate.
type lostReplyRig struct {
	s       *server.Server
	dialer  *gatedDialer
	nc      *nats.Conn
	c       *client.Client
	topo    messaging.Topology
	claims  *claimcheck.Store
	replies *messaging.Replies
}

func newLostReplyRig(t *testing.T, ctx context.Context, s *server.Server) *lostReplyRig {
	r := &lostReplyRig{s: s, dialer: &gatedDialer{}}
	r.nc = natstest.Connect(t, s, nats.SetCustomDialer(r.dialer), nats.ReconnectWait(20*time.Millisecond), nats.MaxReconnects(-1))
	wnc := natstest.Connect(t, s)
	wjs, _ := jetstream.New(wnc)
	var err error
	if r.topo, err = messaging.EnsureTopology(ctx, wjs, messaging.Topology{}); err != nil {
		t.Fatal(err)
	}
	if r.claims, err = claimcheck.Ensure(ctx, wjs, time.Hour, wnc.MaxPayload()); err != nil {
		t.Fatal(err)
	}
	if r.replies, err = messaging.EnsureReplies(ctx, wjs, messaging.ReplyConfig{}); err != nil {
		t.Fatal(err)
	}
	if r.c, err = client.New(ctx, r.nc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.c.Close() })
	return r
}

// dropCaller closes the caller's gate and waits until its connection is down.
func (r *lostReplyRig) dropCaller() {
	r.dialer.closed.Store(true)
	r.nc.ForceReconnect()
	for r.nc.IsConnected() {
		time.Sleep(5 * time.Millisecond)
	}
}

// startWorker runs a pipeline answering artifact.metadata with handler until the test ends.
func (r *lostReplyRig) startWorker(t *testing.T, ctx context.Context, handler messaging.Handler) {
	p, err := messaging.New(messaging.Config{Topology: r.topo}, messaging.Deps{
		SubConn: natstest.Connect(t, r.s), PubConn: natstest.Connect(t, r.s), Claims: r.claims, Replies: r.replies,
		MapError: func(err error) (*contracts.Error, bool) {
			return &contracts.Error{Code: contracts.CodeInternal, Message: err.Error()}, false
		},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}, map[string]messaging.Handler{contracts.SubjectMetadata: handler})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Run(ctx) }()
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })
}

// A reply lost while the caller's connection resubscribes (it reconnected while the worker
// answered: the server had no interest in the reply subject, and dropped it) is asked for again by
// the client, and the worker answers the ask from the reply it recorded: the call succeeds and the
// handler ran once.
func TestReplyLostWhileResubscribingIsAnsweredWithoutASecondExecution(t *testing.T) {
	s := natstest.Start(t)
	ctx := context.Background()
	r := newLostReplyRig(t, ctx, s)
	nc, dialer, c := r.nc, r.dialer, r.c
	js, _ := jetstream.New(nc)

	var runs atomic.Int32
	handler := func(ctx context.Context, req messaging.Request) (any, error) {
		if runs.Add(1) == 1 {
			// The caller's connection drops now and stays away until the reply was sent.
			r.dropCaller()
		}
		return map[string]string{"answer": req.RequestID}, nil
	}
	r.startWorker(t, ctx, handler)

	// Once the worker answered (and acked) the request, the caller's connection comes back.
	go func() {
		admin := natstest.Connect(t, s)
		ajs, _ := jetstream.New(admin)
		for {
			cons, err := ajs.Consumer(ctx, messaging.DefaultStream, messaging.ConsumerName(contracts.SubjectMetadata))
			if err == nil && cons.CachedInfo().AckFloor.Stream >= 1 {
				dialer.closed.Store(false)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var got struct{ Answer string }
	if err := c.Call(cctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "lost-in-resubscribe", ID: "x"}, &got); err != nil {
		t.Fatalf("call whose reply was lost while it resubscribed: %v", err)
	}
	if got.Answer != "lost-in-resubscribe" {
		t.Fatalf("answer %+v", got)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the handler ran %d times, want once: the ask again must be answered from the recorded reply", n)
	}
	st, err := js.Stream(ctx, messaging.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	if n := st.CachedInfo().State.Msgs; n != 2 {
		t.Fatalf("%d requests stored, want 2: the request and the one asked again", n)
	}
}

// After a reconnect, a reply lost while the caller resubscribed is asked for again even while the
// consumer's ack floor stays below the request: an earlier request (here one whose handler never
// finishes; in a partition, one taken on the server cut off) holds the floor for ACK_WAIT, and the
// call must not wait for it. The ask is answered from the recorded reply: the handler ran once.
func TestReplyLostAfterAReconnectIsAskedForWhileTheAckFloorIsHeld(t *testing.T) {
	s := natstest.Start(t)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	r := newLostReplyRig(t, ctx, s)
	dialer, c := r.dialer, r.c
	holder, err := client.New(ctx, natstest.Connect(t, s))
	if err != nil {
		t.Fatal(err)
	}

	holding := make(chan struct{})
	var runs atomic.Int32
	handler := func(hctx context.Context, req messaging.Request) (any, error) {
		if req.RequestID == "holds-the-floor" {
			close(holding)
			<-ctx.Done() // never finishes while the test runs
			return nil, ctx.Err()
		}
		if runs.Add(1) == 1 {
			r.dropCaller()
		}
		return map[string]string{"answer": req.RequestID}, nil
	}
	r.startWorker(t, ctx, handler)
	t.Cleanup(stop)

	go func() {
		_ = holder.Call(ctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "holds-the-floor", ID: "x"}, nil)
	}()
	<-holding
	// Once the worker answered (and acked) the second request, the caller's connection comes back;
	// the first keeps the ack floor at 0.
	go func() {
		admin := natstest.Connect(t, s)
		ajs, _ := jetstream.New(admin)
		for ctx.Err() == nil {
			cons, err := ajs.Consumer(ctx, messaging.DefaultStream, messaging.ConsumerName(contracts.SubjectMetadata))
			if err == nil && cons.CachedInfo().Delivered.Stream >= 2 && cons.CachedInfo().NumAckPending == 1 {
				dialer.closed.Store(false)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	// The holder's heartbeat keeps it with the worker, so the floor stays at 0 for the whole test:
	// a call that waited for the floor would never be answered.
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var got struct{ Answer string }
	if err := c.Call(cctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "lost-behind-the-floor", ID: "x"}, &got); err != nil {
		t.Fatalf("call whose reply was lost while the ack floor was held: %v", err)
	}
	if got.Answer != "lost-behind-the-floor" {
		t.Fatalf("answer %+v", got)
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("the handler ran %d times, want once: the ask again must be answered from the recorded reply", n)
	}
}
