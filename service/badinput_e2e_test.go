package service_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// TestBadInputByClass publishes bad requests to JetStream with a Reply-To header, as a runtime
// does, on every subject: each class of bad input gets invalid_request (or the subject's own code)
// naming the field, with a short reply, and the worker keeps serving.
func TestBadInputByClass(t *testing.T) {
	w := startWorker(t)
	w.PutArtifact("a1", "text/plain", "a.txt", []byte("hello"))
	mb := strings.Repeat("x", 1<<20)
	long := strings.Repeat("i", contracts.MaxIDLen+1)

	// valid holds a valid body per subject, with %s where the class puts its members.
	valid := map[string]string{
		contracts.SubjectGetArtifact:     `{"request_id":"%s","ref":"artifact:a1"%s}`,
		contracts.SubjectGetHistoryImage: `{"request_id":"%s","image_md5":"0123456789abcdef0123456789abcdef"%s}`,
		contracts.SubjectFileWritten:     `{"request_id":"%s","workspace_id":"w1","path":"f.txt","mime_type":"text/plain","content":"x"%s}`,
		contracts.SubjectPreprocess:      `{"request_id":"%s","messages":[["human","hi"]]%s}`,
		contracts.SubjectMetadata:        `{"request_id":"%s","id":"a1"%s}`,
	}
	type class struct {
		name string
		body func(subject, id string) string
		// field and code expected per subject; a subject missing from the map gets def.
		field map[string]string
		def   string
		code  map[string]string
	}
	// replace swaps a field's valid value for another (raw JSON) value; "" for a subject without
	// such a field.
	replace := func(values map[string][2]string) func(string, string) string {
		return func(subject, id string) string {
			v, ok := values[subject]
			if !ok {
				return ""
			}
			return strings.Replace(fmt.Sprintf(valid[subject], id, ""), v[0], v[1], 1)
		}
	}
	classes := []class{
		{
			name: "request_id of the wrong type",
			body: func(subject, _ string) string {
				return strings.Replace(fmt.Sprintf(valid[subject], "", ""), `"request_id":""`, `"request_id":42`, 1)
			},
			def: "request_id",
		},
		{
			name: "requestId instead of request_id",
			body: func(subject, id string) string {
				return strings.Replace(fmt.Sprintf(valid[subject], id, ""), `"request_id"`, `"requestId"`, 1)
			},
			def: "requestId",
		},
		{
			name: "request_id too long",
			body: func(subject, _ string) string { return fmt.Sprintf(valid[subject], long+randomHex(4), "") },
			def:  "request_id",
		},
		{
			name: "request_id not UTF-8",
			body: func(subject, id string) string { return fmt.Sprintf(valid[subject], id+"\xff", "") },
			def:  "request_id",
		},
		{
			name: "a string that is not UTF-8",
			body: replace(map[string][2]string{
				contracts.SubjectGetArtifact:     {`"artifact:a1"`, "\"artifact:a\xe91\""},
				contracts.SubjectGetHistoryImage: {`"0123456789abcdef0123456789abcdef"`, "\"0123456789abcdef\xc0\xafabcdef\""},
				contracts.SubjectFileWritten:     {`"content":"x"`, "\"content\":\"caf\xe9\""},
				contracts.SubjectPreprocess:      {`"hi"`, `"hi \udc00"`},
				contracts.SubjectMetadata:        {`"a1"`, "\"a\xff1\""},
			}),
			field: map[string]string{
				contracts.SubjectGetArtifact: "ref", contracts.SubjectGetHistoryImage: "image_md5",
				contracts.SubjectFileWritten: "content", contracts.SubjectPreprocess: "messages", contracts.SubjectMetadata: "id",
			},
		},
		{
			name: "an identity field too long",
			body: replace(map[string][2]string{
				contracts.SubjectGetArtifact:     {`"ref":"artifact:a1"`, `"ref":"artifact:a1","service_id":"` + long + `"`},
				contracts.SubjectGetHistoryImage: {`"0123456789abcdef0123456789abcdef"`, `"` + long + `"`},
				contracts.SubjectFileWritten:     {`"content":"x"`, `"content":"x","agent_id":"` + long + `"`},
				contracts.SubjectMetadata:        {`"a1"`, `"` + strings.Repeat("a", contracts.MaxRefLen+1) + `"`},
			}),
			field: map[string]string{
				contracts.SubjectGetArtifact: "service_id", contracts.SubjectGetHistoryImage: "image_md5",
				contracts.SubjectFileWritten: "agent_id", contracts.SubjectMetadata: "id",
			},
			code: map[string]string{contracts.SubjectGetHistoryImage: contracts.CodeInvalidImageID},
		},
		{
			name: "1 MB of bad input gets a short error",
			body: replace(map[string][2]string{
				contracts.SubjectGetArtifact:     {`"artifact:a1"`, `"artifact:/` + mb + `"`},
				contracts.SubjectGetHistoryImage: {`"0123456789abcdef0123456789abcdef"`, `"` + mb + `"`},
				contracts.SubjectFileWritten:     {`"f.txt"`, `"../` + mb + `"`},
				contracts.SubjectPreprocess:      {`"messages"`, `"locale":"` + mb + `","messages"`},
				contracts.SubjectMetadata:        {`"a1"`, `"ws:` + mb + `"`},
			}),
			field: map[string]string{
				contracts.SubjectGetArtifact: "ref", contracts.SubjectGetHistoryImage: "image_md5",
				contracts.SubjectFileWritten: "", contracts.SubjectPreprocess: "locale", contracts.SubjectMetadata: "id",
			},
			code: map[string]string{
				contracts.SubjectGetHistoryImage: contracts.CodeInvalidImageID,
				contracts.SubjectFileWritten:     contracts.CodePathTraversalBlocked,
			},
		},
		{
			name: "a known field in another spelling",
			body: replace(map[string][2]string{
				contracts.SubjectGetArtifact:     {`"ref"`, `"Ref":"a1","ref"`},
				contracts.SubjectGetHistoryImage: {`"image_md5"`, `"imageMd5"`},
				contracts.SubjectFileWritten:     {`"content":"x"`, `"contentBase64":"eA=="`},
				contracts.SubjectPreprocess:      {`"messages"`, `"Messages"`},
				contracts.SubjectMetadata:        {`"id"`, `"ID"`},
			}),
			field: map[string]string{
				contracts.SubjectGetArtifact: "Ref", contracts.SubjectGetHistoryImage: "imageMd5",
				contracts.SubjectFileWritten: "contentBase64", contracts.SubjectPreprocess: "Messages", contracts.SubjectMetadata: "ID",
			},
		},
	}
	for _, c := range classes {
		t.Run(c.name, func(t *testing.T) {
			for _, subject := range contracts.RequestSubjects {
				t.Run(subject, func(t *testing.T) {
					id := "bad-" + randomHex(6)
					body := c.body(subject, id)
					if body == "" {
						t.Skip("no such field on this subject (context.preprocess has no identity field but request_id)")
					}
					raw := callRaw(t, w, subject, []byte(body))
					if len(raw) > 4096 {
						t.Errorf("reply is %d bytes, want a short one: %.200s", len(raw), raw)
					}
					var rep contracts.Reply
					if err := json.Unmarshal(raw, &rep); err != nil {
						t.Fatalf("reply: %v", err)
					}
					code := contracts.CodeInvalidRequest
					if cc, ok := c.code[subject]; ok {
						code = cc
					}
					field, ok := c.field[subject]
					if !ok {
						field = c.def
					}
					if rep.OK || rep.Error.Code != code || rep.Error.Field != field {
						t.Fatalf("reply = %s, want %s with field %q", raw, code, field)
					}
					if strings.ContainsRune(rep.Error.Message+rep.Error.Field+rep.Error.Ref, '\uFFFD') {
						t.Errorf("error carries U+FFFD: %s", raw)
					}
				})
			}
		})
	}
	t.Run("the worker keeps serving", func(t *testing.T) {
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "a1"})
		if !rep.OK || res.Content != "hello" {
			t.Fatalf("reply = %+v", rep.Error)
		}
	})
}

func callRaw(t *testing.T, w *servicetest.Worker, subject string, body []byte) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30e9)
	defer cancel()
	raw, err := w.Client.CallRaw(ctx, subject, body)
	if err != nil {
		t.Fatalf("call %s: %v", subject, err)
	}
	w.CheckReply(subject, raw)
	return raw
}

// TestDocumentSpellings: a runtime written to the routing and workspace-ID designs passes serviceId and
// mimeType/workspaceId/agentId/messageId; the worker reads them as service_id, mime_type, ....
func TestDocumentSpellings(t *testing.T) {
	w := startWorker(t)
	body := `{"request_id":"sp-1","workspaceId":"w9","path":"src/main.js","content":"let a = 1;","mimeType":"text/javascript","agentId":"agent-abc123","messageId":"msg-001"}`
	rep := w.CallRaw(contracts.SubjectFileWritten, []byte(body))
	if !rep.OK {
		t.Fatalf("file_written with the workspace-ID design's mimeType: %+v", rep.Error)
	}
	var res contracts.FileWrittenResult
	if err := json.Unmarshal(rep.Result, &res); err != nil {
		t.Fatal(err)
	}
	rep = w.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "sp-2", ID: res.ArtifactID})
	var info contracts.ArtifactInfo
	if err := json.Unmarshal(rep.Result, &info); !rep.OK || err != nil {
		t.Fatalf("metadata: %+v %v", rep.Error, err)
	}
	if info.MimeType != "text/javascript" || len(info.Meta.ModifiedBy) != 1 || info.Meta.ModifiedBy[0].AgentID != "agent-abc123" || info.Meta.ModifiedBy[0].MessageID != "msg-001" {
		t.Errorf("metadata = %+v", info)
	}

	w.PutArtifact("img", "image/png", "chart.png", testfiles.PNG(8, 8))
	rep = w.CallRaw(contracts.SubjectGetArtifact, []byte(`{"request_id":"sp-3","ref":"artifact:img","serviceId":"vision-model"}`))
	var got contracts.GetArtifactResult
	if err := json.Unmarshal(rep.Result, &got); !rep.OK || err != nil || got.Routing != contracts.RouteImageURL {
		t.Fatalf("get_artifact with the routing design's serviceId: %+v routing %q", rep.Error, got.Routing)
	}
}

// A file_written whose metadata cannot be recorded after its content was stored says so
// (metadata_not_recorded, with the artifact id), never internal_error; the content is there.
func TestFileWrittenMetadataNotRecorded(t *testing.T) {
	w := startWorker(t)
	js, err := jetstream.New(w.Conn)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(t.Context(), "KV_WORKSPACE_FILES")
	if err != nil {
		t.Fatal(err)
	}
	cfg := stream.CachedInfo().Config
	cfg.MaxMsgSize = 32 // every metadata record is larger: the KV write is refused for good
	if _, err := js.UpdateStream(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	rep, _ := fileWritten(t, w, contracts.FileWrittenRequest{WorkspaceID: "w2", Path: "notes.md", MimeType: "text/markdown", Content: ptr("# hi")})
	want := mustID(t, "w2", "notes.md")
	if rep.OK || rep.Error.Code != contracts.CodeMetadataNotRecorded || rep.Error.Ref != want || rep.Error.Retryable {
		t.Fatalf("reply = %+v, want metadata_not_recorded for %s", rep.Error, want)
	}
	if !strings.Contains(rep.Error.Message, "was stored") {
		t.Errorf("message %q does not say the content was stored", rep.Error.Message)
	}
	rc, _, err := w.Store.Open(t.Context(), objectstore.WorkspaceKey("w2", "notes.md"))
	if err != nil {
		t.Fatalf("content not stored: %v", err)
	}
	defer rc.Close()
	if b, _ := io.ReadAll(rc); string(b) != "# hi" {
		t.Errorf("stored %q", b)
	}
}

// The plain request/reply front (core NATS request, no headers) answers bad input the same way,
// and never echoes an over-long request_id (it is not used as Nats-Msg-Id either).
func TestBadInputPlainRequestReply(t *testing.T) {
	w := startWorker(t)
	long := strings.Repeat("r", contracts.MaxIDLen+1)
	for _, subject := range contracts.RequestSubjects {
		t.Run(subject, func(t *testing.T) {
			for _, c := range []struct{ body, field string }{
				{`{"request_id":"` + long + `"}`, "request_id"},
				{`{"requestId":"p-` + randomHex(4) + `"}`, "requestId"},
				{"{\"request_id\":\"p-" + randomHex(4) + "\",\"x\":\"\xff\"}", "x"},
			} {
				msg, err := w.Conn.Request(contracts.RequestReplySubject(subject), []byte(c.body), 20e9)
				if err != nil {
					t.Fatal(err)
				}
				var rep contracts.Reply
				if err := json.Unmarshal(msg.Data, &rep); err != nil || rep.OK || rep.Error.Code != contracts.CodeInvalidRequest || rep.Error.Field != c.field {
					t.Fatalf("reply %s (%v), want invalid_request on %s", msg.Data, err, c.field)
				}
				if len(rep.RequestID) > contracts.MaxIDLen {
					t.Errorf("reply echoes a request_id of %d bytes", len(rep.RequestID))
				}
			}
		})
	}
}
