package schematest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/schematest"
)

func okReply(t *testing.T, result any) []byte {
	t.Helper()
	raw, err := json.Marshal(result)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(contracts.Reply{RequestID: "r1", OK: true, Result: raw})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func textResult() contracts.GetArtifactResult {
	return contracts.GetArtifactResult{
		ContentRouteResult: contracts.ContentRouteResult{
			ContentType: contracts.ContentText, Routing: contracts.RouteText, Content: "hello",
			Metadata: contracts.ArtifactMetadata{ID: "a1", Type: "text/plain", Filename: "a.txt", MimeType: "text/plain", Size: 5, CreatedAt: time.Unix(0, 0).UTC()},
		},
		Usage:    contracts.Usage{InputTokens: 2, Base64TextTokens: 2, Basis: contracts.UsageText},
		Assembly: contracts.Assembly{Dialect: contracts.DialectOpenAIChat, ToolContent: json.RawMessage(`"hello"`)},
	}
}

// The validator passes what the schemas allow and refuses what they do not: each broken reply
// below must be reported, or the e2e checks would pass anything.
func TestCheckReply(t *testing.T) {
	good := okReply(t, textResult())
	if err := schematest.CheckReply(contracts.SubjectGetArtifact, good); err != nil {
		t.Fatalf("a valid reply: %v", err)
	}
	broken := map[string][]byte{}
	noUsage := strings.Replace(string(good), `"usage":`, `"usageX":`, 1)
	broken["result without usage"] = []byte(noUsage)
	r := textResult()
	r.Routing = contracts.RouteImageURL
	broken["image_url without imageUrl or assembly"] = func() []byte {
		r.Assembly = contracts.Assembly{}
		return okReply(t, r)
	}()
	r = textResult()
	r.Assembly.ToolContent = json.RawMessage(`[{"type":"text","text":"hello"}]`)
	broken["openai-chat toolContent that is not a string"] = okReply(t, r)
	r = textResult()
	r.Metadata.BinaryType = "picture"
	broken["binaryType outside its enum"] = okReply(t, r)
	broken["ok with an error"] = []byte(`{"request_id":"r1","ok":true,"result":{},"error":{"code":"internal_error","message":"x"}}`)
	broken["unknown error code"] = []byte(`{"request_id":"r1","ok":false,"error":{"code":"oops","message":"x"}}`)
	broken["error without message"] = []byte(`{"request_id":"r1","ok":false,"error":{"code":"internal_error"}}`)
	for name, raw := range broken {
		if err := schematest.CheckReply(contracts.SubjectGetArtifact, raw); err == nil {
			t.Errorf("%s: passed the schemas", name)
		}
	}
	if err := schematest.CheckReply(contracts.SubjectFileWritten, []byte(`{"request_id":"r1","ok":true,"result":{"ok":true,"artifactId":"a1","path":"p"}}`)); err == nil {
		t.Error("file_written artifactId without ws: passed")
	}
	if err := schematest.CheckReply(contracts.SubjectFileWritten, []byte(`{"request_id":"r1","ok":false,"error":{"code":"invalid_path","message":"bad path"}}`)); err != nil {
		t.Errorf("an error reply: %v", err)
	}
}

func TestRequestSchemas(t *testing.T) {
	if err := schematest.Validate(schematest.RequestSchema(contracts.SubjectFileWritten), []byte(`{"request_id":"r","workspaceId":"w1","path":"a.txt","mimeType":"text/plain"}`)); err != nil {
		t.Errorf("a request in the workspace-ID design's spellings: %v", err)
	}
	if err := schematest.Validate(schematest.RequestSchema(contracts.SubjectFileWritten), []byte(`{"request_id":"r","path":"a.txt","mime_type":"text/plain"}`)); err == nil {
		t.Error("a request without workspace_id in either spelling passed")
	}
	if err := schematest.Validate(schematest.RequestSchema(contracts.SubjectGetArtifact), []byte(`{"request_id":"r","ref":"a1","dialect":"klingon"}`)); err == nil {
		t.Error("an unknown dialect passed")
	}
}

// Every subject has its request and result schema, so its replies are checked.
func TestEverySubjectHasSchemas(t *testing.T) {
	for _, subject := range contracts.RequestSubjects {
		for _, name := range []string{schematest.RequestSchema(subject), schematest.ResultSchema(subject)} {
			if _, err := os.Stat(filepath.Join(schematest.Dir(), name)); err != nil {
				t.Errorf("%s: %v", subject, err)
			}
		}
	}
}
