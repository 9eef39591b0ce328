package messaging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

// lockedBuffer is a log sink safe for the pipeline's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A max-deliveries advisory for a request the worker cannot read back (here: deleted from the
// stream) is not dropped in silence: it ends as outcome "lost", logged at error level with its
// subject and stream sequence, so an operator can alert on it and replay what is left.
func TestExhaustedRequestThatCannotBeReadIsRecordedLost(t *testing.T) {
	s := natstest.Start(t)
	nc := natstest.Connect(t, s)
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	topo, err := messaging.EnsureTopology(ctx, js, messaging.Topology{})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := claimcheck.Ensure(ctx, js, time.Hour, nc.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	var logs lockedBuffer
	p, err := messaging.New(messaging.Config{Topology: topo}, messaging.Deps{
		SubConn: natstest.Connect(t, s), PubConn: natstest.Connect(t, s), Claims: claims, MapError: mapError,
		Logger: slog.New(slog.NewJSONHandler(&logs, nil)),
	}, map[string]messaging.Handler{subj: echo})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = p.Run(context.Background()) }()
	<-p.Running()
	t.Cleanup(func() { _ = p.Shutdown(context.Background()) })

	adv, _ := json.Marshal(map[string]any{"stream": topo.Stream, "consumer": messaging.ConsumerName(subj), "stream_seq": 4242, "deliveries": 5})
	if err := nc.Publish("$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES."+topo.Stream+"."+messaging.ConsumerName(subj), adv); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, line := range strings.Split(logs.String(), "\n") {
			if strings.Contains(line, `"outcome":"lost"`) {
				for _, want := range []string{`"level":"ERROR"`, `"subject":"` + subj + `"`, `"stream_seq":4242`} {
					if !strings.Contains(line, want) {
						t.Fatalf("lost line lacks %s: %s", want, line)
					}
				}
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no lost outcome logged for an unreadable exhausted request; logs:\n%s", logs.String())
}
