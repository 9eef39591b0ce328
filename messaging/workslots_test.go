package messaging_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
)

// TestWorkSlotsAreSharedInTurn: with one work slot shared by two groups, requests fetched while the
// slot is taken wait for it longer than AckWait without being redelivered (the heartbeat keeps
// them), and the slot given back goes to the other group's request before the rest of the first
// group's, although those were fetched first. A request still waiting when shutdown begins is
// handed back, not started, and the next replica answers it.
func TestWorkSlotsAreSharedInTurn(t *testing.T) {
	const ackWait = time.Second
	var (
		mu      sync.Mutex
		started []string
	)
	release := map[string]chan struct{}{"a1": make(chan struct{}), "a4": make(chan struct{})}
	handler := func(group string) messaging.Handler {
		return func(ctx context.Context, req messaging.Request) (any, error) {
			mu.Lock()
			started = append(started, group+":"+req.RequestID)
			mu.Unlock()
			if c, ok := release[req.RequestID]; ok {
				<-c
			}
			return map[string]uint64{"delivery": req.Delivery}, nil
		}
	}
	startedNow := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(started)
	}
	handlers := map[string]messaging.Handler{contracts.SubjectGetArtifact: handler("a"), contracts.SubjectMetadata: handler("b")}
	cfg := messaging.Config{
		Concurrency: 3, HandlerTimeout: 5 * ackWait, DrainTimeout: 10 * time.Second, Topology: messaging.Topology{AckWait: ackWait},
		WorkSlots: 1, Group: func(subject string) string { return map[string]string{contracts.SubjectMetadata: "b"}[subject] },
	}
	r := newRig(t, cfg, handlers)
	replies := map[string]*nats.Subscription{}
	send := func(subject, id string) { replies[id] = r.send(subject, fmt.Sprintf(`{"request_id":%q}`, id), nil) }
	send(contracts.SubjectGetArtifact, "a1")
	waitFor(t, func() bool { return len(startedNow()) == 1 })
	send(contracts.SubjectGetArtifact, "a2")
	send(contracts.SubjectGetArtifact, "a3")
	waitFor(t, func() bool { return pending(t, r, contracts.SubjectGetArtifact) == 3 })
	send(contracts.SubjectMetadata, "b1")
	waitFor(t, func() bool { return pending(t, r, contracts.SubjectMetadata) == 1 })
	time.Sleep(2 * ackWait) // the waiting requests outlive AckWait
	if got := startedNow(); len(got) != 1 {
		t.Fatalf("started while the only slot was taken: %v", got)
	}
	close(release["a1"])
	for _, id := range []string{"a1", "a2", "a3", "b1"} {
		rep := r.reply(replies[id])
		var res struct{ Delivery uint64 }
		_ = json.Unmarshal(rep.Result, &res)
		if !rep.OK || res.Delivery != 1 {
			t.Fatalf("%s: %+v, delivery %d (want ok on the first delivery)", id, rep.Error, res.Delivery)
		}
	}
	// a2 and a3 wait in the order their slots got them; b1 goes before both.
	if got := startedNow(); len(got) != 4 || !slices.Equal(got[:2], []string{"a:a1", "b:b1"}) {
		t.Fatalf("started in the order %v, want a1, b1, then a2 and a3", got)
	}

	// Shutdown: a5 waits for the slot a4 holds; it is handed back and the next replica answers it.
	send(contracts.SubjectGetArtifact, "a4")
	waitFor(t, func() bool { return len(startedNow()) == 5 })
	send(contracts.SubjectGetArtifact, "a5")
	waitFor(t, func() bool { return pending(t, r, contracts.SubjectGetArtifact) == 2 })
	shutdown := make(chan error, 1)
	go func() { shutdown <- r.pipeline.Shutdown(context.Background()) }()
	waitFor(t, func() bool { return !r.pipeline.Ready() })
	close(release["a4"])
	if err := <-shutdown; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if got := startedNow(); slices.Contains(got, "a:a5") {
		t.Fatalf("a5 started during the shutdown: %v", got)
	}
	r.startPipeline(cfg, handlers)
	for _, id := range []string{"a4", "a5"} {
		if rep := r.reply(replies[id]); !rep.OK {
			t.Fatalf("%s: %+v", id, rep.Error)
		}
	}
}

// pending is the number of subject's requests delivered and not yet acked.
func pending(t *testing.T, r *rig, subject string) int {
	t.Helper()
	c, err := r.js.Consumer(context.Background(), "WORKER_REQUESTS", messaging.ConsumerName(subject))
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.NumAckPending
}
