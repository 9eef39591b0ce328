package handlers

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/rawjson"
)

func TestDecode(t *testing.T) {
	long := strings.Repeat("x", contracts.MaxIDLen+1)
	tests := []struct {
		name, subject, body string
		wantField           string // "" with wantOK
		wantOK              bool
		check               func(t *testing.T, v any)
	}{
		{name: "the workspace-ID design's mimeType is mime_type", subject: contracts.SubjectFileWritten,
			body: `{"request_id":"r","workspace_id":"w","path":"a.js","mimeType":"text/javascript"}`, wantOK: true,
			check: func(t *testing.T, v any) {
				if r := v.(*contracts.FileWrittenRequest); r.MimeType != "text/javascript" {
					t.Errorf("mime_type = %q", r.MimeType)
				}
			}},
		{name: "the workspace-ID design's spellings of the ids", subject: contracts.SubjectFileWritten,
			body: `{"request_id":"r","workspaceId":"w","path":"a","mime_type":"text/plain","agentId":"a1","messageId":"m1"}`, wantOK: true,
			check: func(t *testing.T, v any) {
				if r := v.(*contracts.FileWrittenRequest); r.WorkspaceID != "w" || r.AgentID != "a1" || r.MessageID != "m1" {
					t.Errorf("request = %+v", r)
				}
			}},
		{name: "both spellings, same value", subject: contracts.SubjectFileWritten,
			body: `{"request_id":"r","mime_type":"text/plain","mimeType": "text/plain"}`, wantOK: true},
		{name: "both spellings, different values", subject: contracts.SubjectFileWritten,
			body: `{"request_id":"r","mime_type":"text/plain","mimeType":"text/html"}`, wantField: "mimeType"},
		{name: "accepted spelling of the wrong type", subject: contracts.SubjectFileWritten,
			body: `{"request_id":"r","mimeType":5}`, wantField: "mimeType"},
		{name: "the routing design's serviceId", subject: contracts.SubjectGetArtifact,
			body: `{"request_id":"r","ref":"a","serviceId":"vision-model"}`, wantOK: true,
			check: func(t *testing.T, v any) {
				if r := v.(*contracts.GetArtifactRequest); r.ServiceID != "vision-model" {
					t.Errorf("service_id = %q", r.ServiceID)
				}
			}},
		{name: "imageMd5 is refused", subject: contracts.SubjectGetHistoryImage, body: `{"request_id":"r","imageMd5":"0123456789abcdef"}`, wantField: "imageMd5"},
		{name: "contentBase64 is refused", subject: contracts.SubjectFileWritten, body: `{"request_id":"r","contentBase64":"QQ=="}`, wantField: "contentBase64"},
		{name: "requestId next to request_id is refused", subject: contracts.SubjectMetadata, body: `{"request_id":"r","requestId":"r","id":"a"}`, wantField: "requestId"},
		{name: "Dialect for dialect", subject: contracts.SubjectGetHistoryImage, body: `{"request_id":"r","image_md5":"x","Dialect":"anthropic"}`, wantField: "Dialect"},
		{name: "ID for id", subject: contracts.SubjectMetadata, body: `{"request_id":"r","ID":"a"}`, wantField: "ID"},
		{name: "unknown fields are still accepted", subject: contracts.SubjectMetadata, body: `{"request_id":"r","id":"a","trace":{"x":1}}`, wantOK: true},
		{name: "invalid UTF-8 in a ref", subject: contracts.SubjectGetArtifact, body: "{\"request_id\":\"r\",\"ref\":\"a\xff\"}", wantField: "ref"},
		{name: "lone surrogate in a path", subject: contracts.SubjectFileWritten, body: `{"request_id":"r","path":"a\udc00b"}`, wantField: "path"},
		{name: "high surrogate without its pair", subject: contracts.SubjectFileWritten, body: `{"request_id":"r","content":"x\ud83dy"}`, wantField: "content"},
		{name: "surrogate pair is fine", subject: contracts.SubjectFileWritten, body: `{"request_id":"r","content":"\ud83d\ude00 \u4f60\\ud800"}`, wantOK: true,
			check: func(t *testing.T, v any) {
				if r := v.(*contracts.FileWrittenRequest); *r.Content != "😀 你\\ud800" {
					t.Errorf("content = %q", *r.Content)
				}
			}},
		{name: "invalid UTF-8 deep in a context", subject: contracts.SubjectPreprocess,
			body: "{\"request_id\":\"r\",\"messages\":[[\"human\",[{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"text\",\"text\":\"\xc3\x28\"}]]]}", wantField: "messages"},
		{name: "lone surrogate in a member name", subject: contracts.SubjectMetadata, body: `{"request_id":"r","id":"a","\udc00":1}`, wantField: ""},
		{name: "invalid UTF-8 in an unknown field", subject: contracts.SubjectMetadata, body: "{\"request_id\":\"r\",\"id\":\"a\",\"note\":\"\xff\"}", wantField: "note"},
		{name: "agent_id too long", subject: contracts.SubjectFileWritten, body: `{"request_id":"r","agent_id":"` + long + `"}`, wantField: "agent_id"},
		{name: "agentId too long", subject: contracts.SubjectFileWritten, body: `{"request_id":"r","agentId":"` + long + `"}`, wantField: "agent_id"},
		{name: "service_id too long", subject: contracts.SubjectGetArtifact, body: `{"request_id":"r","ref":"a","service_id":"` + long + `"}`, wantField: "service_id"},
		{name: "ref too long", subject: contracts.SubjectGetArtifact, body: `{"request_id":"r","ref":"` + strings.Repeat("a", contracts.MaxRefLen+1) + `"}`, wantField: "ref"},
		{name: "agent_id at the limit", subject: contracts.SubjectFileWritten, body: `{"request_id":"r","agent_id":"` + long[1:] + `"}`, wantOK: true},
	}
	newRequest := map[string]func() any{
		contracts.SubjectGetArtifact:     func() any { return &contracts.GetArtifactRequest{} },
		contracts.SubjectGetHistoryImage: func() any { return &contracts.GetHistoryImageRequest{} },
		contracts.SubjectFileWritten:     func() any { return &contracts.FileWrittenRequest{} },
		contracts.SubjectPreprocess:      func() any { return &contracts.PreprocessRequest{} },
		contracts.SubjectMetadata:        func() any { return &contracts.MetadataRequest{} },
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := newRequest[tt.subject]()
			err := decode(tt.subject, []byte(tt.body), v)
			if tt.wantOK {
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				if tt.check != nil {
					tt.check(t, v)
				}
				return
			}
			var we *contracts.Error
			if !errors.As(err, &we) || we.Code != contracts.CodeInvalidRequest || we.Field != tt.wantField {
				t.Fatalf("error = %#v, want invalid_request with field %q", err, tt.wantField)
			}
		})
	}
}

func TestDecodeEnvelope(t *testing.T) {
	tests := []struct {
		name, body, wantID, wantField string
	}{
		{"ok", `{"request_id":"r1"}`, "r1", ""},
		{"a number", `{"request_id":42}`, "", "request_id"},
		{"an object", `{"request_id":{"a":1}}`, "", "request_id"},
		{"missing", `{"ref":"a"}`, "", "request_id"},
		{"empty", `{"request_id":""}`, "", "request_id"},
		{"requestId instead", `{"requestId":"r1"}`, "", "requestId"},
		{"invalid UTF-8", "{\"request_id\":\"r\xff\"}", "", "request_id"},
		{"lone surrogate", `{"request_id":"r\ud800"}`, "", "request_id"},
		{"too long", `{"request_id":"` + strings.Repeat("r", contracts.MaxIDLen+1) + `"}`, "", "request_id"},
		{"not an object", `[1]`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := DecodeEnvelope([]byte(tt.body))
			if tt.wantID != "" {
				if err != nil || id != tt.wantID {
					t.Fatalf("DecodeEnvelope = %q, %v; want %q", id, err, tt.wantID)
				}
				return
			}
			var we *contracts.Error
			if !errors.As(err, &we) || we.Code != contracts.CodeInvalidRequest || we.Field != tt.wantField {
				t.Fatalf("error = %#v, want invalid_request with field %q", err, tt.wantField)
			}
			if len(we.Message) > 200 {
				t.Errorf("message is %d bytes: %.80s...", len(we.Message), we.Message)
			}
		})
	}
}

// The schemas document exactly the other spellings the worker accepts (properties with x-same-as).
func TestOtherSpellingsMatchSchemas(t *testing.T) {
	files := map[string]string{
		contracts.SubjectGetArtifact:     "get_artifact.request.json",
		contracts.SubjectGetHistoryImage: "get_history_image.request.json",
		contracts.SubjectFileWritten:     "file_written.request.json",
		contracts.SubjectPreprocess:      "preprocess.request.json",
		contracts.SubjectMetadata:        "metadata.request.json",
	}
	for _, subject := range contracts.RequestSubjects {
		raw, err := os.ReadFile(filepath.Join("..", "contracts", "schema", files[subject]))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Properties map[string]struct {
				SameAs string `json:"x-same-as"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		inSchema := map[string]string{}
		for name, p := range doc.Properties {
			if p.SameAs != "" {
				inSchema[name] = p.SameAs
			}
		}
		if got, want := inSchema, otherSpellings[subject]; len(got) != len(want) || !subset(got, want) {
			t.Errorf("%s: schema accepts %v, worker accepts %v", subject, got, want)
		}
	}
}

func subset(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestMapErrorBoundsEchoedInput(t *testing.T) {
	huge := strings.Repeat("é", 1<<19) // 1 MiB
	wire, _ := MapError(withRef(huge, &contracts.Error{Code: contracts.CodeInvalidArtifactID, Message: "bad: " + huge, Field: huge}))
	if len(wire.Message) > contracts.MaxErrorMessageLen || len(wire.Ref) > contracts.MaxRefLen || len(wire.Field) > contracts.MaxErrorFieldLen {
		t.Fatalf("message %d, ref %d, field %d bytes", len(wire.Message), len(wire.Ref), len(wire.Field))
	}
	if !strings.HasPrefix(wire.Message, "bad: é") || !strings.HasSuffix(wire.Message, "...") {
		t.Errorf("message = %.40q...%q", wire.Message, wire.Message[len(wire.Message)-10:])
	}
}

// A malformed ws: id longer than the message's bound: the message quotes it by its first 64 bytes
// and still says what is wrong (the whole id, first, used to push the reason past the cut).
func TestLongWorkspaceIDErrorKeepsTheReason(t *testing.T) {
	for _, tc := range []struct{ id, reason string }{
		{"ws:demo:" + strings.Repeat("A", 1500) + "!", "characters, at most"},
		{"ws:demo:" + strings.Repeat("A", 400) + "!", "is not unpadded base64url"},
	} {
		_, err := resolveRef(tc.id)
		wire, _ := MapError(withRef(tc.id, err))
		if wire.Code != contracts.CodeInvalidArtifactID || !strings.Contains(wire.Message, tc.reason) || strings.Contains(wire.Message, strings.Repeat("A", 65)) {
			t.Errorf("%d-byte id: %s %q, want the reason %q and at most 64 bytes of the id", len(tc.id), wire.Code, wire.Message, tc.reason)
		}
	}
}

// BenchmarkDecodeLargeBody measures decode on a 20 MB body, the worst case of the UTF-8 check:
// text content (file_written) and a context of base64 images (preprocess).
func BenchmarkDecodeLargeBody(b *testing.B) {
	text := strings.Repeat("第一行 hello \"quoted\"\n", 20<<20/28)
	content, _ := json.Marshal(text)
	b64 := strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 20<<20/24)
	bodies := []struct {
		name, subject string
		body          []byte
		v             func() any
	}{
		{"file_written text", contracts.SubjectFileWritten, []byte(`{"request_id":"r","workspace_id":"w","path":"a","mime_type":"text/plain","content":` + string(content) + `}`),
			func() any { return &contracts.FileWrittenRequest{} }},
		{"preprocess base64", contracts.SubjectPreprocess, []byte(`{"request_id":"r","messages":[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + b64 + `"}}]],["human","x"]]}`),
			func() any { return &contracts.PreprocessRequest{} }},
	}
	for _, bb := range bodies {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(bb.body)))
			for b.Loop() {
				if err := decode(bb.subject, bb.body, bb.v()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("badText alone", func(b *testing.B) {
		body := bodies[0].body
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if _, bad := rawjson.BadText(body, ""); bad {
				b.Fatal("bad text")
			}
		}
	})
}

// The request schemas list the canonical dialect names; the worker canonicalizes other letter cases
// and surrounding spaces (contracts/README.md, "Dialects"), and refuses anything else.
func TestDialectIsCanonicalized(t *testing.T) {
	for in, want := range map[string]string{"": "openai-chat", "Anthropic": "anthropic", " GEMINI ": "gemini", "LangChain-JS": "langchain-js"} {
		if got, err := dialect(in); err != nil || got != want {
			t.Errorf("dialect(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := dialect("anthropic-v2"); err == nil {
		t.Error(`dialect("anthropic-v2") accepted`)
	}
}
