package routing_test

import (
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

func TestAssemble(t *testing.T) {
	png, pdf, wav, mp3, mp4, zip := testfiles.PNG(2, 2), testfiles.PDF(), testfiles.WAV(), testfiles.MP3(), testfiles.MP4(), testfiles.ZIP()
	b64 := base64.StdEncoding.EncodeToString
	route := func(name string, content []byte, caps routing.Capabilities, locale string) contracts.ContentRouteResult {
		return routing.Route(routing.Input{ID: "a1", Filename: name, Content: content, Capabilities: caps, Locale: locale})
	}
	imgRes := route("a.png", png, visionCap, "")
	pdfRes := route("r.pdf", pdf, fileCap, "")
	textRes := route("n.txt", []byte("<b>hi</b> & 你好\n"), noCaps, "")
	descRes := route("r.pdf", pdf, noCaps, "en")
	// Routed for a dialect and model that take ZIP and MP4 (langchain, say), then assembled for one that cannot carry them.
	anything := routing.Formats{File: []string{"zip"}, Video: []string{"mp4"}}
	zipRes := routing.Route(routing.Input{ID: "a1", Filename: "a.zip", Content: zip, Capabilities: fileCap, Locale: "en", Dialect: "langchain", Formats: anything})
	mp4Res := routing.Route(routing.Input{ID: "a1", Filename: "v.mp4", Content: mp4, Capabilities: videoCap, Dialect: "langchain", Formats: anything})

	tests := []struct {
		name     string
		res      contracts.ContentRouteResult
		dialect  string
		tool     string // JSON
		followUp string // JSON of the follow-up messages, "" for none
	}{
		{"openai text", textRes, "openai-chat", jsonOf(textRes.Content), ""},
		{"openai is the default", textRes, "", jsonOf(textRes.Content), ""},
		{"unknown dialect is openai", textRes, "x-unknown", jsonOf(textRes.Content), ""},
		{"openai description", descRes, "openai-chat", jsonOf(descRes.Content), ""},
		{
			"openai image", imgRes, "openai-chat",
			jsonOf(imgRes.Content + "\n内容见下一条消息。"),
			`[{"role":"user","content":[{"type":"text","text":` + jsonOf(imgRes.Content) + `},` +
				`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + b64(png) + `"}}]}]`,
		},
		{
			"openai pdf", pdfRes, "openai-chat",
			jsonOf(pdfRes.Content + "\n内容见下一条消息。"),
			`[{"role":"user","content":[{"type":"text","text":` + jsonOf(pdfRes.Content) + `},` +
				`{"type":"file","file":{"filename":"r.pdf","file_data":"data:application/pdf;base64,` + b64(pdf) + `"}}]}]`,
		},
		{
			"openai wav", route("s.wav", wav, audioCap, "en"), "openai-chat",
			jsonOf(route("s.wav", wav, audioCap, "en").Content + "\nThe content follows in the next message."),
			`[{"role":"user","content":[{"type":"text","text":` + jsonOf(route("s.wav", wav, audioCap, "en").Content) + `},` +
				`{"type":"input_audio","input_audio":{"data":"` + b64(wav) + `","format":"wav"}}]}]`,
		},
		{
			"openai mp3", route("s.mp3", mp3, audioCap, ""), "openai-chat",
			jsonOf(route("s.mp3", mp3, audioCap, "").Content + "\n内容见下一条消息。"),
			`[{"role":"user","content":[{"type":"text","text":` + jsonOf(route("s.mp3", mp3, audioCap, "").Content) + `},` +
				`{"type":"input_audio","input_audio":{"data":"` + b64(mp3) + `","format":"mp3"}}]}]`,
		},
		{
			"openai cannot take zip", zipRes, "openai-chat",
			jsonOf(zipRes.Content + "\nThis model API cannot receive this kind of file directly; its content was not sent."), "",
		},
		{
			"openai cannot take video", mp4Res, "openai-chat",
			jsonOf(mp4Res.Content + "\n此模型接口无法直接接收这种文件，内容未发送。"), "",
		},
		{"anthropic text", textRes, "anthropic", `[{"type":"text","text":` + jsonOf(textRes.Content) + `}]`, ""},
		{"anthropic empty text", route("e.txt", []byte{}, noCaps, ""), "anthropic", `[]`, ""},
		{"anthropic description", descRes, "Anthropic", `[{"type":"text","text":` + jsonOf(descRes.Content) + `}]`, ""},
		{
			"anthropic image", imgRes, "anthropic",
			`[{"type":"text","text":` + jsonOf(imgRes.Content) + `},` +
				`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + b64(png) + `"}}]`, "",
		},
		{
			"anthropic pdf", pdfRes, "anthropic",
			`[{"type":"text","text":` + jsonOf(pdfRes.Content) + `},` +
				`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + b64(pdf) + `"}}]`, "",
		},
		{
			"anthropic cannot take audio", route("s.wav", wav, audioCap, "en"), "anthropic",
			`[{"type":"text","text":` + jsonOf(route("s.wav", wav, audioCap, "en").Content+"\nThis model API cannot receive this kind of file directly; its content was not sent.") + `}]`, "",
		},
		{
			"image_url routing without its part", contracts.ContentRouteResult{ContentType: "image", Routing: "image_url", Content: "Artifact content (x):"}, "openai-chat",
			jsonOf("Artifact content (x):\nThis model API cannot receive this kind of file directly; its content was not sent."), "",
		},
		{
			"image_url with a non-data URL", contracts.ContentRouteResult{Routing: "image_url", Content: "工件内容 (x):",
				ImageURL: &contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: "https://example.com/a.png"}}}, "anthropic",
			`[{"type":"text","text":"工件内容 (x):\n此模型接口无法直接接收这种文件，内容未发送。"}]`, "",
		},
	}
	// The cases routed in English are assembled in English: the locale is the request's, passed
	// explicitly, never read from the content.
	english := map[string]bool{"openai description": true, "openai wav": true, "openai cannot take zip": true,
		"anthropic description": true, "anthropic cannot take audio": true, "image_url routing without its part": true}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			loc := contracts.LocaleZH
			if english[tt.name] {
				loc = contracts.LocaleEN
			}
			a := routing.Assemble(tt.res, tt.dialect, loc, routing.Formats{})
			wantDialect := contracts.DialectOpenAIChat
			if strings.EqualFold(tt.dialect, "anthropic") {
				wantDialect = contracts.DialectAnthropic
			}
			if a.Dialect != wantDialect {
				t.Errorf("dialect = %q, want %q", a.Dialect, wantDialect)
			}
			assertJSONEqual(t, "toolContent", a.ToolContent, tt.tool)
			if tt.followUp == "" {
				if len(a.FollowUp) != 0 {
					t.Errorf("followUp = %s, want none", mustJSON(t, a.FollowUp))
				}
				return
			}
			assertJSONEqual(t, "followUp", mustJSON(t, a.FollowUp), tt.followUp)
		})
	}
}

func TestAssembleImage(t *testing.T) {
	data := base64.StdEncoding.EncodeToString(testfiles.JPEG(2, 2))
	tests := []struct {
		name, mime, text, dialect string
		tool, followUp            string
		toolResultMedia           string
	}{
		{
			"openai", "image/jpeg", "history image h1", "openai-chat", `"history image h1"`,
			`[{"role":"user","content":[{"type":"text","text":"history image h1"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + data + `"}}]}]`, "",
		},
		{
			"openai without text", "image/jpg", "", "", `""`,
			`[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + data + `"}}]}]`, "",
		},
		{
			"anthropic", "image/jpeg", "history image h1", "anthropic",
			`[{"type":"text","text":"history image h1"},{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"` + data + `"}}]`, "", "",
		},
		{
			"gemini 3", "image/jpeg", "history image h1", "gemini", `{"response":{"output":"history image h1"},"parts":[{"inlineData":{"mimeType":"image/jpeg","data":"` + data + `"}}]}`, "",
			routing.ToolResultMediaInline,
		},
		{
			"gemini 2", "image/jpeg", "history image h1", "gemini", `{"response":{"output":"history image h1"}}`,
			`[{"role":"user","parts":[{"text":"history image h1"},{"inlineData":{"mimeType":"image/jpeg","data":"` + data + `"}}]}]`,
			routing.ToolResultMediaFollowUp,
		},
		{"gemini, unsupported type gives text only", "image/bmp", "h1", "gemini", `{"response":{"output":"h1"}}`, "", ""},
		{"openai, unsupported type gives text only", "image/bmp", "h1", "openai-chat", `"h1"`, "", ""},
		{"anthropic, unsupported type gives text only", "image/tiff", "h1", "anthropic", `[{"type":"text","text":"h1"}]`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := routing.AssembleImage(tt.mime, data, tt.text, tt.dialect, "", routing.Formats{ToolResultMedia: tt.toolResultMedia})
			assertJSONEqual(t, "toolContent", a.ToolContent, tt.tool)
			if tt.followUp == "" {
				if len(a.FollowUp) != 0 {
					t.Errorf("followUp = %s, want none", mustJSON(t, a.FollowUp))
				}
				return
			}
			assertJSONEqual(t, "followUp", mustJSON(t, a.FollowUp), tt.followUp)
		})
	}
}

func TestParseDialectAccepts(t *testing.T) {
	tests := map[string]bool{
		"": true, "openai-chat": true, "anthropic": true, " Anthropic ": true, "gemini": true, "openai-responses": true,
		"bedrock-converse": true, "LangChain": true, "openai": false, "bedrock": false, "claude": false,
	}
	for name, want := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := routing.ParseDialect(name); (err == nil) != want {
				t.Errorf("ParseDialect(%q): %v, want accepted %v", name, err, want)
			}
		})
	}
}

func TestAssembleKeepsHTMLUnescaped(t *testing.T) {
	a := routing.Assemble(contracts.ContentRouteResult{ContentType: "text", Routing: "text", Content: "<a> & b"}, "", "", routing.Formats{})
	if string(a.ToolContent) != `"<a> & b"` {
		t.Errorf("toolContent = %s", a.ToolContent)
	}
}

func jsonOf(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertJSONEqual compares JSON by value, so key order and escaping do not matter.
func assertJSONEqual(t *testing.T, what string, got json.RawMessage, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s is not JSON: %v: %s", what, err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("bad expectation for %s: %v: %s", what, err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s =\n%.400s\nwant\n%.400s", what, got, want)
	}
}

// TestAssembleText: a text-only tool result is what Assemble makes of a text result, in every dialect.
func TestAssembleText(t *testing.T) {
	for _, d := range []string{contracts.DialectOpenAIChat, contracts.DialectAnthropic, contracts.DialectGemini, ""} {
		got := routing.AssembleText(`{"error":"x"}`, d)
		want := routing.Assemble(contracts.ContentRouteResult{ContentType: "text", Routing: "text", Content: `{"error":"x"}`}, d, "", routing.Formats{})
		if !reflect.DeepEqual(got, want) || len(got.FollowUp) != 0 {
			t.Errorf("%q: %+v, want %+v", d, got, want)
		}
	}
	if got := string(routing.AssembleText("无效的图片标识符", contracts.DialectAnthropic).ToolContent); got != `[{"type":"text","text":"无效的图片标识符"}]` {
		t.Errorf("anthropic = %s, want the history-image design's block", got)
	}
	if got := string(routing.AssembleText("a <b>", contracts.DialectOpenAIChat).ToolContent); got != `"a <b>"` {
		t.Errorf("openai-chat = %s", got)
	}
}

// TestAssembleGemini: Gemini 3 models take media inside the functionResponse; older ones only in a
// user turn after it (docs/providers.md), so the registry's toolResultMedia decides. The default (empty,
// or a value that is not "inline") is the follow-up, which every model takes.
func TestAssembleGemini(t *testing.T) {
	png, pdf, wav := testfiles.PNG(2, 2), testfiles.PDF(), testfiles.WAV()
	b64 := base64.StdEncoding.EncodeToString
	route := func(name string, content []byte, caps routing.Capabilities) contracts.ContentRouteResult {
		return routing.Route(routing.Input{ID: "a1", Filename: name, Content: content, Capabilities: caps, Locale: "en", Dialect: "gemini",
			Formats: routing.Formats{Image: []string{"png"}, File: []string{"pdf"}, Audio: []string{"wav"}}})
	}
	imgRes, pdfRes, wavRes := route("a.png", png, visionCap), route("r.pdf", pdf, fileCap), route("s.wav", wav, audioCap)
	textRes := route("n.txt", []byte("hi"), noCaps)
	inline := func(res contracts.ContentRouteResult, mime string, data []byte) string {
		return `{"response":{"output":` + jsonOf(res.Content) + `},"parts":[{"inlineData":{"mimeType":"` + mime + `","data":"` + b64(data) + `"}}]}`
	}
	follows := func(res contracts.ContentRouteResult) string {
		return `{"response":{"output":` + jsonOf(res.Content+"\nThe content follows in the next message.") + `}}`
	}
	followUp := func(res contracts.ContentRouteResult, mime string, data []byte) string {
		return `[{"role":"user","parts":[{"text":` + jsonOf(res.Content) + `},{"inlineData":{"mimeType":"` + mime + `","data":"` + b64(data) + `"}}]}]`
	}
	tests := []struct {
		name, where    string
		res            contracts.ContentRouteResult
		tool, followUp string
	}{
		{"inline image", routing.ToolResultMediaInline, imgRes, inline(imgRes, "image/png", png), ""},
		{"inline pdf", routing.ToolResultMediaInline, pdfRes, inline(pdfRes, "application/pdf", pdf), ""},
		{"inline wav", routing.ToolResultMediaInline, wavRes, inline(wavRes, "audio/wav", wav), ""},
		{"follow-up image", routing.ToolResultMediaFollowUp, imgRes, follows(imgRes), followUp(imgRes, "image/png", png)},
		{"follow-up pdf", routing.ToolResultMediaFollowUp, pdfRes, follows(pdfRes), followUp(pdfRes, "application/pdf", pdf)},
		{"follow-up wav", routing.ToolResultMediaFollowUp, wavRes, follows(wavRes), followUp(wavRes, "audio/wav", wav)},
		{"empty is follow-up", "", imgRes, follows(imgRes), followUp(imgRes, "image/png", png)},
		{"unknown is follow-up", "Inline", imgRes, follows(imgRes), followUp(imgRes, "image/png", png)},
		{"inline text", routing.ToolResultMediaInline, textRes, `{"response":{"output":"hi"}}`, ""},
		{"follow-up text", routing.ToolResultMediaFollowUp, textRes, `{"response":{"output":"hi"}}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.res.Routing == contracts.RouteText && tt.res.ContentType != contracts.ContentText {
				t.Fatalf("not routed as media: %q", tt.res.Content)
			}
			a := routing.Assemble(tt.res, "gemini", "en", routing.Formats{ToolResultMedia: tt.where})
			if a.Dialect != contracts.DialectGemini {
				t.Errorf("dialect = %q", a.Dialect)
			}
			assertJSONEqual(t, "toolContent", a.ToolContent, tt.tool)
			if tt.followUp == "" {
				if len(a.FollowUp) != 0 {
					t.Errorf("followUp = %s, want none", mustJSON(t, a.FollowUp))
				}
				return
			}
			assertJSONEqual(t, "followUp", mustJSON(t, a.FollowUp), tt.followUp)
		})
	}
}
