package quorum_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/internal/quorum"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
)

// Calls that go unanswered for After on a connected server reconnect the connection; an answer in
// between starts the count again; errors that are answers (a 404, a refused write) count as answers.
func TestTrackerReconnectsAfterUnansweredCalls(t *testing.T) {
	s := natstest.Start(t)
	nc := natstest.Connect(t, s, nats.ReconnectWait(10*time.Millisecond))
	tr := quorum.NewTracker(nc, 300*time.Millisecond, nil)
	unanswered := fmt.Errorf("publish: %w", context.DeadlineExceeded)
	answer := &jetstream.APIError{Code: 404, ErrorCode: jetstream.JSErrCodeStreamNotFound}

	for _, err := range []error{unanswered, nil, unanswered, answer, errors.New("bad header")} {
		tr.Report(err)
		time.Sleep(120 * time.Millisecond)
	}
	if n := nc.Stats().Reconnects; n != 0 {
		t.Fatalf("%d reconnects after calls answered in between, want 0", n)
	}
	full := &jetstream.APIError{Code: 503, ErrorCode: 10077, Description: "maximum bytes exceeded"}
	inProcess := &jetstream.APIError{Code: 409, ErrorCode: 10158, Description: "duplicate message id is in process"}
	if !quorum.Unanswered(nats.ErrNoResponders) || quorum.Unanswered(answer) || !quorum.Unanswered(&jetstream.APIError{Code: 503}) || quorum.Unanswered(full) ||
		!quorum.Unanswered(inProcess) || !quorum.Unanswered(jetstream.ErrAsyncPublishTimeout) {
		t.Fatal("Unanswered misclassifies")
	}
	start := time.Now()
	for nc.Stats().Reconnects == 0 {
		if time.Since(start) > 5*time.Second {
			t.Fatal("no reconnect after calls went unanswered for After")
		}
		tr.Report(unanswered)
		if time.Since(start) > time.Second && tr.Answering() && nc.Stats().Reconnects == 0 {
			t.Fatal("Answering after a second of unanswered calls")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Fatalf("reconnected after %s, before After", took)
	}
	// Moved, the connection is not taken for answered (readiness) before a call is answered through
	// the new server.
	if tr.Answering() {
		t.Fatal("Answering right after the move, before a call was answered through the new server")
	}
	tr.Report(nil)
	if !tr.Answering() {
		t.Fatal("not Answering after a call was answered through the new server")
	}
}

// A write a full bucket refuses is an answer, not a lost quorum: a full reply bucket must not move
// the worker from server to server.
func TestAFullBucketIsAnAnswer(t *testing.T) {
	nc := natstest.Connect(t, natstest.Start(t))
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "FULL", MaxBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		_, err = kv.Put(ctx, fmt.Sprintf("k%d", i), make([]byte, 512))
		if err != nil {
			break
		}
	}
	if err == nil {
		t.Fatal("the bucket never filled")
	}
	if quorum.Unanswered(err) {
		t.Fatalf("a full bucket's refusal (%v) counted as unanswered", err)
	}
}

// A leader's answer counts as unanswered when it has not heard from a quorum of its group: a
// leader cut off with its clients keeps answering reads until it steps down.
func TestCutOffLeader(t *testing.T) {
	heard := jetstream.PeerInfo{Name: "n2", Current: true, Active: 400 * time.Millisecond}
	silent := jetstream.PeerInfo{Name: "n3", Active: 5 * time.Second}
	offline := jetstream.PeerInfo{Name: "n3", Offline: true, Active: 200 * time.Millisecond}
	for _, c := range []struct {
		name     string
		replicas []*jetstream.PeerInfo
		want     bool
	}{
		{"a group of one", nil, false},
		{"both peers heard", []*jetstream.PeerInfo{&heard, &heard}, false},
		{"one of two peers heard: a quorum of three", []*jetstream.PeerInfo{&heard, &silent}, false},
		{"no peer heard", []*jetstream.PeerInfo{&silent, &silent}, true},
		{"no peer online", []*jetstream.PeerInfo{&offline, &silent}, true},
		{"two of four peers heard: a quorum of five", []*jetstream.PeerInfo{&heard, &heard, &silent, &silent}, false},
		{"one of four peers heard", []*jetstream.PeerInfo{&heard, &silent, &silent, &silent}, true},
	} {
		if got := quorum.CutOff(&jetstream.ClusterInfo{Leader: "n1", Replicas: c.replicas}); got != c.want {
			t.Errorf("%s: CutOff = %v, want %v", c.name, got, c.want)
		}
	}
	if quorum.CutOff(nil) {
		t.Error("CutOff(nil) = true: a server outside a cluster gives no cluster info")
	}
	if !quorum.Unanswered(fmt.Errorf("consumer info: %w", quorum.ErrCutOff)) {
		t.Error("an answer of a cut-off leader is not taken for unanswered")
	}
}
