package service_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

func getArtifact(t *testing.T, w *servicetest.Worker, req contracts.GetArtifactRequest) (contracts.Reply, contracts.GetArtifactResult) {
	t.Helper()
	if req.RequestID == "" {
		req.RequestID = "req-" + randomHex(8)
	}
	rep := w.Call(contracts.SubjectGetArtifact, req)
	if rep.RequestID != req.RequestID {
		t.Fatalf("reply request_id = %q, want %q", rep.RequestID, req.RequestID)
	}
	var res contracts.GetArtifactResult
	if rep.OK {
		if err := json.Unmarshal(rep.Result, &res); err != nil {
			t.Fatalf("result: %v", err)
		}
	}
	return rep, res
}

// TestGetArtifactRoutes covers every routing row end to end: real files of each type in MinIO, a
// request over NATS, the routed reply.
func TestGetArtifactRoutes(t *testing.T) {
	w := startWorker(t)
	png := testfiles.PNG(64, 48)
	text := []byte("第一行 hello\n\tindented \"quoted\" <b>&amp;</b>\r\nlast line without newline")
	files := []struct {
		id, mime, name string
		data           []byte
	}{
		{"txt", "text/plain; charset=utf-8", "notes.txt", text},
		{"png", "image/png", "chart.png", png},
		{"jpeg", "image/jpeg", "photo.jpg", testfiles.JPEG(32, 32)},
		{"pdf", "application/pdf", "report.pdf", testfiles.PDF()},
		{"mp3", "audio/mpeg", "voice.mp3", testfiles.MP3()},
		{"mp4", "video/mp4", "clip.mp4", testfiles.MP4()},
		{"zip", "application/zip", "bundle.zip", testfiles.ZIP()},
		{"png-as-text", "text/plain", "looks-like.txt", png},
		{"elf-as-png", "image/png", "not-an-image.png", testfiles.ELF()},
		{"no-meta", "", "", png},
	}
	for _, f := range files {
		w.PutArtifact(f.id, f.mime, f.name, f.data)
	}
	dataOf := map[string][]byte{}
	for _, f := range files {
		dataOf[f.id] = f.data
	}

	tests := []struct {
		name        string
		ref         string
		service     string
		caps        []string
		dialect     string
		contentType string
		routing     string
		kind        string
		// describe: the content must be a description naming these, and carry no base64.
		describe []string
	}{
		{name: "text verbatim for a text-only model", ref: "artifact:txt", service: "text-model", contentType: "text", routing: "text", kind: "text"},
		{name: "image with vision", ref: "artifact:png", service: "vision-model", contentType: "image", routing: "image_url", kind: "image"},
		{name: "bare id works like artifact:id", ref: "jpeg", service: "vision-model", contentType: "image", routing: "image_url", kind: "image"},
		{name: "image without vision is described", ref: "artifact:png", service: "text-model", contentType: "image", routing: "text", kind: "image", describe: []string{"[无法读取]", "chart.png", "(artifact:png)", "PNG 图片"}},
		{name: "unknown service means text only", ref: "artifact:png", service: "no-such-model", contentType: "image", routing: "text", kind: "image", describe: []string{"[无法读取]", "PNG"}},
		{name: "pdf with file", ref: "artifact:pdf", service: "vision-model", contentType: "binary", routing: "file", kind: "document"},
		{name: "pdf without file", ref: "artifact:pdf", service: "text-model", contentType: "binary", routing: "text", kind: "document", describe: []string{"[无法读取]", "report.pdf", "PDF 文档"}},
		{name: "audio with audio", ref: "artifact:mp3", service: "omni-model", contentType: "binary", routing: "file", kind: "audio"},
		{name: "audio without audio", ref: "artifact:mp3", service: "vision-model", contentType: "binary", routing: "text", kind: "audio", describe: []string{"[无法读取]", "voice.mp3", "MP3 音频"}},
		{name: "video with video, gemini", ref: "artifact:mp4", service: "omni-model", dialect: "gemini", contentType: "binary", routing: "file", kind: "video"},
		{name: "video with video, openai-chat cannot carry it", ref: "artifact:mp4", service: "omni-model", contentType: "binary", routing: "text", kind: "video", describe: []string{"[无法读取]", "clip.mp4", "不接受 MP4"}},
		{name: "video without video", ref: "artifact:mp4", service: "vision-model", contentType: "binary", routing: "text", kind: "video", describe: []string{"[无法读取]", "clip.mp4", "MP4"}},
		{name: "zip with file is not accepted", ref: "artifact:zip", service: "vision-model", contentType: "binary", routing: "text", kind: "other", describe: []string{"[无法读取]", "bundle.zip", "不接受 ZIP 格式（可接受：PDF）"}},
		{name: "other without file", ref: "artifact:zip", service: "text-model", contentType: "binary", routing: "text", kind: "other", describe: []string{"[无法读取]", "bundle.zip"}},
		{name: "explicit capabilities override the registry", ref: "artifact:png", service: "text-model", caps: []string{"text", "vision"}, contentType: "image", routing: "image_url", kind: "image"},
		{name: "explicit empty capabilities mean text only", ref: "artifact:png", service: "vision-model", caps: []string{}, contentType: "image", routing: "text", kind: "image", describe: []string{"[无法读取]"}},
		{name: "png bytes claimed as text are an image", ref: "artifact:png-as-text", service: "vision-model", contentType: "image", routing: "image_url", kind: "image"},
		{name: "elf bytes claimed as png are not an image", ref: "artifact:elf-as-png", service: "text-model", contentType: "binary", routing: "text", kind: "other", describe: []string{"[无法读取]", "not-an-image.png"}},
		{name: "missing metadata falls back to content", ref: "artifact:no-meta", service: "vision-model", contentType: "image", routing: "image_url", kind: "image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: tt.ref, ServiceID: tt.service, Capabilities: tt.caps, Dialect: tt.dialect})
			if !rep.OK {
				t.Fatalf("error reply: %+v", rep.Error)
			}
			id := strings.TrimPrefix(tt.ref, "artifact:")
			want := dataOf[id]
			// The routing design's meanings: binaryType is the category of a binary (absent for text),
			// type the MIME type.
			wantBinaryType := tt.kind
			if tt.kind == "text" {
				wantBinaryType = ""
			}
			if res.ContentType != tt.contentType || res.Routing != tt.routing || res.Metadata.BinaryType != wantBinaryType {
				t.Fatalf("contentType/routing/binaryType = %s/%s/%s, want %s/%s/%s", res.ContentType, res.Routing, res.Metadata.BinaryType, tt.contentType, tt.routing, wantBinaryType)
			}
			// The reply says what decided: the request's list, the registry's entry, or nothing.
			wantModel := contracts.ModelDecision{DecidedBy: contracts.DecidedByRegistry, Entry: tt.service, Source: llmservices.SourceFile}
			switch {
			case tt.caps != nil:
				wantModel = contracts.ModelDecision{DecidedBy: contracts.DecidedByRequest}
			case tt.service == "no-such-model":
				wantModel = contracts.ModelDecision{DecidedBy: contracts.DecidedByNone}
			}
			if res.Model == nil || *res.Model != wantModel {
				t.Errorf("model = %+v, want %+v", res.Model, wantModel)
			}
			if res.Metadata.Type != res.Metadata.MimeType || !strings.Contains(res.Metadata.Type, "/") {
				t.Errorf("metadata type = %q, want the MIME type %q", res.Metadata.Type, res.Metadata.MimeType)
			}
			if res.Metadata.ID != id || res.Metadata.Size != int64(len(want)) {
				t.Errorf("metadata id/size = %q/%d, want %q/%d", res.Metadata.ID, res.Metadata.Size, id, len(want))
			}
			b64 := base64.StdEncoding.EncodeToString(want)
			switch tt.routing {
			case "text":
				if tt.kind == "text" {
					if res.Content != string(want) {
						t.Fatalf("text not verbatim:\n got %q\nwant %q", res.Content, want)
					}
					break
				}
				for _, s := range tt.describe {
					if !strings.Contains(res.Content, s) {
						t.Errorf("description %q lacks %q", res.Content, s)
					}
				}
				if res.ImageURL != nil || res.File != nil {
					t.Errorf("described artifact also carries media")
				}
			case "image_url":
				if res.ImageURL == nil || res.ImageURL.Type != "image_url" {
					t.Fatalf("imageUrl = %+v", res.ImageURL)
				}
				prefix := "data:image/"
				if !strings.HasPrefix(res.ImageURL.ImageURL.URL, prefix) || !strings.HasSuffix(res.ImageURL.ImageURL.URL, ";base64,"+b64) {
					t.Errorf("image url is not a data URL of the artifact's bytes: %.80s", res.ImageURL.ImageURL.URL)
				}
			case "file":
				if res.File == nil || res.File.Type != "file" || res.File.File.Data != b64 {
					t.Fatalf("file part does not carry the artifact's bytes")
				}
				if res.File.File.MimeType == "" || res.File.File.Filename == "" {
					t.Errorf("file part lacks filename or mimeType: %+v", res.File.File)
				}
			}
			if tt.kind != "text" && strings.Contains(res.Content, b64[:min(len(b64), 64)]) {
				t.Errorf("base64 of the artifact leaked into content")
			}
			if tt.kind != "text" && strings.Contains(string(res.Assembly.ToolContent), b64[:min(len(b64), 64)]) && tt.routing != "image_url" && tt.routing != "file" {
				t.Errorf("base64 leaked into the tool content of a described artifact")
			}
		})
	}
}

func TestGetArtifactAssemblyDialects(t *testing.T) {
	w := startWorker(t)
	png := testfiles.PNG(20, 20)
	w.PutArtifact("img", "image/png", "img.png", png)
	b64 := base64.StdEncoding.EncodeToString(png)

	t.Run("openai-chat: text-only tool message, image in a following user message", func(t *testing.T) {
		_, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "img", ServiceID: "vision-model"})
		var tool string
		if err := json.Unmarshal(res.Assembly.ToolContent, &tool); err != nil {
			t.Fatalf("openai-chat tool content must be a string: %s", res.Assembly.ToolContent)
		}
		if strings.Contains(tool, b64[:40]) {
			t.Fatal("base64 in the tool message")
		}
		if len(res.Assembly.FollowUp) != 1 || res.Assembly.FollowUp[0].Role != "user" {
			t.Fatalf("follow-up = %+v", res.Assembly.FollowUp)
		}
		if !bytes.Contains(res.Assembly.FollowUp[0].Content, []byte(`"type":"image_url"`)) || !bytes.Contains(res.Assembly.FollowUp[0].Content, []byte(b64)) {
			t.Fatalf("follow-up lacks the image part: %.200s", res.Assembly.FollowUp[0].Content)
		}
	})
	t.Run("anthropic: image block inside the tool_result", func(t *testing.T) {
		_, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "img", ServiceID: "vision-model", Dialect: "anthropic"})
		var blocks []map[string]any
		if err := json.Unmarshal(res.Assembly.ToolContent, &blocks); err != nil {
			t.Fatalf("anthropic tool content must be a list of blocks: %s", res.Assembly.ToolContent)
		}
		var found bool
		for _, b := range blocks {
			if b["type"] == "image" {
				src, _ := b["source"].(map[string]any)
				found = src["type"] == "base64" && src["media_type"] == "image/png" && src["data"] == b64
			}
			if b["type"] == "text" && strings.Contains(b["text"].(string), b64[:40]) {
				t.Fatal("base64 in a text block")
			}
		}
		if !found || len(res.Assembly.FollowUp) != 0 {
			t.Fatalf("no image block with the artifact's bytes: %.300s", res.Assembly.ToolContent)
		}
	})
	t.Run("every dialect carries the bytes once in its own part, with usage", func(t *testing.T) {
		part := map[string]string{
			contracts.DialectOpenAIResponses: `"type":"input_image","image_url":"data:image/png;base64,` + b64 + `"`,
			contracts.DialectGemini:          `"inlineData":{"mimeType":"image/png","data":"` + b64 + `"}`,
			contracts.DialectBedrockConverse: `"image":{"format":"png","source":{"bytes":"` + b64 + `"}}`,
			contracts.DialectLangChain:       `"type":"image","base64":"` + b64 + `","mime_type":"image/png"`,
		}
		for d, want := range part {
			rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "img", ServiceID: "inline-media-model", Dialect: d, Media: contracts.MediaAssembly})
			if !rep.OK || res.Assembly.Dialect != d || !strings.Contains(string(res.Assembly.ToolContent), want) || len(res.Assembly.FollowUp) != 0 {
				t.Errorf("%s: %+v %.300s", d, rep.Error, res.Assembly.ToolContent)
			}
			if bytes.Count(rep.Result, []byte(b64)) != 1 || res.Usage.TokensSaved == 0 || res.ImageProcessing == nil {
				t.Errorf("%s: %d copies of the image, usage %+v, imageProcessing %+v", d, bytes.Count(rep.Result, []byte(b64)), res.Usage, res.ImageProcessing)
			}
		}
	})
	t.Run("gemini puts the media in a follow-up user turn unless the model takes it inline", func(t *testing.T) {
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "img", ServiceID: "vision-model", Dialect: contracts.DialectGemini, Media: contracts.MediaAssembly})
		a := res.Assembly
		if !rep.OK || len(a.FollowUp) != 1 || a.FollowUp[0].Role != "user" || len(a.FollowUp[0].Content) != 0 ||
			!strings.Contains(string(a.FollowUp[0].Parts), `{"inlineData":{"mimeType":"image/png","data":"`+b64+`"}}`) ||
			strings.Contains(string(a.ToolContent), "inlineData") || !strings.Contains(string(a.ToolContent), "内容见下一条消息") {
			t.Errorf("%+v: toolContent %.300s, followUp %.300v", rep.Error, a.ToolContent, a.FollowUp)
		}
		if bytes.Count(rep.Result, []byte(b64)) != 1 {
			t.Errorf("%d copies of the image", bytes.Count(rep.Result, []byte(b64)))
		}
	})
	// media asks for one copy of the image: the reply's raw bytes hold its base64 exactly once.
	for _, tt := range []struct {
		media              string
		copies             int
		imageURL, assembly bool
	}{
		{"", 2, true, true},
		{contracts.MediaBoth, 2, true, true},
		{contracts.MediaResult, 1, true, false},
		{contracts.MediaAssembly, 1, false, true},
	} {
		t.Run("media "+tt.media, func(t *testing.T) {
			for _, dialect := range []string{contracts.DialectOpenAIChat, contracts.DialectAnthropic} {
				rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "img", ServiceID: "vision-model", Dialect: dialect, Media: tt.media})
				if !rep.OK {
					t.Fatalf("error reply: %+v", rep.Error)
				}
				if n := bytes.Count(rep.Result, []byte(b64)); n != tt.copies {
					t.Errorf("%s: the image is in the result %d times, want %d", dialect, n, tt.copies)
				}
				if (res.ImageURL != nil) != tt.imageURL || (res.Assembly.Dialect != "") != tt.assembly {
					t.Errorf("%s: imageUrl %v, assembly %q; want imageUrl %v, assembly %v", dialect, res.ImageURL != nil, res.Assembly.Dialect, tt.imageURL, tt.assembly)
				}
				if res.Routing != contracts.RouteImageURL || res.Metadata.Size != int64(len(png)) || !strings.Contains(res.Content, "img.png") {
					t.Errorf("%s: the rest of the result must stay: %+v", dialect, res.ContentRouteResult)
				}
			}
		})
	}
	t.Run("the Go client asks for the assembly only", func(t *testing.T) {
		res, err := w.Client.GetArtifact(t.Context(), contracts.GetArtifactRequest{RequestID: "cl-" + randomHex(6), Ref: "img", ServiceID: "vision-model"})
		if err != nil {
			t.Fatal(err)
		}
		if res.ImageURL != nil || len(res.Assembly.FollowUp) != 1 || !bytes.Contains(res.Assembly.FollowUp[0].Content, []byte(b64)) {
			t.Fatalf("imageUrl %v, assembly %+v", res.ImageURL != nil, res.Assembly)
		}
		_, err = w.Client.GetArtifact(t.Context(), contracts.GetArtifactRequest{RequestID: "cl-" + randomHex(6), Ref: "nope"})
		var werr *contracts.Error
		if !errors.As(err, &werr) || werr.Code != contracts.CodeArtifactNotFound {
			t.Fatalf("error = %v, want artifact_not_found", err)
		}
	})
	t.Run("english description", func(t *testing.T) {
		_, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "img", ServiceID: "text-model", Locale: "en"})
		if !strings.Contains(res.Content, "img.png") || strings.Contains(res.Content, "无法读取") || !strings.Contains(res.Content, "PNG image") {
			t.Fatalf("english description = %q", res.Content)
		}
	})
}

func TestGetArtifactErrors(t *testing.T) {
	w := startWorker(t, func(c *service.Config) { c.MaxArtifactSize = 256 << 10 })
	w.PutArtifact("big", "application/pdf", "big.pdf", bytes.Repeat([]byte("%PDF-1.4 "), 64<<10))

	t.Run("not found names the ref", func(t *testing.T) {
		rep, _ := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "artifact:nope", ServiceID: "vision-model"})
		if rep.OK || rep.Error.Code != contracts.CodeArtifactNotFound || rep.Error.Ref != "artifact:nope" {
			t.Fatalf("reply = %+v %+v", rep, rep.Error)
		}
	})
	t.Run("over the size limit is described, not read", func(t *testing.T) {
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "big", ServiceID: "vision-model"})
		if !rep.OK {
			t.Fatalf("error reply: %+v", rep.Error)
		}
		if res.Routing != "text" || !res.Metadata.TooLarge || res.File != nil || !strings.Contains(res.Content, "big.pdf") {
			t.Fatalf("oversize result = %+v", res.ContentRouteResult)
		}
	})
	invalid := []struct {
		name, body, field string
	}{
		{"missing ref", `{"request_id":"r1","service_id":"x"}`, "ref"},
		{"ref of the wrong type", `{"request_id":"r2","ref":42}`, "ref"},
		{"unknown dialect", `{"request_id":"r3","ref":"a","dialect":"cobol"}`, "dialect"},
		{"unknown locale", `{"request_id":"r4","ref":"a","locale":"xx"}`, "locale"},
		{"unknown media", `{"request_id":"r6","ref":"a","media":"none"}`, "media"},
		{"unknown capability", `{"request_id":"r5","ref":"a","capabilities":["smell"]}`, "capabilities"},
		{"missing request_id", `{"ref":"a"}`, "request_id"},
	}
	for _, tt := range invalid {
		t.Run(tt.name, func(t *testing.T) {
			rep := w.CallRaw(contracts.SubjectGetArtifact, []byte(tt.body))
			if rep.OK || rep.Error == nil || rep.Error.Code != contracts.CodeInvalidRequest || rep.Error.Field != tt.field {
				t.Fatalf("reply = %+v error %+v, want invalid_request on %s", rep, rep.Error, tt.field)
			}
		})
	}
	t.Run("malformed json", func(t *testing.T) {
		rep := w.CallRaw(contracts.SubjectGetArtifact, []byte(`{"request_id": "r9", "ref": `))
		if rep.OK || rep.Error.Code != contracts.CodeInvalidRequest {
			t.Fatalf("reply = %+v", rep)
		}
	})
	t.Run("traversal in an artifact id", func(t *testing.T) {
		rep, _ := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "artifact:../workspaces/x/secret"})
		if rep.OK || rep.Error.Code != contracts.CodeInvalidArtifactID {
			t.Fatalf("reply = %+v", rep)
		}
	})
	t.Run("the worker keeps serving after bad input", func(t *testing.T) {
		w.PutArtifact("after", "text/plain", "after.txt", []byte("still here"))
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "after"})
		if !rep.OK || res.Content != "still here" {
			t.Fatalf("reply = %+v", rep)
		}
	})
}

// TestGetArtifactClaimCheck sends a 4 MB image through a 1 MiB max payload: the reply travels by
// claim check and the client resolves it to the same bytes.
func TestGetArtifactClaimCheck(t *testing.T) {
	t.Parallel()
	w := startWorker(t)
	img := testfiles.NoisyPNG(1200, 1200)
	if len(img) < 4<<20 {
		t.Fatalf("fixture is %d bytes, want >= 4 MB", len(img))
	}
	w.PutArtifact("huge", "image/png", "huge.png", img)
	rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "huge", ServiceID: "vision-model"})
	if !rep.OK {
		t.Fatalf("error reply: %+v", rep.Error)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(img)
	if res.ImageURL == nil || res.ImageURL.ImageURL.URL != want {
		t.Fatal("image did not round-trip through the claim check")
	}
}

// TestGetArtifactDesignDocumentStrings checks over the wire the strings the routing design defines:
// its three description examples (verbatim apart from the size line the worker adds), the label that
// goes with media, and the processing-failed description for content that exists but is damaged.
func TestGetArtifactDesignDocumentStrings(t *testing.T) {
	w := startWorker(t)
	png, pdf, mp3 := testfiles.PNG(16, 16), testfiles.PDF(), testfiles.MP3()
	w.PutArtifact("abc123", "image/png", "screenshot.png", png)
	w.PutArtifact("def456", "application/pdf", "report.pdf", pdf)
	w.PutArtifact("ghi789", "audio/mpeg", "recording.mp3", mp3)
	w.PutArtifact("cut-png", "image/png", "cut.png", png[:len(png)-16])
	w.PutArtifact("cut-pdf", "application/pdf", "cut.pdf", pdf[:len(pdf)-12])

	for _, tt := range []struct {
		ref, example string
		size         int
	}{
		{"artifact:abc123", "[无法读取] screenshot.png (artifact:abc123)\n类型: PNG 图片\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。", len(png)},
		{"artifact:def456", "[无法读取] report.pdf (artifact:def456)\n类型: PDF 文档\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。", len(pdf)},
		{"artifact:ghi789", "[无法读取] recording.mp3 (artifact:ghi789)\n类型: MP3 音频\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。", len(mp3)},
	} {
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: tt.ref, ServiceID: "text-model"})
		if !rep.OK || res.Routing != "text" {
			t.Fatalf("%s: %+v", tt.ref, rep.Error)
		}
		lines := strings.Split(res.Content, "\n")
		if len(lines) != 4 || lines[2] != fmt.Sprintf("大小: %d B", tt.size) {
			t.Fatalf("%s: content =\n%s\nwant four lines with the size third", tt.ref, res.Content)
		}
		if got := strings.Join([]string{lines[0], lines[1], lines[3]}, "\n"); got != tt.example {
			t.Errorf("%s: without the size line =\n%s\nwant the routing design's example\n%s", tt.ref, got, tt.example)
		}
		var tool string
		if err := json.Unmarshal(res.Assembly.ToolContent, &tool); err != nil || tool != res.Content {
			t.Errorf("%s: toolContent %s, want the description", tt.ref, res.Assembly.ToolContent)
		}
	}

	t.Run("media goes with 工件内容 ({filename}):", func(t *testing.T) {
		_, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "abc123", ServiceID: "vision-model", Dialect: "anthropic"})
		if res.Routing != "image_url" || res.Content != "工件内容 (screenshot.png):" ||
			!strings.HasPrefix(string(res.Assembly.ToolContent), `[{"type":"text","text":"工件内容 (screenshot.png):"},{"type":"image"`) {
			t.Fatalf("routing %s, content %q, toolContent %.120s", res.Routing, res.Content, res.Assembly.ToolContent)
		}
	})
	for _, tt := range []struct{ ref, locale, want string }{
		{"cut-png", "", "[文件处理失败: cut.png]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{"cut-pdf", "en", "[File processing failed: cut.pdf]\nError: unable to read the file content\nPlease check whether the file is damaged"},
	} {
		t.Run("damaged "+tt.ref+" is the routing design's processing-failed description, not an error", func(t *testing.T) {
			rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: tt.ref, ServiceID: "omni-model", Locale: tt.locale})
			if !rep.OK || res.Routing != "text" || res.Content != tt.want || res.ImageURL != nil || res.File != nil {
				t.Fatalf("reply ok=%v error %+v, routing %s, content %q", rep.OK, rep.Error, res.Routing, res.Content)
			}
		})
	}
}

// TestGetArtifactBuiltinRegistry: with no LLM_SERVICES_FILE, the model names runtimes send (issue
// 17's ten) get a PNG as an image, and the reply names the built-in entry that decided; a name
// nothing matches is described and says so.
func TestGetArtifactBuiltinRegistry(t *testing.T) {
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = "" })
	w.PutArtifact("shot", "image/png", "shot.png", testfiles.PNG(64, 48))
	for _, tt := range []struct{ name, entry, source string }{
		{"gpt-4o-2024-08-06", "gpt-4o-2024-08-06", llmservices.SourceCatalogue},
		{"openai/gpt-4o", "gpt-4o", llmservices.SourceCurated},
		{"anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet-20240620", llmservices.SourceCatalogue},
		{"claude-opus-4-5", "claude-opus-4-5", llmservices.SourceCatalogue},
		{"gpt-5.1", "gpt-5.1", llmservices.SourceCatalogue},
		{"gemini-3-pro-preview", "gemini-3-pro-preview", llmservices.SourceCatalogue},
		{"llama-4-maverick", "llama-4-maverick", llmservices.SourceCatalogue},
		{"pixtral-large-latest", "pixtral-large-latest", llmservices.SourceCatalogue},
		{"qwen3-vl-plus", "qwen3-vl-plus", llmservices.SourceCatalogue},
		{"grok-4", "grok-4", llmservices.SourceCatalogue},
	} {
		rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "shot", ServiceID: tt.name})
		if !rep.OK || res.Routing != contracts.RouteImageURL {
			t.Errorf("%s: routing %q (%+v), want image_url", tt.name, res.Routing, rep.Error)
			continue
		}
		if m := res.Model; m == nil || m.DecidedBy != contracts.DecidedByRegistry || m.Entry != tt.entry || m.Source != tt.source {
			t.Errorf("%s: model %+v, want entry %q from %s", tt.name, res.Model, tt.entry, tt.source)
		}
	}
	rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "shot", ServiceID: "acme-model-9"})
	if !rep.OK || res.Routing != contracts.RouteText || res.Model == nil || res.Model.DecidedBy != contracts.DecidedByNone {
		t.Errorf("an unknown name: routing %q, model %+v; want a description decided by none", res.Routing, res.Model)
	}
}
