package messaging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
)

// syncBuffer is a log sink the pipeline's goroutines may write to while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// outcomes returns the outcome of every "request" log line, by request_id.
func (s *syncBuffer) outcomes() map[string][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]string{}
	for _, line := range strings.Split(s.b.String(), "\n") {
		var l struct {
			Msg       string `json:"msg"`
			RequestID string `json:"request_id"`
			Outcome   string `json:"outcome"`
		}
		if json.Unmarshal([]byte(line), &l) == nil && l.Msg == "request" {
			out[l.RequestID] = append(out[l.RequestID], l.Outcome)
		}
	}
	for _, o := range out {
		slices.Sort(o)
	}
	return out
}

// A request that already ran, stored again under another Nats-Msg-Id (a client asking again after
// a lost reply), is answered with the recorded reply, byte for byte, without running again; its log
// line says replayed. The same request_id with another body is another request: it runs. A reply
// too large for one message is recorded by its claim and replayed by it. On a read-only subject
// (Config.ReadOnly) the record is looked up while the handler runs: the handler may run again, but
// the recorded reply answers, not the second run's.
func TestRequestAskedAgainIsAnsweredFromItsRecordedReply(t *testing.T) {
	t.Run("handler after lookup", func(t *testing.T) { testRecordedReply(t, nil) })
	t.Run("read-only: lookup alongside handler", func(t *testing.T) { testRecordedReply(t, []string{subj}) })
}

func testRecordedReply(t *testing.T, readOnly []string) {
	var runs atomic.Int32
	logs := &syncBuffer{}
	big := strings.Repeat("x", 1500*1024) // over the 1 MiB max payload: the reply is claim-checked
	r := newRigWith(t, messaging.Config{ReadOnly: readOnly}, map[string]messaging.Handler{subj: func(ctx context.Context, req messaging.Request) (any, error) {
		n := runs.Add(1)
		if strings.Contains(string(req.Body), `"big"`) {
			return map[string]any{"run": n, "pad": big}, nil
		}
		return map[string]any{"run": n}, nil
	}}, &rig{replies: true, log: slog.New(slog.NewJSONHandler(logs, nil))})

	raw := func(sub *nats.Subscription) *nats.Msg {
		t.Helper()
		m, err := sub.NextMsg(20 * time.Second)
		if err != nil {
			t.Fatalf("no reply: %v", err)
		}
		return m
	}
	ask := func(msgID, body string) *nats.Msg {
		t.Helper()
		return raw(r.send(subj, body, nats.Header{contracts.HeaderMsgID: []string{msgID}}))
	}
	first := ask("once", `{"request_id":"once"}`)
	again := ask("once.again-1", `{"request_id":"once"}`)
	if string(first.Data) != `{"request_id":"once","ok":true,"result":{"run":1}}` || string(again.Data) != string(first.Data) {
		t.Fatalf("replies %s and %s, want the first run's reply twice", first.Data, again.Data)
	}
	other := ask("once.again-2", `{"request_id":"once","id":"another"}`)
	if want := fmt.Sprintf(`"run":%d}`, 2+len(readOnly)); !strings.Contains(string(other.Data), want) {
		t.Fatalf("the same request_id with another body answered %s, want it run", other.Data)
	}

	bigFirst := ask("big", `{"request_id":"big","big":true}`)
	bigAgain := ask("big.again-1", `{"request_id":"big","big":true}`)
	name := bigFirst.Header.Get(contracts.HeaderClaimCheck)
	if name == "" || bigAgain.Header.Get(contracts.HeaderClaimCheck) != name || len(bigAgain.Data) != 0 {
		t.Fatalf("claim-checked reply replayed as %q (%d bytes), want the claim %q", bigAgain.Header.Get(contracts.HeaderClaimCheck), len(bigAgain.Data), name)
	}
	// Read-only, the two requests asked again ran too (their results dropped).
	if n, want := runs.Load(), int32(3+2*len(readOnly)); n != want {
		t.Fatalf("handler ran %d times, want %d", n, want)
	}
	// The log line follows the reply: wait for the last one.
	want := map[string][]string{"once": {"ok", "ok", "replayed"}, "big": {"ok", "replayed"}}
	deadline := time.Now().Add(10 * time.Second)
	for got := logs.outcomes(); !maps.EqualFunc(got, want, slices.Equal); got = logs.outcomes() {
		if time.Now().After(deadline) {
			t.Fatalf("outcomes logged %v, want %v", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
