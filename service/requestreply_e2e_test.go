package service_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/buildinfo"
	"github.com/agentworks/artifact-worker/internal/testing/schematest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// plainRequest sends body with a core NATS request (no headers) on the plain request/reply subject
// of subject, as `nats req` or nc.request() do, and decodes the envelope.
func plainRequest(t *testing.T, nc *nats.Conn, subject string, body any) (contracts.Reply, *nats.Msg) {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := nc.Request(contracts.RequestReplySubject(subject), raw, 20*time.Second)
	if err != nil {
		t.Fatalf("request %s: %v", subject, err)
	}
	var rep contracts.Reply
	if err := json.Unmarshal(msg.Data, &rep); err != nil {
		t.Fatalf("reply is not an envelope: %v: %.300s", err, msg.Data)
	}
	if err := schematest.CheckReply(subject, msg.Data); err != nil {
		t.Errorf("reply to %s does not match the published schemas: %v", subject, err)
	}
	return rep, msg
}

// TestPlainRequestReply: a core request without headers gets the worker's reply, the request is in
// the stream (with the caller's inbox as Reply-To) before it is handled, and a repeated request_id is
// answered at once with duplicate_request.
func TestPlainRequestReply(t *testing.T) {
	w := startWorker(t)
	w.PutArtifact("plain", "image/png", "plain.png", testfiles.PNG(8, 8))
	id := "plain-" + randomHex(4)
	req := contracts.GetArtifactRequest{RequestID: id, Ref: "artifact:plain", ServiceID: "vision-model"}
	rep, msg := plainRequest(t, w.Conn, contracts.SubjectGetArtifact, req)
	if !rep.OK || rep.RequestID != id {
		t.Fatalf("reply %+v, want ok for %s", rep, id)
	}
	if got := msg.Header.Get(contracts.HeaderContractVersion); got != contracts.Version {
		t.Errorf("Contract-Version %q, want %q", got, contracts.Version)
	}
	var res contracts.GetArtifactResult
	if err := json.Unmarshal(rep.Result, &res); err != nil {
		t.Fatal(err)
	}
	if res.ImageURL == nil || !strings.HasPrefix(res.ImageURL.ImageURL.URL, "data:image/png;base64,") {
		t.Fatalf("no image part for a vision model: %.300s", rep.Result)
	}

	js, err := jetstream.New(w.Conn)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(context.Background(), messaging.DefaultStream)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := stream.GetLastMsgForSubject(context.Background(), contracts.SubjectGetArtifact)
	if err != nil {
		t.Fatalf("request not in the stream: %v", err)
	}
	if got := stored.Header.Get(contracts.HeaderMsgID); got != id {
		t.Errorf("stored Nats-Msg-Id %q, want the request_id %q", got, id)
	}
	if got := stored.Header.Get(contracts.HeaderReplyTo); !strings.HasPrefix(got, "_INBOX.") {
		t.Errorf("stored Reply-To %q, want the caller's inbox", got)
	}

	start := time.Now()
	dup, msg := plainRequest(t, w.Conn, contracts.SubjectGetArtifact, req)
	if dup.OK || dup.Error == nil || dup.Error.Code != contracts.CodeDuplicateRequest || dup.RequestID != id {
		t.Fatalf("repeated request_id: %+v, want %s", dup, contracts.CodeDuplicateRequest)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("duplicate answered after %s, want at once", d)
	}
	if msg.Header.Get(micro.ErrorCodeHeader) != "409" {
		t.Errorf("duplicate without the micro error header: %v", msg.Header)
	}
	// The front's own error is a tool result too, like every get_artifact error, with the request's ref.
	if a := dup.Error.Assembly; a == nil || a.Dialect != "openai-chat" ||
		string(a.ToolContent) != jsonString(`{"error":"duplicate_request","ref":"artifact:plain","message":"重复的请求，未再次执行"}`) {
		t.Errorf("duplicate assembly = %+v", dup.Error.Assembly)
	}

	// Errors of the handler come back the same way.
	bad, _ := plainRequest(t, w.Conn, contracts.SubjectGetArtifact, contracts.GetArtifactRequest{RequestID: "plain-" + randomHex(4), Ref: "artifact:missing-" + randomHex(4)})
	if bad.OK || bad.Error == nil || bad.Error.Code != contracts.CodeArtifactNotFound {
		t.Fatalf("missing artifact: %+v, want %s", bad, contracts.CodeArtifactNotFound)
	}
}

// TestPlainRequestReplyClaimCheck: a request too large for one message goes by claim check (with
// Nats-Msg-Id naming it) and a large reply comes back by claim check, on the plain path.
func TestPlainRequestReplyClaimCheck(t *testing.T) {
	w := startWorker(t)
	js, err := jetstream.New(w.Conn)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := claimcheck.Bind(context.Background(), js, w.Conn.MaxPayload())
	if err != nil {
		t.Fatal(err)
	}
	img := testfiles.NoisyPNG(900, 900)
	if int64(len(img)) < 2*w.Conn.MaxPayload() {
		t.Fatalf("fixture %d bytes is not larger than the max payload", len(img))
	}
	b64 := base64.StdEncoding.EncodeToString(img)
	id := "plain-cc-" + randomHex(4)
	body, _ := json.Marshal(contracts.FileWrittenRequest{RequestID: id, WorkspaceID: "plain", Path: "big.png", MimeType: "image/png", ContentBase64: &b64})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hdr := nats.Header{}
	hdr.Set(contracts.HeaderMsgID, id)
	msg, err := claims.Prepare(ctx, contracts.RequestReplySubject(contracts.SubjectFileWritten), hdr, body)
	if err != nil {
		t.Fatal(err)
	}
	if msg.Header.Get(contracts.HeaderClaimCheck) == "" {
		t.Fatal("request was not claim-checked")
	}
	reply, err := w.Conn.RequestMsgWithContext(ctx, msg)
	if err != nil {
		t.Fatal(err)
	}
	var rep contracts.Reply
	if err := json.Unmarshal(reply.Data, &rep); err != nil || !rep.OK {
		t.Fatalf("file_written by claim check: %v %s", err, reply.Data)
	}
	var written contracts.FileWrittenResult
	_ = json.Unmarshal(rep.Result, &written)

	reply, err = w.Conn.RequestWithContext(ctx, contracts.RequestReplySubject(contracts.SubjectGetArtifact),
		[]byte(`{"request_id":"plain-cc-`+randomHex(4)+`","ref":"`+written.ArtifactID+`","service_id":"vision-model"}`))
	if err != nil {
		t.Fatal(err)
	}
	if reply.Header.Get(contracts.HeaderClaimCheck) == "" {
		t.Fatalf("a %d-byte image came back inline", len(img))
	}
	raw, err := claims.Resolve(ctx, reply.Header, reply.Data)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), b64) {
		t.Fatal("the image did not round-trip through the claim check")
	}
}

// TestPlainRequestReplyMicroService: `nats micro info` shows the worker, its version and one
// endpoint per request subject, in the queue group replicas share.
func TestPlainRequestReplyMicroService(t *testing.T) {
	w := startWorker(t)
	msg, err := w.Conn.Request("$SRV.INFO."+contracts.ServiceName, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var info micro.Info
	if err := json.Unmarshal(msg.Data, &info); err != nil {
		t.Fatal(err)
	}
	if info.Name != contracts.ServiceName || info.Version != buildinfo.Version || info.Metadata["contract_version"] != contracts.Version {
		t.Errorf("info %+v", info.ServiceIdentity)
	}
	subjects := map[string]string{}
	for _, e := range info.Endpoints {
		subjects[e.Subject] = e.QueueGroup
	}
	for _, s := range contracts.RequestSubjects {
		if q, ok := subjects[contracts.RequestReplySubject(s)]; !ok || q != contracts.ServiceName {
			t.Errorf("endpoint %s: present %v, queue group %q", contracts.RequestReplySubject(s), ok, q)
		}
	}

	// `nats micro stats`: requests and the ones the front answered with an error are counted.
	req := contracts.MetadataRequest{RequestID: "plain-stats-" + randomHex(4), ID: "artifact:nope"}
	plainRequest(t, w.Conn, contracts.SubjectMetadata, req)
	plainRequest(t, w.Conn, contracts.SubjectMetadata, req) // duplicate_request
	msg, err = w.Conn.Request("$SRV.STATS."+contracts.ServiceName, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var stats micro.Stats
	if err := json.Unmarshal(msg.Data, &stats); err != nil {
		t.Fatal(err)
	}
	for _, e := range stats.Endpoints {
		if e.Subject == contracts.RequestReplySubject(contracts.SubjectMetadata) {
			if e.NumRequests != 2 || e.NumErrors != 1 {
				t.Errorf("stats of %s: %d requests, %d errors; want 2 and 1", e.Subject, e.NumRequests, e.NumErrors)
			}
			return
		}
	}
	t.Errorf("no stats for %s", contracts.RequestReplySubject(contracts.SubjectMetadata))
}

// BenchmarkRequestPaths compares a plain core request (stored by the micro front, one PubAck at a
// time per endpoint) with the client's JetStream publish, 16 callers at once, on artifact.metadata
// of a small artifact.
func BenchmarkRequestPaths(b *testing.B) {
	w := servicetest.Start(b, minio, func(c *service.Config) { c.Concurrency = 16; c.LogLevel = "warn" })
	w.PutArtifact("bench-meta", "text/plain", "a.txt", []byte("a"))
	body := func() []byte {
		raw, _ := json.Marshal(contracts.MetadataRequest{RequestID: "bench-" + randomHex(8), ID: "artifact:bench-meta"})
		return raw
	}
	paths := map[string]func(context.Context) ([]byte, error){
		"plain": func(ctx context.Context) ([]byte, error) {
			msg, err := w.Conn.RequestWithContext(ctx, contracts.RequestReplySubject(contracts.SubjectMetadata), body())
			if err != nil {
				return nil, err
			}
			return msg.Data, nil
		},
		"jetstream": func(ctx context.Context) ([]byte, error) {
			return w.Client.CallRaw(ctx, contracts.SubjectMetadata, body())
		},
	}
	for _, name := range []string{"plain", "jetstream"} {
		b.Run(name, func(b *testing.B) {
			b.SetParallelism(16)
			start := time.Now()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					raw, err := paths[name](ctx)
					cancel()
					if err != nil || !strings.Contains(string(raw), `"ok":true`) {
						b.Errorf("%v %.200s", err, raw)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
		})
	}
}

// TestPlainRequestReplyUnavailable: when the stream cannot store the request, the caller is answered
// unavailable (retryable) at once instead of waiting for a reply that cannot come.
func TestPlainRequestReplyUnavailable(t *testing.T) {
	w := startWorker(t)
	js, err := jetstream.New(w.Conn)
	if err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(context.Background(), messaging.DefaultStream); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rep, msg := plainRequest(t, w.Conn, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "plain-u-" + randomHex(4), ID: "artifact:x"})
	if rep.OK || rep.Error == nil || rep.Error.Code != contracts.CodeUnavailable || !rep.Error.Retryable {
		t.Fatalf("reply %+v, want unavailable and retryable", rep)
	}
	if msg.Header.Get(micro.ErrorCodeHeader) != "503" {
		t.Errorf("headers %v, want the micro error code 503", msg.Header)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("answered after %s", d)
	}
}
