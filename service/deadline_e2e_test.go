package service_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// TestStaleRequestsAreNotExecuted is the outage scenario of contracts/README.md "Deadlines": the
// worker is down 2 minutes while callers with a 30 s timeout keep sending workspace.file_written
// requests (each with content to store: a side effect that shows whether it ran); each call is
// stored, then asked again twice while it waits (the client's overdue re-asks). Callers stop 31 s
// before the restart, so every request stored during the outage is past its deadline when the
// worker comes back (one sent in the last 30 s would still be live and rightly executed). After the
// restart none of them is executed (no file stored, every stored message counted as expired), and
// new requests sent at once are answered.
func TestStaleRequestsAreNotExecuted(t *testing.T) {
	t.Parallel()
	w := startWorker(t)
	if err := w.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	const (
		callerTimeout = 30 * time.Second
		outage        = 2 * time.Minute
		callers       = 12
	)
	down := time.Now()
	stopSending := down.Add(outage - callerTimeout - time.Second)
	ws := "stale-" + randomHex(4)
	var (
		mu    sync.Mutex
		stale []string // paths of requests that were stored and whose callers gave up
	)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(stopSending); i++ {
				path := fmt.Sprintf("c%d/f%d.txt", c, i)
				ctx, cancel := context.WithTimeout(context.Background(), callerTimeout)
				err := w.Client.Call(ctx, contracts.SubjectFileWritten, contracts.FileWrittenRequest{
					RequestID: ws + "-" + path, WorkspaceID: ws, Path: path, MimeType: "text/plain", Content: new("stale\n"),
				}, nil)
				cancel()
				if !errors.Is(err, client.ErrNoReply) {
					t.Errorf("%s during the outage: %v, want ErrNoReply", path, err)
					return
				}
				mu.Lock()
				stale = append(stale, path)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if len(stale) == 0 {
		t.Fatal("no request was sent during the outage")
	}
	time.Sleep(time.Until(down.Add(outage)))
	js, err := jetstream.New(w.Conn)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := js.Consumer(context.Background(), messaging.DefaultStream, messaging.ConsumerName(contracts.SubjectFileWritten))
	if err != nil {
		t.Fatal(err)
	}
	info, err := cons.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stored := info.NumPending // every request and re-ask of the stale calls, none yet delivered
	if stored < uint64(len(stale)) {
		t.Fatalf("%d requests stored during the outage, fewer than the %d calls", stored, len(stale))
	}

	w2 := servicetest.StartReplica(t, minio, w)
	restarted := time.Now()
	// New requests right after the restart, with the callers' short timeout: answered, not stuck
	// behind the backlog of stale ones (which costs no work).
	var fresh sync.WaitGroup
	for c := range callers {
		fresh.Add(1)
		go func() {
			defer fresh.Done()
			path := fmt.Sprintf("fresh/f%d.txt", c)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var res contracts.FileWrittenResult
			err := w2.Client.Call(ctx, contracts.SubjectFileWritten, contracts.FileWrittenRequest{
				RequestID: ws + "-" + path, WorkspaceID: ws, Path: path, MimeType: "text/plain", Content: new("fresh\n"),
			}, &res)
			if err != nil {
				t.Errorf("%s after the restart: %v", path, err)
			}
		}()
	}
	fresh.Wait()
	t.Logf("%d stale calls (%d stored requests with the re-asks) sent during a %s outage; %d new requests answered %s after the restart",
		len(stale), stored, outage, callers, time.Since(restarted).Round(time.Millisecond))

	js, err = jetstream.New(w2.Conn)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.WaitFor(t, 60*time.Second, "the backlog handled", func() bool {
		cons, err := js.Consumer(context.Background(), messaging.DefaultStream, messaging.ConsumerName(contracts.SubjectFileWritten))
		if err != nil {
			return false
		}
		info, err := cons.Info(context.Background())
		return err == nil && info.NumPending == 0 && info.NumAckPending == 0
	})
	if v, _ := value(scrape(t, w2), "worker_expired_requests_total", map[string]string{"subject": contracts.SubjectFileWritten}); v != float64(stored) {
		t.Errorf("worker_expired_requests_total %v, want %d (every request stored during the outage)", v, stored)
	}
	for _, path := range stale {
		if _, err := w2.Store.Stat(context.Background(), objectstore.WorkspaceKey(ws, path)); !errors.Is(err, objectstore.ErrNotFound) {
			t.Errorf("%s was executed after its caller gave up (stat: %v)", path, err)
		}
	}
	for c := range callers {
		if _, err := w2.Store.Stat(context.Background(), objectstore.WorkspaceKey(ws, fmt.Sprintf("fresh/f%d.txt", c))); err != nil {
			t.Errorf("fresh/f%d.txt not stored: %v", c, err)
		}
	}
}

// TestExpiredReplyAndBadDeadline: a request whose deadline has passed is answered expired and not
// executed; a deadline that is not an RFC 3339
// time is invalid_request naming the header.
func TestExpiredReplyAndBadDeadline(t *testing.T) {
	t.Parallel()
	w := startWorker(t)
	ws := "exp-" + randomHex(4)
	// A context whose deadline is already past cannot publish; send the header by hand instead.
	body, _ := json.Marshal(contracts.FileWrittenRequest{RequestID: ws + "-1", WorkspaceID: ws, Path: "a.txt", MimeType: "text/plain", Content: new("x")})
	rep := callWithDeadline(t, w, contracts.SubjectFileWritten, body, contracts.FormatDeadline(time.Now().Add(-time.Second)))
	if rep.OK || rep.Error.Code != contracts.CodeExpired || rep.Error.Retryable || rep.RequestID != ws+"-1" {
		t.Fatalf("past deadline: %+v, want expired for %s", rep, ws+"-1")
	}
	if _, err := w.Store.Stat(context.Background(), objectstore.WorkspaceKey(ws, "a.txt")); !errors.Is(err, objectstore.ErrNotFound) {
		t.Errorf("an expired request was executed (stat: %v)", err)
	}
	// tool.get_artifact's expired reply carries the tool result for the model.
	body, _ = json.Marshal(contracts.GetArtifactRequest{RequestID: ws + "-2", Ref: "artifact:x", Locale: "en"})
	rep = callWithDeadline(t, w, contracts.SubjectGetArtifact, body, contracts.FormatDeadline(time.Now().Add(-time.Second)))
	if rep.OK || rep.Error.Code != contracts.CodeExpired || rep.Error.Assembly == nil ||
		string(rep.Error.Assembly.ToolContent) != jsonString(`{"error":"expired","ref":"artifact:x","message":"The request passed its deadline and was not run"}`) {
		t.Fatalf("get_artifact past deadline: %+v", rep.Error)
	}
	body, _ = json.Marshal(contracts.FileWrittenRequest{RequestID: ws + "-3", WorkspaceID: ws, Path: "b.txt", MimeType: "text/plain", Content: new("x")})
	rep = callWithDeadline(t, w, contracts.SubjectFileWritten, body, "tomorrow")
	if rep.OK || rep.Error.Code != contracts.CodeInvalidRequest || rep.Error.Field != contracts.HeaderDeadline {
		t.Fatalf("bad deadline: %+v, want invalid_request naming %s", rep.Error, contracts.HeaderDeadline)
	}
	// A live deadline (the Go client's, from its context) is executed.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := w.Client.Call(ctx, contracts.SubjectFileWritten, contracts.FileWrittenRequest{RequestID: ws + "-4", WorkspaceID: ws, Path: "c.txt", MimeType: "text/plain", Content: new("x")}, nil)
	if err != nil {
		t.Fatalf("live request: %v", err)
	}
}

// callWithDeadline publishes body on subject with JetStream (by claim check when it is large), a
// Reply-To inbox and the given Artifact-Worker-Deadline header value, and decodes the reply.
func callWithDeadline(t *testing.T, w *servicetest.Worker, subject string, body []byte, deadline string) contracts.Reply {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inbox := w.Conn.NewInbox()
	sub, err := w.Conn.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe() //nolint:errcheck // test
	js, err := jetstream.New(w.Conn)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := claimcheck.Bind(ctx, js, w.Conn.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	hdr := nats.Header{}
	hdr.Set(contracts.HeaderReplyTo, inbox)
	hdr.Set(contracts.HeaderDeadline, deadline)
	msg, err := claims.Prepare(ctx, subject, hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	reply, err := sub.NextMsgWithContext(ctx)
	if err != nil {
		t.Fatalf("no reply: %v", err)
	}
	var rep contracts.Reply
	if err := json.Unmarshal(reply.Data, &rep); err != nil {
		t.Fatalf("reply is not an envelope: %v: %.300s", err, reply.Data)
	}
	w.CheckReply(subject, reply.Data)
	return rep
}
