package handlers

import (
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

func TestCompleteToolError(t *testing.T) {
	notFound := &contracts.Error{Code: contracts.CodeArtifactNotFound, Message: "artifact not found: artifact:x", Ref: "artifact:x"}
	tests := []struct {
		name, subject, body string
		in                  *contracts.Error
		message, dialect    string
		toolContent         string
	}{
		{"not found, body unreadable: defaults", contracts.SubjectGetArtifact, `{"ref":`, notFound,
			"工件不存在或已被删除", "openai-chat", `"{\"error\":\"artifact_not_found\",\"ref\":\"artifact:x\",\"message\":\"工件不存在或已被删除\"}"`},
		{"locale of the wrong type: default", contracts.SubjectGetArtifact, `{"locale":5,"dialect":"anthropic"}`, notFound,
			"工件不存在或已被删除", "anthropic", `[{"type":"text","text":"{\"error\":\"artifact_not_found\",\"ref\":\"artifact:x\",\"message\":\"工件不存在或已被删除\"}"}]`},
		{"html characters are not escaped", contracts.SubjectGetArtifact, `{"locale":"en"}`,
			&contracts.Error{Code: contracts.CodeInvalidArtifactID, Message: "bad", Ref: "a<b>&c"},
			"bad", "openai-chat", `"{\"error\":\"invalid_artifact_id\",\"ref\":\"a<b>&c\",\"message\":\"The artifact identifier is invalid\"}"`},
		{"expired (no handler ran): the ref from the body", contracts.SubjectGetArtifact, `{"ref":"artifact:late","locale":"en"}`,
			&contracts.Error{Code: contracts.CodeExpired, Message: "the request's deadline passed"},
			"the request's deadline passed", "openai-chat", `"{\"error\":\"expired\",\"ref\":\"artifact:late\",\"message\":\"The request passed its deadline and was not run\"}"`},
		{"expired, claim-checked body: no ref", contracts.SubjectGetArtifact, ``,
			&contracts.Error{Code: contracts.CodeExpired, Message: "m"},
			"m", "openai-chat", `"{\"error\":\"expired\",\"message\":\"请求已超过截止时间，未执行\"}"`},
		{"unknown code is named", contracts.SubjectGetHistoryImage, `{"locale":"en"}`, &contracts.Error{Code: "brand_new", Message: "m"},
			"m", "openai-chat", `"The tool call failed (brand_new)"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := *tt.in
			got := CompleteToolError(tt.subject, []byte(tt.body), tt.in)
			if *tt.in != before {
				t.Fatal("the input error was modified")
			}
			if got.Message != tt.message || got.Assembly == nil || got.Assembly.Dialect != tt.dialect || string(got.Assembly.ToolContent) != tt.toolContent {
				t.Errorf("got message %q, assembly %+v (%s)", got.Message, got.Assembly, got.Assembly.ToolContent)
			}
		})
	}
	for _, subject := range []string{contracts.SubjectMetadata, contracts.SubjectFileWritten, contracts.SubjectPreprocess} {
		if got := CompleteToolError(subject, nil, notFound); got != notFound {
			t.Errorf("%s: error changed: %+v", subject, got)
		}
	}
}
