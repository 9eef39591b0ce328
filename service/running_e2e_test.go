package service_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/stallproxy"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// A file_written event asked again while its first run is still writing (the storage stops
// answering for longer than the running marker's lease, ACK_WAIT) does not run
// again: the ask waits for the first run and is answered with its reply, the worker logs one ok and
// one replayed, and the file has the one write.
func TestFileWrittenAskedAgainDuringItsRunWritesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the first run outlives ACK_WAIT on purpose (seconds)")
	}
	t.Parallel()
	const ackWait = 3 * time.Second // the least ACK_WAIT the worker takes
	stall := stallproxy.Start(t, minio.Endpoint)
	w := startWorker(t, func(c *service.Config) { c.S3Endpoint, c.AckWait = stall.Addr, ackWait })
	js, _ := jetstream.New(w.Conn)
	cons, err := js.Consumer(t.Context(), "WORKER_REQUESTS", "worker_workspace_file_written")
	if err != nil {
		t.Fatal(err)
	}
	held := func(n int) func() bool {
		return func() bool {
			info, err := cons.Info(t.Context())
			return err == nil && info.NumAckPending == n
		}
	}
	body, _ := json.Marshal(contracts.FileWrittenRequest{RequestID: "fw-slow", WorkspaceID: "ws-slow", Path: "a.txt", MimeType: "text/plain",
		AgentID: "coder", MessageID: "m1", Content: ptr("once")})
	inbox := w.Conn.NewInbox()
	sub, err := w.Conn.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(msgID string) {
		msg := &nats.Msg{Subject: contracts.SubjectFileWritten, Data: body, Header: nats.Header{}}
		msg.Header.Set(contracts.HeaderMsgID, msgID)
		msg.Header.Set(contracts.HeaderReplyTo, inbox)
		if _, err := js.PublishMsg(t.Context(), msg); err != nil {
			t.Fatal(err)
		}
	}
	stall.Hold()
	ask("fw-slow")
	servicetest.WaitFor(t, 10*time.Second, "the first run taken", held(1))
	ask("fw-slow.again-1")
	servicetest.WaitFor(t, 10*time.Second, "the ask again taken", held(2))
	// Past the marker's lease: an ask that did not wait, or a claim not kept alive, would run now.
	time.Sleep(ackWait + 2*time.Second)
	if m, err := sub.NextMsg(10 * time.Millisecond); err == nil {
		t.Fatalf("answered while the first run still writes: %s", m.Data)
	}
	stall.Release()
	var replies []string
	for range 2 {
		rep, err := sub.NextMsg(30 * time.Second)
		if err != nil {
			t.Fatalf("no reply: %v", err)
		}
		replies = append(replies, string(rep.Data))
	}
	if !strings.Contains(replies[0], `"ok":true`) || replies[1] != replies[0] {
		t.Fatalf("replies %s and %s, want the first one twice", replies[0], replies[1])
	}
	servicetest.WaitFor(t, 10*time.Second, "the ask again logged as replayed", func() bool {
		return strings.Contains(w.Logs.String(), `"request_id":"fw-slow","outcome":"replayed"`)
	})
	if n := strings.Count(w.Logs.String(), `"request_id":"fw-slow","outcome":"ok"`); n != 1 {
		t.Fatalf("fw-slow ran %d times, want once", n)
	}
	var env contracts.Reply
	var first contracts.FileWrittenResult
	if err := json.Unmarshal([]byte(replies[0]), &env); err != nil || json.Unmarshal(env.Result, &first) != nil {
		t.Fatalf("reply %s: %v", replies[0], err)
	}
	rep := w.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "fw-slow-meta", ID: first.ArtifactID})
	var info contracts.ArtifactInfo
	if err := json.Unmarshal(rep.Result, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Meta.ModifiedBy) != 1 {
		t.Fatalf("modifiedBy %+v, want the one write", info.Meta.ModifiedBy)
	}
}
