package client_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/messaging"
)

// startStream starts a nats-server with the worker's topology and returns a connection to it, its
// JetStream and a client on it.
func startStream(t *testing.T) (*nats.Conn, jetstream.JetStream, *client.Client) {
	t.Helper()
	nc := natstest.Connect(t, natstest.Start(t))
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := messaging.EnsureTopology(context.Background(), js, messaging.Topology{}); err != nil {
		t.Fatal(err)
	}
	c, err := client.New(context.Background(), nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js, c
}

// answer replies ok to every request stored in WORKER_REQUESTS, as a worker would (through the
// worker's consumers, which the topology must have), until the test ends; the reply to a request for which lost(its Nats-Msg-Id, its request_id) holds is lost on its
// way (not sent). Each stored request's Nats-Msg-Id goes to seen when it is not nil.
func answer(t *testing.T, js jetstream.JetStream, lost func(msgID, requestID string) bool, seen chan<- string) {
	t.Helper()
	handle := func(m jetstream.Msg) {
		var env contracts.Envelope
		_ = json.Unmarshal(m.Data(), &env)
		id := m.Headers().Get(contracts.HeaderMsgID)
		if seen != nil {
			seen <- id
		}
		if lost == nil || !lost(id, env.RequestID) {
			rep, _ := json.Marshal(contracts.Reply{RequestID: env.RequestID, OK: true, Result: json.RawMessage(`{}`)})
			_ = js.Conn().Publish(m.Headers().Get(contracts.HeaderReplyTo), rep)
		}
		_ = m.Ack()
	}
	for _, subject := range contracts.RequestSubjects {
		cons, err := js.Consumer(context.Background(), messaging.DefaultStream, messaging.ConsumerName(subject))
		if err != nil {
			t.Fatal(err)
		}
		cc, err := cons.Consume(handle)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cc.Stop)
	}
}
