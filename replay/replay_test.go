package replay_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/replay"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// sent is one request sent through the worker, in stream order, with the reply the worker gave.
type sent struct {
	subject string
	body    []byte
	reqID   string // the reply's request_id
	reply   contracts.Reply
	outcome string
	// txt: the reply depends on the artifact "txt"; textPNG: on the registry's text-model entry.
	txt, textPNG bool
}

// fixture is a worker that has answered the requests in sent, and the replay's view of it.
type fixture struct {
	w      *servicetest.Worker
	js     jetstream.JetStream
	stream string
	claims *claimcheck.Store
	proc   replay.ProcessorFunc
	sent   []sent
}

// processors builds the current handlers on the worker's NATS and store, as `worker replay` does.
func processors(t *testing.T, w *servicetest.Worker, js jetstream.JetStream, caps handlers.Capabilities) (replay.ProcessorFunc, *service.Components) {
	t.Helper()
	c, err := service.Build(context.Background(), w.Config, js, w.Store, caps, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("service.Build: %v", err)
	}
	return func(subject string) (messaging.Processor, bool) {
		h, ok := c.Handlers[subject]
		return messaging.Processor{Claims: c.Claims, MapError: handlers.MapError, Envelope: handlers.DecodeEnvelope, CompleteError: handlers.CompleteToolError, Handler: h}, ok
	}, c
}

func newFixture(t *testing.T, w *servicetest.Worker) *fixture {
	t.Helper()
	js, err := jetstream.New(w.Conn)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := llmservices.Load(w.Config.LLMServicesFile)
	if err != nil {
		t.Fatal(err)
	}
	proc, c := processors(t, w, js, reg)
	return &fixture{w: w, js: js, stream: c.Topology.Stream, claims: c.Claims, proc: proc}
}

// send sends body through the worker and records its reply.
func (f *fixture) send(t *testing.T, subject string, body []byte, outcome string, txt, textPNG bool) {
	t.Helper()
	rep := f.w.CallRaw(subject, body)
	f.sent = append(f.sent, sent{subject: subject, body: body, reqID: rep.RequestID, reply: rep, outcome: outcome, txt: txt, textPNG: textPNG})
}

func (f *fixture) getArtifact(t *testing.T, ref, serviceID, outcome string, txt, textPNG bool, extra ...string) {
	t.Helper()
	body := fmt.Sprintf(`{"request_id":"ga-%d-%s","ref":%q,"service_id":%q%s}`, len(f.sent), servicetest.RandomHex(4), ref, serviceID, strings.Join(extra, ""))
	f.send(t, contracts.SubjectGetArtifact, []byte(body), outcome, txt, textPNG)
}

// run replays with opts and returns the decoded lines, the raw lines, the summary and the progress.
func (f *fixture) run(t *testing.T, proc replay.ProcessorFunc, opts replay.Options) ([]replay.Line, []map[string]json.RawMessage, replay.Summary, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out, progress bytes.Buffer
	sum, err := replay.Run(ctx, f.js, f.w.Conn, f.stream, proc, opts, &out, &progress)
	if err != nil {
		t.Fatalf("replay.Run: %v\nprogress: %s", err, progress.String())
	}
	var lines []replay.Line
	var raws []map[string]json.RawMessage
	for _, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		var line replay.Line
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatalf("line is not JSON: %v: %.300s", err, l)
		}
		if err := json.Unmarshal(l, &raw); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, line)
		raws = append(raws, raw)
	}
	return lines, raws, sum, progress.String()
}

// seqCase is a replay with opts whose lines are the requests at the sequences want, in order.
type seqCase struct {
	name string
	opts replay.Options
	want []uint64
}

// wantSeqs replays each case in a subtest named after it and checks the sequences of its lines.
func (f *fixture) wantSeqs(t *testing.T, tests []seqCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, _, _, _ := f.run(t, f.proc, tt.opts)
			if !slices.Equal(seqs(lines), tt.want) {
				t.Fatalf("seqs = %v, want %v", seqs(lines), tt.want)
			}
		})
	}
}

func seqs(lines []replay.Line) []uint64 {
	var out []uint64
	for _, l := range lines {
		out = append(out, l.Seq)
	}
	return out
}

func seqRange(from, to uint64) []uint64 {
	var out []uint64
	for s := from; s <= to; s++ {
		out = append(out, s)
	}
	return out
}

// sameJSON reports whether a and b encode the same JSON value.
func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	norm := func(v any) any {
		raw, ok := v.([]byte)
		if !ok {
			if rm, isRaw := v.(json.RawMessage); isRaw {
				raw, ok = rm, true
			}
		}
		if !ok {
			var err error
			if raw, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		}
		var out any
		if err := json.Unmarshal(raw, &out); err != nil {
			t.Fatalf("not JSON: %v: %.200s", err, raw)
		}
		return out
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// TestReplay sends requests of every outcome through a real worker, then replays them.
func TestReplay(t *testing.T) {
	w := servicetest.Start(t, minio)
	f := newFixture(t, w)
	w.PutArtifact("txt", "text/plain; charset=utf-8", "notes.txt", []byte("first version <b>&amp;</b>\n"))
	w.PutArtifact("png", "image/png", "chart.png", testfiles.PNG(16, 12))
	big := testfiles.NoisyPNG(800, 800)
	if len(big) < 1<<20 {
		t.Fatalf("fixture is %d bytes, want > 1 MiB so that its reply travels by claim check", len(big))
	}
	w.PutArtifact("big", "image/png", "big.png", big)

	f.getArtifact(t, "artifact:txt", "text-model", replay.OutcomeOK, true, false)
	f.getArtifact(t, "artifact:png", "vision-model", replay.OutcomeOK, false, false)
	f.getArtifact(t, "artifact:png", "text-model", replay.OutcomeOK, false, true)
	f.getArtifact(t, "artifact:missing", "vision-model", replay.OutcomeErrorReply, false, false)
	f.send(t, contracts.SubjectGetArtifact, []byte(`{"request_id": "broken", `), replay.OutcomePoison, false, false)
	f.send(t, contracts.SubjectMetadata, []byte(`{"request_id":"md-1","id":"artifact:txt"}`), replay.OutcomeOK, true, false)
	padding := strings.Repeat("p", 2<<20)
	f.getArtifact(t, "artifact:txt", "text-model", replay.OutcomeOK, true, false, `,"padding":"`+padding+`"`)
	f.getArtifact(t, "artifact:big", "vision-model", replay.OutcomeOK, false, false)
	f.getArtifact(t, "artifact:png", "vision-model", replay.OutcomeOK, false, false, `,"dialect":"anthropic"`)
	n := len(f.sent)
	for i, s := range f.sent {
		if got := s.reply.OK; got != (s.outcome == replay.OutcomeOK) {
			t.Fatalf("request %d: the worker answered ok=%v (%+v), want outcome %s", i, got, s.reply.Error, s.outcome)
		}
	}
	stream, err := f.js.Stream(context.Background(), f.stream)
	if err != nil {
		t.Fatal(err)
	}
	// The worker deletes a claim-checked request's body once it answered it (contracts/README.md,
	// "Claim check"). Put request 7's back, as a dead-lettered request's still is, so that replay
	// resolves it; the last subtest replays it without.
	stored7, err := stream.GetMsg(context.Background(), 7)
	if err != nil {
		t.Fatal(err)
	}
	claim7 := stored7.Header.Get(contracts.HeaderClaimCheck)
	claims, err := f.js.ObjectStore(context.Background(), contracts.ClaimCheckBucket)
	if err != nil {
		t.Fatal(err)
	}
	servicetest.WaitFor(t, 20*time.Second, "the worker deleted request 7's body", func() bool {
		_, err := claims.GetInfo(context.Background(), claim7)
		return errors.Is(err, jetstream.ErrObjectNotFound)
	})
	if _, err := claims.PutBytes(context.Background(), claim7, f.sent[6].body); err != nil {
		t.Fatal(err)
	}

	t.Run("every request in order with the worker's reply", func(t *testing.T) {
		lines, raws, sum, progress := f.run(t, f.proc, replay.Options{ProgressEvery: 1, KeepMedia: true})
		if !slices.Equal(seqs(lines), seqRange(1, uint64(n))) {
			t.Fatalf("seqs = %v, want 1..%d", seqs(lines), n)
		}
		for i, l := range lines {
			s := f.sent[i]
			if l.Subject != s.subject || l.RequestID != s.reqID || l.Outcome != s.outcome {
				t.Errorf("line %d: subject/request_id/outcome = %s/%q/%s, want %s/%q/%s", i, l.Subject, l.RequestID, l.Outcome, s.subject, s.reqID, s.outcome)
			}
			if l.Reply == nil || !sameJSON(t, *l.Reply, s.reply) {
				t.Errorf("line %d: replayed reply differs from the worker's:\n got %.300s\nwant %.300s", i, mustJSON(t, l.Reply), mustJSON(t, s.reply))
			}
			if json.Valid(s.body) {
				if !sameJSON(t, l.Request, s.body) {
					t.Errorf("line %d: request %.200s, want %.200s", i, l.Request, s.body)
				}
			} else {
				var str string
				if err := json.Unmarshal(l.Request, &str); err != nil || str != string(s.body) {
					t.Errorf("line %d: a malformed request must be a JSON string of its body, got %.200s", i, l.Request)
				}
			}
			if l.Time.IsZero() || (i > 0 && l.Time.Before(lines[i-1].Time)) {
				t.Errorf("line %d: time %s not in stream order", i, l.Time)
			}
			if _, ok := raws[i]["changed"]; ok {
				t.Errorf("line %d: changed reported without Results", i)
			}
		}
		want := replay.Summary{Replayed: n, OK: n - 2, ErrorReplies: 1, Poison: 1, LastSeq: uint64(n)}
		if sum != want {
			t.Errorf("summary = %+v, want %+v", sum, want)
		}
		if !strings.Contains(progress, fmt.Sprintf("replayed %d/%d (seq %d)", n, n, n)) {
			t.Errorf("progress lacks the last step:\n%s", progress)
		}
	})

	t.Run("media is shown as length and sha256 unless kept; headers are shown", func(t *testing.T) {
		png := testfiles.PNG(16, 12)
		for _, tc := range []struct {
			seq  uint64
			data []byte
			want string
		}{
			{2, png, "<media image/png: %d bytes, sha256 %x>"}, // OpenAI image_url data URL
			{8, big, "<media image/png: %d bytes, sha256 %x>"}, // claim-checked reply
			{9, png, `"data":"<media: %d bytes, sha256 %x>"`},  // Anthropic source.data
		} {
			lines, raws, _, _ := f.run(t, f.proc, replay.Options{StartSeq: tc.seq, EndSeq: tc.seq})
			if len(lines) != 1 {
				t.Fatalf("seq %d: %d lines", tc.seq, len(lines))
			}
			want := fmt.Sprintf(tc.want, len(tc.data), sha256.Sum256(tc.data))
			if reply := string(raws[0]["reply"]); !strings.Contains(reply, want) || strings.Contains(reply, ";base64,") || len(reply) > 2000 {
				t.Errorf("seq %d: reply %.600s\nwant it to hold %s and no base64", tc.seq, reply, want)
			}
			if lines[0].Headers.Get(contracts.HeaderReplyTo) == "" || lines[0].Headers.Get(contracts.HeaderMsgID) != lines[0].RequestID {
				t.Errorf("seq %d: headers %v, want the stored Reply-To and Nats-Msg-Id", tc.seq, lines[0].Headers)
			}
			kept, _, _, _ := f.run(t, f.proc, replay.Options{StartSeq: tc.seq, EndSeq: tc.seq, KeepMedia: true})
			if !sameJSON(t, *kept[0].Reply, f.sent[tc.seq-1].reply) {
				t.Errorf("seq %d: --keep-media reply differs from the worker's", tc.seq)
			}
		}
	})

	t.Run("a claim-checked request is resolved and replayed", func(t *testing.T) {
		stored, err := stream.GetMsg(context.Background(), 7)
		if err != nil {
			t.Fatal(err)
		}
		if stored.Header.Get(contracts.HeaderClaimCheck) == "" || len(stored.Data) != 0 {
			t.Fatalf("request 7 was stored inline (%d bytes): the test needs a claim-checked one", len(stored.Data))
		}
		lines, _, _, _ := f.run(t, f.proc, replay.Options{StartSeq: 7, EndSeq: 7})
		if len(lines) != 1 || lines[0].Outcome != replay.OutcomeOK {
			t.Fatalf("lines = %+v", lines)
		}
		var req map[string]string
		if err := json.Unmarshal(lines[0].Request, &req); err != nil || req["padding"] != padding {
			t.Fatalf("the line does not hold the resolved request (%d bytes)", len(lines[0].Request))
		}
	})

	t.Run("subject filter", func(t *testing.T) {
		lines, _, _, _ := f.run(t, f.proc, replay.Options{Subjects: []string{contracts.SubjectMetadata}})
		if !slices.Equal(seqs(lines), []uint64{6}) || lines[0].Subject != contracts.SubjectMetadata {
			t.Fatalf("seqs = %v, want [6]", seqs(lines))
		}
		lines, _, _, _ = f.run(t, f.proc, replay.Options{Subjects: []string{contracts.SubjectGetArtifact, contracts.SubjectMetadata}})
		if len(lines) != n {
			t.Fatalf("%d lines, want %d", len(lines), n)
		}
		lines, _, sum, _ := f.run(t, f.proc, replay.Options{Subjects: []string{contracts.SubjectGetHistoryImage}})
		if len(lines) != 0 || sum.Replayed != 0 {
			t.Fatalf("a subject without requests replayed %d", len(lines))
		}
		_, err := replay.Run(context.Background(), f.js, nil, f.stream, f.proc, replay.Options{Subjects: []string{"no.such.subject"}}, &bytes.Buffer{}, nil)
		if !errors.Is(err, replay.ErrUnknownSubject) {
			t.Fatalf("unknown subject: err = %v, want ErrUnknownSubject", err)
		}
	})

	t.Run("start and end sequence", func(t *testing.T) {
		tests := []seqCase{
			{"range", replay.Options{StartSeq: 2, EndSeq: 4}, seqRange(2, 4)},
			{"start only", replay.Options{StartSeq: 7}, seqRange(7, uint64(n))},
			{"end only", replay.Options{EndSeq: 1}, []uint64{1}},
			{"past the end", replay.Options{StartSeq: uint64(n) + 5}, nil},
			{"end past the stream", replay.Options{StartSeq: uint64(n), EndSeq: uint64(n) + 100}, []uint64{uint64(n)}},
			{"filtered range", replay.Options{StartSeq: 2, EndSeq: 8, Subjects: []string{contracts.SubjectMetadata}}, []uint64{6}},
		}
		f.wantSeqs(t, tests)
	})

	t.Run("start and end time", func(t *testing.T) {
		all, _, _, _ := f.run(t, f.proc, replay.Options{})
		pick := func(cond func(time.Time) bool) []uint64 {
			var out []uint64
			for _, l := range all {
				if cond(l.Time) {
					out = append(out, l.Seq)
				}
			}
			return out
		}
		from, to := all[2].Time, all[5].Time
		tests := []seqCase{
			{"start time", replay.Options{StartTime: from}, pick(func(t time.Time) bool { return !t.Before(from) })},
			{"end time", replay.Options{EndTime: to}, pick(func(t time.Time) bool { return t.Before(to) })},
			{"both", replay.Options{StartTime: from, EndTime: to}, pick(func(t time.Time) bool { return !t.Before(from) && t.Before(to) })},
			{"start after the last request", replay.Options{StartTime: all[n-1].Time.Add(time.Second)}, nil},
		}
		f.wantSeqs(t, tests)
	})

	t.Run("limit", func(t *testing.T) {
		lines, _, sum, _ := f.run(t, f.proc, replay.Options{Limit: 3})
		if !slices.Equal(seqs(lines), seqRange(1, 3)) || sum.Replayed != 3 || sum.LastSeq != 3 {
			t.Fatalf("seqs = %v summary %+v, want 1..3", seqs(lines), sum)
		}
		lines, _, _, _ = f.run(t, f.proc, replay.Options{Limit: 2, StartSeq: 5})
		if !slices.Equal(seqs(lines), seqRange(5, 6)) {
			t.Fatalf("seqs = %v, want 5..6", seqs(lines))
		}
	})

	t.Run("replies go to PublishTo and never to the original Reply-To", func(t *testing.T) {
		obs := natstest.Connect(t, w.NATS)
		var originals []*nats.Subscription
		for seq := uint64(1); seq <= uint64(n); seq++ {
			m, err := stream.GetMsg(context.Background(), seq)
			if err != nil {
				t.Fatal(err)
			}
			replyTo := m.Header.Get(contracts.HeaderReplyTo)
			if replyTo == "" {
				t.Fatalf("request %d has no Reply-To", seq)
			}
			sub, err := obs.SubscribeSync(replyTo)
			if err != nil {
				t.Fatal(err)
			}
			originals = append(originals, sub)
		}
		out, err := obs.SubscribeSync("replay.out")
		if err != nil {
			t.Fatal(err)
		}
		if err := obs.Flush(); err != nil {
			t.Fatal(err)
		}
		lines, _, _, _ := f.run(t, f.proc, replay.Options{PublishTo: "replay.out", KeepMedia: true})
		if len(lines) != n {
			t.Fatalf("%d lines, want %d", len(lines), n)
		}
		// Run flushed its publications; our own round trip delivers whatever the server routed to us.
		if err := obs.Flush(); err != nil {
			t.Fatal(err)
		}
		for i, sub := range originals {
			if k, _, _ := sub.Pending(); k != 0 {
				t.Errorf("the original Reply-To of request %d got %d messages", i+1, k)
			}
		}
		var claimChecked int
		for i := range n {
			m, err := out.NextMsg(10 * time.Second)
			if err != nil {
				t.Fatalf("reply %d not published: %v", i+1, err)
			}
			if got := m.Header.Get(replay.HeaderSequence); got != strconv.Itoa(i+1) {
				t.Errorf("reply %d: %s = %q", i+1, replay.HeaderSequence, got)
			}
			if m.Header.Get(replay.HeaderSubject) != f.sent[i].subject || m.Header.Get(contracts.HeaderContractVersion) != contracts.Version {
				t.Errorf("reply %d: headers %v", i+1, m.Header)
			}
			if m.Header.Get(contracts.HeaderClaimCheck) != "" {
				claimChecked++
			}
			body, err := f.claims.Resolve(context.Background(), m.Header, m.Data)
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, body, lines[i].Reply) {
				t.Errorf("published reply %d differs from its line", i+1)
			}
		}
		if claimChecked != 1 {
			t.Errorf("%d replies went by claim check, want 1 (the big image)", claimChecked)
		}
		if k, _, _ := out.Pending(); k != 0 {
			t.Errorf("%d extra messages on the publish subject", k)
		}
	})

	t.Run("a handler panic is an internal_error line and replay continues", func(t *testing.T) {
		victim := f.sent[1].reqID
		proc := func(subject string) (messaging.Processor, bool) {
			p, ok := f.proc(subject)
			inner := p.Handler
			p.Handler = func(ctx context.Context, req messaging.Request) (any, error) {
				if req.RequestID == victim {
					panic("boom")
				}
				return inner(ctx, req)
			}
			return p, ok
		}
		lines, _, sum, progress := f.run(t, proc, replay.Options{})
		if len(lines) != n {
			t.Fatalf("%d lines, want %d", len(lines), n)
		}
		l := lines[1]
		if l.Outcome != replay.OutcomePoison || l.RequestID != victim || l.Reply == nil || l.Reply.OK ||
			l.Reply.Error == nil || l.Reply.Error.Code != contracts.CodeInternal || !strings.Contains(l.Error, "boom") {
			t.Fatalf("panic line = %+v (reply %+v)", l, l.Reply)
		}
		if lines[2].Outcome != replay.OutcomeOK || sum.Poison != 2 || sum.OK != n-3 {
			t.Fatalf("replay did not carry on after the panic: %+v", sum)
		}
		if !strings.Contains(progress, "panicked: boom") {
			t.Errorf("the panic is not reported on progress:\n%s", progress)
		}
	})

	t.Run("a request without a handler is skipped", func(t *testing.T) {
		proc := func(subject string) (messaging.Processor, bool) {
			if subject == contracts.SubjectMetadata {
				return messaging.Processor{}, false
			}
			return f.proc(subject)
		}
		lines, raws, sum, _ := f.run(t, proc, replay.Options{StartSeq: 5, EndSeq: 7})
		if !slices.Equal(seqs(lines), seqRange(5, 7)) || lines[1].Outcome != replay.OutcomeSkipped || string(raws[1]["reply"]) != "null" {
			t.Fatalf("lines %v, skipped line %+v", seqs(lines), lines[1])
		}
		if sum.Skipped != 1 || sum.Replayed != 2 {
			t.Fatalf("summary %+v", sum)
		}
	})

	t.Run("a transient failure is reported and replay continues", func(t *testing.T) {
		victim := f.sent[0].reqID
		proc := func(subject string) (messaging.Processor, bool) {
			p, ok := f.proc(subject)
			inner := p.Handler
			p.Handler = func(ctx context.Context, req messaging.Request) (any, error) {
				if req.RequestID == victim {
					return nil, fmt.Errorf("stat artifacts/txt: %w", objectstore.ErrUnavailable)
				}
				return inner(ctx, req)
			}
			return p, ok
		}
		lines, _, sum, _ := f.run(t, proc, replay.Options{Limit: 2})
		l := lines[0]
		if l.Outcome != replay.OutcomeTransient || l.Reply.Error == nil || l.Reply.Error.Code != contracts.CodeUnavailable || !l.Reply.Error.Retryable || l.Error == "" {
			t.Fatalf("transient line = %+v (reply %+v)", l, l.Reply)
		}
		if len(lines) != 2 || lines[1].Outcome != replay.OutcomeOK || sum.Transient != 1 || sum.OK != 1 {
			t.Fatalf("summary %+v", sum)
		}
	})

	t.Run("a cancelled context stops the replay with what was done", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		proc := func(subject string) (messaging.Processor, bool) {
			p, ok := f.proc(subject)
			inner := p.Handler
			p.Handler = func(hctx context.Context, req messaging.Request) (any, error) {
				if req.RequestID == f.sent[2].reqID {
					cancel()
				}
				return inner(hctx, req)
			}
			return p, ok
		}
		var out bytes.Buffer
		sum, err := replay.Run(ctx, f.js, nil, f.stream, proc, replay.Options{}, &out, nil)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if sum.Replayed != 2 || strings.Count(out.String(), "\n") != 2 {
			t.Fatalf("summary %+v, output %d lines, want the 2 requests before the cancelled one", sum, strings.Count(out.String(), "\n"))
		}
	})

	t.Run("results show which replies changed", func(t *testing.T) {
		check := func(t *testing.T, lines []replay.Line, raws []map[string]json.RawMessage, changed func(s sent) bool) {
			t.Helper()
			if len(lines) != n {
				t.Fatalf("%d lines, want %d", len(lines), n)
			}
			for i, l := range lines {
				if l.Changed == nil || l.Previous != "" {
					t.Fatalf("line %d: changed %s previous %q, want a comparison", i, raws[i]["changed"], l.Previous)
				}
				if want := changed(f.sent[i]); *l.Changed != want {
					t.Errorf("line %d (%s): changed = %v, want %v", i, f.sent[i].body[:min(60, len(f.sent[i].body))], *l.Changed, want)
				}
			}
		}
		opts := replay.Options{Results: true}

		lines, raws, sum, _ := f.run(t, f.proc, opts)
		for i, l := range lines {
			if _, ok := raws[i]["changed"]; ok || l.Previous != "none" {
				t.Fatalf("first replay, line %d: changed %s previous %q, want no changed and previous none", i, raws[i]["changed"], l.Previous)
			}
		}
		if sum.New != n || sum.Changed != 0 {
			t.Fatalf("first replay summary %+v", sum)
		}
		results, err := f.js.Stream(context.Background(), replay.DefaultResultsStream)
		if err != nil {
			t.Fatal(err)
		}
		info, err := results.Info(context.Background())
		if err != nil || info.State.Msgs != uint64(n) {
			t.Fatalf("results stream holds %d replies (%v), want %d", info.State.Msgs, err, n)
		}
		stored, err := results.GetLastMsgForSubject(context.Background(), replay.ResultsSubjectPrefix+f.stream+".8")
		if err != nil || len(stored.Data) != 0 || !strings.HasPrefix(stored.Header.Get(replay.HeaderDigest), "sha256:") {
			t.Fatalf("the big reply must be kept as a digest only: %v %d bytes %v", err, len(stored.Data), stored.Header)
		}
		stored, err = results.GetLastMsgForSubject(context.Background(), replay.ResultsSubjectPrefix+f.stream+".1")
		if err != nil || !sameJSON(t, stored.Data, lines[0].Reply) {
			t.Fatalf("reply 1 not kept: %v", err)
		}

		lines, raws, sum, _ = f.run(t, f.proc, opts)
		check(t, lines, raws, func(sent) bool { return false })
		if sum.Changed != 0 || sum.New != 0 {
			t.Fatalf("second replay summary %+v", sum)
		}

		w.PutArtifact("txt", "text/plain; charset=utf-8", "notes.txt", []byte("second version, longer\n"))
		lines, raws, sum, _ = f.run(t, f.proc, opts)
		check(t, lines, raws, func(s sent) bool { return s.txt })
		if sum.Changed != 3 {
			t.Fatalf("after overwriting txt: summary %+v, want 3 changed", sum)
		}

		// A registry in which text-model reads images changes only the image asked for by text-model.
		path := w.Config.LLMServicesFile + ".vision"
		if err := os.WriteFile(path, []byte(strings.Replace(servicetest.Registry, `"id":"text-model","capabilities":{"input":["text"]`, `"id":"text-model","capabilities":{"input":["text","vision"]`, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		reg, err := llmservices.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		proc, _ := processors(t, w, f.js, reg)
		lines, raws, sum, _ = f.run(t, proc, opts)
		check(t, lines, raws, func(s sent) bool { return s.textPNG })
		if sum.Changed != 1 {
			t.Fatalf("with a new registry: summary %+v, want 1 changed", sum)
		}
	})

	t.Run("a claim-checked request whose body was deleted is poison without a request", func(t *testing.T) {
		if err := f.claims.Delete(context.Background(), claim7); err != nil {
			t.Fatal(err)
		}
		lines, raws, _, _ := f.run(t, f.proc, replay.Options{StartSeq: 7, EndSeq: 7})
		if len(lines) != 1 || lines[0].Outcome != replay.OutcomePoison || string(raws[0]["request"]) != "null" ||
			lines[0].Reply == nil || lines[0].Reply.Error == nil || lines[0].Reply.Error.Field != contracts.HeaderClaimCheck {
			t.Fatalf("lines = %+v", lines)
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReplayEmptyStream: nothing stored, nothing replayed, and Run returns at once.
func TestReplayEmptyStream(t *testing.T) {
	w := servicetest.Start(t, minio)
	f := newFixture(t, w)
	for _, opts := range []replay.Options{{}, {StartSeq: 1}, {StartTime: time.Now().Add(-time.Hour)}, {Results: true, PublishTo: "replay.out"}} {
		lines, _, sum, _ := f.run(t, f.proc, opts)
		if len(lines) != 0 || sum != (replay.Summary{}) {
			t.Fatalf("%+v: %d lines, summary %+v", opts, len(lines), sum)
		}
	}
}

// TestReplayEndsAtLastSequenceAtStart: requests that arrive during a replay are not replayed, and
// the replay still ends.
func TestReplayEndsAtLastSequenceAtStart(t *testing.T) {
	w := servicetest.Start(t, minio)
	f := newFixture(t, w)
	w.PutArtifact("a", "text/plain", "a.txt", []byte("a"))
	for range 2 {
		f.getArtifact(t, "artifact:a", "text-model", replay.OutcomeOK, false, false)
	}
	var published bool
	proc := func(subject string) (messaging.Processor, bool) {
		p, ok := f.proc(subject)
		inner := p.Handler
		p.Handler = func(ctx context.Context, req messaging.Request) (any, error) {
			if !published {
				published = true
				for i := range 3 {
					body := fmt.Sprintf(`{"request_id":"late-%d","ref":"artifact:a"}`, i)
					if _, err := f.js.Publish(ctx, contracts.SubjectGetArtifact, []byte(body)); err != nil {
						return nil, err
					}
				}
			}
			return inner(ctx, req)
		}
		return p, ok
	}
	lines, _, sum, _ := f.run(t, proc, replay.Options{})
	if !published || !slices.Equal(seqs(lines), []uint64{1, 2}) || sum.Replayed != 2 {
		t.Fatalf("seqs = %v summary %+v, want [1 2]", seqs(lines), sum)
	}
}
