package service_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

// TestToolErrorsAreToolResults publishes requests with JetStream, as a runtime does, and checks that
// every error reply of a tool subject carries, in error.assembly, the tool result to give the model,
// in the request's dialect and locale: the routing design's not-found object for get_artifact,
// the history-image design's text blocks for get_history_image, a short sentence for other codes.
func TestToolErrorsAreToolResults(t *testing.T) {
	w := startWorker(t)

	tests := []struct {
		name    string
		subject string
		body    string
		code    string
		message string // error.message, when the test pins it
		dialect string
		// toolContent is the exact JSON of error.assembly.toolContent.
		toolContent string
	}{
		{
			name:    "get_artifact not found: the routing design's error object, zh, openai-chat",
			subject: contracts.SubjectGetArtifact,
			body:    `{"request_id":"te1","ref":"artifact:nope"}`,
			code:    contracts.CodeArtifactNotFound, message: "工件不存在或已被删除", dialect: "openai-chat",
			toolContent: jsonString(`{"error":"artifact_not_found","ref":"artifact:nope","message":"工件不存在或已被删除"}`),
		},
		{
			name:    "get_artifact not found: en, anthropic",
			subject: contracts.SubjectGetArtifact,
			body:    `{"request_id":"te2","ref":"missing","locale":"en","dialect":"anthropic"}`,
			code:    contracts.CodeArtifactNotFound, message: "The artifact does not exist or has been deleted", dialect: "anthropic",
			toolContent: `[{"type":"text","text":` + jsonString(`{"error":"artifact_not_found","ref":"missing","message":"The artifact does not exist or has been deleted"}`) + `}]`,
		},
		{
			name:    "get_artifact invalid id",
			subject: contracts.SubjectGetArtifact,
			body:    `{"request_id":"te3","ref":"artifact:../x/secret"}`,
			code:    contracts.CodeInvalidArtifactID, dialect: "openai-chat",
			toolContent: jsonString(`{"error":"invalid_artifact_id","ref":"artifact:../x/secret","message":"工件标识符无效"}`),
		},
		{
			name:    "get_artifact workspace path traversal, en",
			subject: contracts.SubjectGetArtifact,
			body:    `{"request_id":"te4","ref":"ws:team:Li4vLi4vZXRjL3Bhc3N3ZA","locale":"en"}`,
			code:    contracts.CodePathTraversalBlocked, dialect: "openai-chat",
			toolContent: jsonString(`{"error":"path_traversal_blocked","ref":"ws:team:Li4vLi4vZXRjL3Bhc3N3ZA","message":"The path leaves its workspace and was blocked"}`),
		},
		{
			name:    "get_artifact invalid field: the field is named; the bad dialect falls back to openai-chat",
			subject: contracts.SubjectGetArtifact,
			body:    `{"request_id":"te5","ref":"a","dialect":"cobol"}`,
			code:    contracts.CodeInvalidRequest, dialect: "openai-chat",
			toolContent: jsonString(`{"error":"invalid_request","message":"工具调用参数无效：dialect"}`),
		},
		{
			name:    "get_artifact missing request_id (the pipeline's own check) still reads locale and dialect",
			subject: contracts.SubjectGetArtifact,
			body:    `{"ref":"a","locale":"en","dialect":"anthropic"}`,
			code:    contracts.CodeInvalidRequest, dialect: "anthropic",
			toolContent: `[{"type":"text","text":` + jsonString(`{"error":"invalid_request","message":"The tool call's arguments are invalid: request_id"}`) + `}]`,
		},
		{
			name:    "get_artifact body that is not JSON: defaults",
			subject: contracts.SubjectGetArtifact,
			body:    `{"request_id": "te7", "ref": `,
			code:    contracts.CodeInvalidRequest, dialect: "openai-chat",
			toolContent: jsonString(`{"error":"invalid_request","message":"工具调用参数无效"}`),
		},
		{
			name:    "get_history_image invalid id: the history-image design's block, anthropic",
			subject: contracts.SubjectGetHistoryImage,
			body:    `{"request_id":"te8","image_md5":"abc","dialect":"anthropic"}`,
			code:    contracts.CodeInvalidImageID, message: "无效的图片标识符", dialect: "anthropic",
			toolContent: `[{"type":"text","text":"无效的图片标识符"}]`,
		},
		{
			name:    "get_history_image not found: the history-image design's block, anthropic",
			subject: contracts.SubjectGetHistoryImage,
			body:    `{"request_id":"te9","image_md5":"history_0123456789abcdef","dialect":"anthropic"}`,
			code:    contracts.CodeImageNotFound, message: "图片不存在或已过期", dialect: "anthropic",
			toolContent: `[{"type":"text","text":"图片不存在或已过期"}]`,
		},
		{
			name:    "get_history_image not found, langchain: exactly the history-image design's content list",
			subject: contracts.SubjectGetHistoryImage,
			body:    `{"request_id":"te9b","image_md5":"0123456789abcdef","dialect":"langchain"}`,
			code:    contracts.CodeImageNotFound, message: "图片不存在或已过期", dialect: "langchain",
			toolContent: `[{"type":"text","text":"图片不存在或已过期"}]`,
		},
		{
			name:    "get_history_image not found: en, openai-chat",
			subject: contracts.SubjectGetHistoryImage,
			body:    `{"request_id":"te10","image_md5":"0123456789abcdef","locale":"en"}`,
			code:    contracts.CodeImageNotFound, message: "The image does not exist or has expired", dialect: "openai-chat",
			toolContent: jsonString("The image does not exist or has expired"),
		},
		{
			name:    "get_history_image invalid field",
			subject: contracts.SubjectGetHistoryImage,
			body:    `{"request_id":"te11","image_md5":"0123456789abcdef","locale":"fr"}`,
			code:    contracts.CodeInvalidRequest, dialect: "openai-chat",
			toolContent: jsonString("工具调用参数无效：locale"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := w.CallRaw(tt.subject, []byte(tt.body))
			if rep.OK || rep.Error == nil || rep.Error.Code != tt.code {
				t.Fatalf("reply = %+v, error %+v; want code %s", rep, rep.Error, tt.code)
			}
			if tt.message != "" && rep.Error.Message != tt.message {
				t.Errorf("error.message = %q, want %q", rep.Error.Message, tt.message)
			}
			a := rep.Error.Assembly
			if a == nil {
				t.Fatalf("error without assembly: %+v", rep.Error)
			}
			if a.Dialect != tt.dialect || len(a.FollowUp) != 0 {
				t.Errorf("assembly dialect %q, %d follow-ups; want %q, none", a.Dialect, len(a.FollowUp), tt.dialect)
			}
			if string(a.ToolContent) != tt.toolContent {
				t.Errorf("toolContent =\n%s\nwant\n%s", a.ToolContent, tt.toolContent)
			}
		})
	}

	t.Run("other subjects carry no assembly", func(t *testing.T) {
		rep := w.CallRaw(contracts.SubjectMetadata, []byte(`{"request_id":"te20","id":"nope"}`))
		if rep.OK || rep.Error.Code != contracts.CodeArtifactNotFound || rep.Error.Assembly != nil {
			t.Fatalf("metadata error = %+v", rep.Error)
		}
	})
}

// jsonString is s as a JSON string literal, without HTML escaping (as the worker writes it).
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
