package service_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/schematest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// TestRepliesMatchPublishedSchemas sends every subject a request that succeeds and one that fails,
// get_artifact and get_history_image in every dialect and media mode, and checks each real reply
// against the published JSON Schemas (contracts/schema: reply.json and the subject's result
// schema). Every other e2e test's replies are checked too (servicetest.Worker.Call and CallRaw);
// this test makes sure each subject, outcome and dialect is among them.
func TestRepliesMatchPublishedSchemas(t *testing.T) {
	w := startWorker(t)
	png := testfiles.PNG(64, 48)
	w.PutArtifact("s-png", "image/png", "chart.png", png)
	w.PutArtifact("s-pdf", "application/pdf", "report.pdf", testfiles.PDF())
	w.PutArtifact("s-mp3", "audio/mpeg", "voice.mp3", testfiles.MP3())
	w.PutArtifact("s-txt", "text/plain", "notes.txt", []byte("hello"))

	// call sends a raw body and returns the reply after the schema check; want is "ok" or the
	// error code the request must get, so that each case really is the outcome it names.
	call := func(t *testing.T, subject, body, want string) contracts.Reply {
		t.Helper()
		rep := w.CallRaw(subject, []byte(body)) // checked against the schemas by servicetest
		switch {
		case want == "ok" && !rep.OK:
			t.Fatalf("%s %s: want ok, got %+v", subject, body, rep.Error)
		case want != "ok" && (rep.OK || rep.Error.Code != want):
			t.Fatalf("%s %s: want error %s, got ok=%v %+v", subject, body, want, rep.OK, rep.Error)
		}
		return rep
	}
	id := func() string { return "schema-" + randomHex(6) }

	// A cached history image for get_history_image: preprocess takes the older turn's image out.
	old := base64.StdEncoding.EncodeToString(png)
	context := fmt.Sprintf(`[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]],["ai","a chart"],["human","and now?"]]`, old)
	call(t, contracts.SubjectPreprocess, fmt.Sprintf(`{"request_id":%q,"messages":%s}`, id(), context), "ok")
	md5 := "history_" + md5hex(old)

	for _, dialect := range contracts.Dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			for _, c := range []struct{ ref, service, want string }{
				{"s-png", "vision-model", "ok"},       // image part
				{"s-png", "text-model", "ok"},         // description
				{"s-png", "inline-media-model", "ok"}, // media inside the tool result where the dialect allows
				{"s-pdf", "omni-model", "ok"},         // file part
				{"s-mp3", "omni-model", "ok"},         // audio
				{"s-txt", "text-model", "ok"},         // text
				{"s-pdf", "reader-model", "ok"},       // extracted text
				{"nope", "vision-model", "artifact_not_found"},
				{"../x", "vision-model", "invalid_artifact_id"},
			} {
				call(t, contracts.SubjectGetArtifact, fmt.Sprintf(`{"request_id":%q,"ref":%q,"service_id":%q,"dialect":%q}`, id(), c.ref, c.service, dialect), c.want)
			}
			for _, media := range []string{contracts.MediaBoth, contracts.MediaResult, contracts.MediaAssembly} {
				call(t, contracts.SubjectGetArtifact, fmt.Sprintf(`{"request_id":%q,"ref":"s-png","service_id":"vision-model","dialect":%q,"media":%q}`, id(), dialect, media), "ok")
				call(t, contracts.SubjectGetHistoryImage, fmt.Sprintf(`{"request_id":%q,"image_md5":%q,"dialect":%q,"media":%q}`, id(), md5, dialect, media), "ok")
			}
			call(t, contracts.SubjectGetHistoryImage, fmt.Sprintf(`{"request_id":%q,"image_md5":%q,"dialect":%q,"service_id":"text-model"}`, id(), md5, dialect), "ok")
			call(t, contracts.SubjectGetHistoryImage, fmt.Sprintf(`{"request_id":%q,"image_md5":"history_00000000000000000000000000000000","dialect":%q}`, id(), dialect), "image_not_found")
			call(t, contracts.SubjectGetHistoryImage, fmt.Sprintf(`{"request_id":%q,"image_md5":"not-a-hash","dialect":%q}`, id(), dialect), "invalid_image_id")
			call(t, contracts.SubjectPreprocess, fmt.Sprintf(`{"request_id":%q,"messages":%s,"dialect":%q}`, id(), contextIn(dialect, old), dialect), "ok")
		})
	}
	t.Run("other subjects", func(t *testing.T) {
		t.Parallel()
		rep := call(t, contracts.SubjectFileWritten, fmt.Sprintf(`{"request_id":%q,"workspace_id":"w1","path":"src/a.py","mime_type":"text/x-python","agent_id":"coder","content":"print(1)\n"}`, id()), "ok")
		var written contracts.FileWrittenResult
		if err := json.Unmarshal(rep.Result, &written); err != nil {
			t.Fatal(err)
		}
		call(t, contracts.SubjectFileWritten, fmt.Sprintf(`{"request_id":%q,"workspace_id":"w1","path":"../etc/passwd","mime_type":"text/plain","content":"x"}`, id()), "path_traversal_blocked")
		call(t, contracts.SubjectFileWritten, fmt.Sprintf(`{"request_id":%q,"workspace_id":"w1","path":"a.txt","content":"x"}`, id()), "missing_mime_type")
		call(t, contracts.SubjectMetadata, fmt.Sprintf(`{"request_id":%q,"id":%q}`, id(), written.ArtifactID), "ok")
		call(t, contracts.SubjectMetadata, fmt.Sprintf(`{"request_id":%q,"id":"s-png"}`, id()), "ok")
		call(t, contracts.SubjectMetadata, fmt.Sprintf(`{"request_id":%q,"id":"nope"}`, id()), "artifact_not_found")
		call(t, contracts.SubjectPreprocess, fmt.Sprintf(`{"request_id":%q,"messages":{"not":"a list"}}`, id()), "invalid_request")
		for _, subject := range contracts.RequestSubjects {
			call(t, subject, `{"request_id":""}`, "invalid_request")
			call(t, subject, `not json`, "invalid_request")
		}
	})
	t.Run("the check fails a reply the schemas refuse", func(t *testing.T) {
		// The validator the calls above went through, on a real reply broken by hand.
		rep := call(t, contracts.SubjectGetArtifact, fmt.Sprintf(`{"request_id":%q,"ref":"s-png","service_id":"vision-model"}`, id()), "ok")
		var result map[string]any
		if err := json.Unmarshal(rep.Result, &result); err != nil {
			t.Fatal(err)
		}
		delete(result, "usage")
		rep.Result, _ = json.Marshal(result)
		raw, _ := json.Marshal(rep)
		if err := schematest.CheckReply(contracts.SubjectGetArtifact, raw); err == nil {
			t.Fatal("a get_artifact result without usage passed the schemas")
		}
	})
}

// contextIn is a two-turn context in dialect's own message shape whose older person's turn holds
// the PNG (base64 b64), so that context.preprocess replaces it.
func contextIn(dialect, b64 string) string {
	switch dialect {
	case contracts.DialectOpenAIResponses:
		return fmt.Sprintf(`[{"role":"user","content":[{"type":"input_image","image_url":"data:image/png;base64,%s"}]},{"role":"assistant","content":"a chart"},{"role":"user","content":"and now?"}]`, b64)
	case contracts.DialectAnthropic:
		return fmt.Sprintf(`[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":%q}}]},{"role":"assistant","content":"a chart"},{"role":"user","content":"and now?"}]`, b64)
	case contracts.DialectGemini:
		return fmt.Sprintf(`[{"role":"user","parts":[{"inlineData":{"mimeType":"image/png","data":%q}}]},{"role":"model","parts":[{"text":"a chart"}]},{"role":"user","parts":[{"text":"and now?"}]}]`, b64)
	case contracts.DialectBedrockConverse:
		return fmt.Sprintf(`[{"role":"user","content":[{"image":{"format":"png","source":{"bytes":%q}}}]},{"role":"assistant","content":[{"text":"a chart"}]},{"role":"user","content":[{"text":"and now?"}]}]`, b64)
	case contracts.DialectLangChain:
		return fmt.Sprintf(`[["human",[{"type":"image","base64":%q,"mime_type":"image/png"}]],["ai","a chart"],["human","and now?"]]`, b64)
	case contracts.DialectLangChainJS:
		return fmt.Sprintf(`[["human",[{"type":"image","data":%q,"mimeType":"image/png"}]],["ai","a chart"],["human","and now?"]]`, b64)
	default:
		return fmt.Sprintf(`[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},{"role":"assistant","content":"a chart"},{"role":"user","content":"and now?"}]`, b64)
	}
}
