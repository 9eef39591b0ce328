package service_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
	"github.com/agentworks/artifact-worker/service"
)

// preprocessIn sends a context.preprocess request with extra fields (JSON members, without braces).
func preprocessIn(t *testing.T, w interface {
	CallRaw(string, []byte) contracts.Reply
}, messages json.RawMessage, extra string) (contracts.Reply, contracts.PreprocessResult) {
	t.Helper()
	if extra != "" {
		extra = "," + extra
	}
	body := fmt.Sprintf(`{"request_id":"pp-%s","messages":%s%s}`, randomHex(6), messages, extra)
	rep := w.CallRaw(contracts.SubjectPreprocess, []byte(body))
	var res contracts.PreprocessResult
	if rep.OK {
		if err := json.Unmarshal(rep.Result, &res); err != nil {
			t.Fatal(err)
		}
	}
	return rep, res
}

// mediaMembers are the members that carry media in some dialect's part.
var mediaMembers = map[string]bool{"image_url": true, "inlineData": true, "inline_data": true, "source": true,
	"bytes": true, "base64": true, "file_data": true, "input_audio": true, "data": true}

// mediaParts lists the JSON paths of members that carry media anywhere in v.
func mediaParts(v any, path string) []string {
	var out []string
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if mediaMembers[k] {
				out = append(out, path+"."+k)
			}
			out = append(out, mediaParts(e, path+"."+k)...)
		}
	case []any:
		for i, e := range x {
			out = append(out, mediaParts(e, fmt.Sprintf("%s[%d]", path, i))...)
		}
	}
	return out
}

// An agent session in each dialect: the tool's older screenshots leave the context for
// placeholders, come back through tool.get_history_image in that dialect as the image that was
// sent, and a switch to a text-only model (deepseek-chat, as the built-in registry has it) leaves no
// media part at all.
func TestPreprocessToolResultsEveryDialectE2E(t *testing.T) {
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = "" })
	variants := []struct {
		dialect, toolResultMedia string
		strict                   bool
	}{
		{contracts.DialectOpenAIChat, "", false}, {contracts.DialectOpenAIChat, "", true}, {contracts.DialectOpenAIResponses, "", false},
		{contracts.DialectAnthropic, "", false}, {contracts.DialectGemini, routing.ToolResultMediaInline, false},
		{contracts.DialectGemini, routing.ToolResultMediaFollowUp, false}, {contracts.DialectBedrockConverse, "", false},
		{contracts.DialectLangChain, "", false}, {contracts.DialectLangChainJS, "", false},
	}
	for n, v := range variants {
		t.Run(fmt.Sprintf("%s/%s/strict=%v", v.dialect, v.toolResultMedia, v.strict), func(t *testing.T) {
			const turns = 3
			shots := make([]string, turns)
			for i := range shots {
				shots[i] = base64.StdEncoding.EncodeToString(testfiles.PNG(60+i, 40+n))
			}
			ctx := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict,
				Task: "Fill in the form.", Turns: turns, Media: func(i int) agentsession.Media {
					return agentsession.Media{MIME: "image/png", Base64: shots[i]}
				}})
			rep, res := preprocessIn(t, w, ctx, `"dialect":"`+v.dialect+`"`)
			if !rep.OK {
				t.Fatalf("%+v", rep.Error)
			}
			out := string(res.Messages)
			if res.Stats.ImagesReplaced != turns-1 || strings.Contains(out, shots[0]) || strings.Contains(out, shots[1]) || !strings.Contains(out, shots[2]) {
				t.Fatalf("stats %+v; output %.600s", res.Stats, out)
			}
			placeholder := "[Picture:history_" + md5hex(shots[0]) + "]"
			if !strings.Contains(out, placeholder) {
				t.Fatalf("no placeholder %s in %.600s", placeholder, out)
			}

			// Fetched back in the dialect: the image that was sent.
			hrep, img := historyImage(t, w, placeholder, v.dialect, "en")
			if !hrep.OK {
				t.Fatalf("%+v", hrep.Error)
			}
			if len(img.Content) != 1 || img.Content[0].MimeType != "image/png" || img.Content[0].Base64 != shots[0] {
				t.Fatalf("fetched %+v", img.Content)
			}
			assembled := string(img.Assembly.ToolContent)
			for _, f := range img.Assembly.FollowUp {
				b, _ := json.Marshal(f)
				assembled += string(b)
			}
			if img.Assembly.Dialect != v.dialect || !strings.Contains(assembled, shots[0]) {
				t.Fatalf("assembly %s: %.300s", img.Assembly.Dialect, assembled)
			}

			// The next request goes to a text-only model: no media part is left, the latest
			// screenshot included, and each description names what fetches it back.
			rep, res = preprocessIn(t, w, ctx, `"dialect":"`+v.dialect+`","service_id":"deepseek-chat","locale":"en"`)
			if !rep.OK {
				t.Fatalf("%+v", rep.Error)
			}
			var doc, orig any
			if err := json.Unmarshal(res.Messages, &doc); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(ctx, &orig); err != nil || len(mediaParts(orig, "messages")) < turns {
				t.Fatalf("the check finds %v in the original context, want at least %d media members", mediaParts(orig, "messages"), turns)
			}
			if left := mediaParts(doc, "messages"); len(left) > 0 {
				t.Fatalf("media parts left for deepseek-chat: %v\n%.800s", left, res.Messages)
			}
			if res.Stats.MediaDescribed != turns {
				t.Errorf("stats %+v", res.Stats)
			}
			for _, s := range shots {
				if !strings.Contains(string(res.Messages), "[Cannot read] history_"+md5hex(s)+" ([Picture:history_"+md5hex(s)+"])") {
					t.Errorf("no description of %s: %.600s", md5hex(s), res.Messages)
				}
			}
			// The latest screenshot, described for deepseek-chat, comes back for a vision model.
			if hrep, img := historyImage(t, w, "[Picture:history_"+md5hex(shots[2])+"]", v.dialect, ""); !hrep.OK || len(img.Content) != 1 || img.Content[0].Base64 != shots[2] {
				t.Errorf("latest screenshot: %+v", hrep.Error)
			}
		})
	}
}

// A PDF a tool returned leaves an older turn as [File:history_{md5}] and comes back as a file.
func TestPreprocessDocumentRoundTripE2E(t *testing.T) {
	w := startWorker(t)
	pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
	shot := base64.StdEncoding.EncodeToString(testfiles.PNG(33, 21))
	ctx := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "Summarise the report.", Turns: 2,
		Media: func(i int) agentsession.Media {
			if i == 0 {
				return agentsession.Media{MIME: "application/pdf", Base64: pdf, Filename: "report.pdf"}
			}
			return agentsession.Media{MIME: "image/png", Base64: shot}
		}})
	rep, res := preprocessIn(t, w, ctx, `"dialect":"anthropic"`)
	if !rep.OK {
		t.Fatalf("%+v", rep.Error)
	}
	placeholder := "[File:history_" + md5hex(pdf) + "]"
	if res.Stats.FilesReplaced != 1 || strings.Contains(string(res.Messages), pdf) || !strings.Contains(string(res.Messages), placeholder) {
		t.Fatalf("stats %+v: %.400s", res.Stats, res.Messages)
	}
	hrep, got := historyImage(t, w, placeholder, contracts.DialectAnthropic, "")
	if !hrep.OK {
		t.Fatalf("%+v", hrep.Error)
	}
	if len(got.Content) != 1 || got.Content[0].Type != "file" || got.Content[0].MimeType != "application/pdf" || got.Content[0].Base64 != pdf {
		t.Fatalf("fetched %+v", got.Content)
	}
	if !strings.Contains(string(got.Assembly.ToolContent), `"type":"document"`) {
		t.Errorf("anthropic assembly: %.300s", got.Assembly.ToolContent)
	}
	// Without file capability the same fetch is a description.
	hrep, got = historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: placeholder, ServiceID: "deepseek-chat", Locale: "en"})
	if !hrep.OK || len(got.Content) != 0 || !strings.Contains(string(got.Assembly.ToolContent), "[Cannot read]") {
		t.Errorf("deepseek-chat: %+v %.300s", hrep.Error, got.Assembly.ToolContent)
	}
}

// A context not in the dialect's shape is invalid_request naming the place.
func TestPreprocessDialectShapeE2E(t *testing.T) {
	w := startWorker(t)
	rep, _ := preprocessIn(t, w, json.RawMessage(`[{"role":"user","content":"hi"}]`), `"dialect":"gemini"`)
	if rep.OK || rep.Error.Code != contracts.CodeInvalidRequest || !strings.Contains(rep.Error.Message, "messages[0]: a gemini content has a parts list") {
		t.Fatalf("%+v", rep.Error)
	}
	rep, _ = preprocessIn(t, w, json.RawMessage(`[]`), `"dialect":"cobol"`)
	if rep.OK || rep.Error.Field != "dialect" {
		t.Fatalf("%+v", rep.Error)
	}
	rep, _ = preprocessIn(t, w, json.RawMessage(`[]`), `"keep_turns":-1`)
	if rep.OK || rep.Error.Field != "keep_turns" {
		t.Fatalf("%+v", rep.Error)
	}
}

// The worker keeps a request within its provider's limits: Anthropic takes at most 100 images a
// request, so with every turn kept the oldest of 101 screenshots goes, and the reply says why
// (the built-in registry's provider limits).
func TestPreprocessRequestLimitsE2E(t *testing.T) {
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = "" })
	ctx := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "Watch.", Turns: 101,
		Media: func(i int) agentsession.Media {
			return agentsession.Media{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(testfiles.PNG(2+i, 2))}
		}})
	rep, res := preprocessIn(t, w, ctx, `"dialect":"anthropic","keep_turns":1000`)
	if !rep.OK {
		t.Fatalf("%+v", rep.Error)
	}
	if res.Stats.MediaOverLimits != 1 || len(res.OverLimits) != 1 || !strings.Contains(res.OverLimits[0].Reason, "101 images, over the provider's 100") ||
		res.OverLimits[0].Path != "messages[2].content[0].content[1]" {
		t.Fatalf("stats %+v, over limits %+v", res.Stats, res.OverLimits)
	}
	first := base64.StdEncoding.EncodeToString(testfiles.PNG(2, 2))
	if strings.Contains(string(res.Messages), first) || !strings.Contains(string(res.Messages), "[Picture:history_"+md5hex(first)+"]") {
		t.Errorf("the oldest screenshot is still there")
	}
}

// A 1920x1080 screenshot taken out of an agent session comes back through the fetch tool as the
// image that was sent, for a model whose limits take it as it is (Gemini's 3072 px); for Claude it
// comes back fitted to Claude's limits, with imageProcessing saying so.
func TestPreprocessScreenshotRoundTripE2E(t *testing.T) {
	t.Parallel()
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = "" })
	shots := []string{
		base64.StdEncoding.EncodeToString(testfiles.Screenshot(1920, 1080, 101)),
		base64.StdEncoding.EncodeToString(testfiles.Screenshot(1920, 1080, 102)),
	}
	ctx := agentsession.Build(agentsession.Session{Dialect: contracts.DialectGemini, Task: "Fill in the form.", Turns: 2,
		Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: shots[i]} }})
	rep, res := preprocessIn(t, w, ctx, `"dialect":"gemini"`)
	if !rep.OK || res.Stats.ImagesReplaced != 1 || strings.Contains(string(res.Messages), shots[0]) {
		t.Fatalf("%+v %+v", rep.Error, res.Stats)
	}
	placeholder := "[Picture:history_" + md5hex(shots[0]) + "]"
	hrep, img := historyImage(t, w, placeholder, contracts.DialectGemini, "")
	if !hrep.OK || len(img.Content) != 1 || img.Content[0].Base64 != shots[0] || img.Content[0].MimeType != "image/png" {
		t.Fatalf("gemini: %+v, %d blocks", hrep.Error, len(img.Content))
	}
	hrep, img = historyImage(t, w, placeholder, contracts.DialectAnthropic, "")
	if !hrep.OK || len(img.Content) != 1 || img.ImageProcessing == nil || img.ImageProcessing.Original.Width != 1920 ||
		img.ImageProcessing.Sent.Width > 1568 {
		t.Fatalf("anthropic: %+v %+v", hrep.Error, img.ImageProcessing)
	}
}

// A session for claude-sonnet-4 (Anthropic: 32 MB a request): two older screenshots too large to
// cache (over MAX_ARTIFACT_BYTES, here 12 MiB) and a small latest one stay, and the reply says the
// request is over the provider's limit.
func TestPreprocessOverLimitsE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("a 36 MB request")
	}
	t.Parallel() // the package's longest test (36 MB through the claim check under -race)
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = ""; c.MaxArtifactSize = 12 << 20 })
	big := func(seed byte) string {
		raw := append(testfiles.PNG(1600, 900), make([]byte, 13<<20)...) // a valid header, 13 MB
		raw[len(raw)-1] = seed
		return base64.StdEncoding.EncodeToString(raw)
	}
	media := []string{big(1), big(2), base64.StdEncoding.EncodeToString(testfiles.PNG(64, 48))}
	ctx := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "Watch.", Turns: len(media),
		Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: media[i]} }})
	rep, res := preprocessIn(t, w, ctx, `"dialect":"anthropic","service_id":"claude-sonnet-4"`)
	if !rep.OK {
		t.Fatalf("%+v", rep.Error)
	}
	total := len(media[0]) + len(media[1]) + len(media[2])
	want := fmt.Sprintf("the request's media are %d bytes of base64, over the provider's %d", total, 32<<20)
	if len(res.OverLimits) != 2 || res.OverLimits[0].Path != "messages[2].content[0].content[1]" ||
		!strings.HasPrefix(res.OverLimits[0].Reason, "left in (") || !strings.HasSuffix(res.OverLimits[1].Reason, want) {
		t.Fatalf("over limits %+v, want both large screenshots: %s", res.OverLimits, want)
	}
	t.Logf("%d bytes of media: %+v", total, res.OverLimits[0])
}

// tokens_saved_estimate follows the target's provider, and a text-only target (deepseek-chat)
// saves tokens too.
func TestPreprocessTokensFollowTheTargetE2E(t *testing.T) {
	t.Parallel()
	w := startWorker(t, func(c *service.Config) { c.LLMServicesFile = "" })
	// Two 1920x1080 screenshots, the first taken out: what it saves depends on who reads it.
	shots := []string{base64.StdEncoding.EncodeToString(testfiles.Screenshot(1920, 1080, 7)), base64.StdEncoding.EncodeToString(testfiles.Screenshot(1920, 1080, 8))}
	saved := map[string]int64{}
	for _, target := range []struct{ dialect, extra string }{
		{contracts.DialectAnthropic, `"service_id":"claude-sonnet-4"`},
		{contracts.DialectOpenAIChat, `"service_id":"gpt-4o"`},
		{contracts.DialectGemini, `"service_id":"gemini-2.5-flash"`},
		{contracts.DialectOpenAIChat, `"service_id":"deepseek-chat"`},
	} {
		ctx := agentsession.Build(agentsession.Session{Dialect: target.dialect, ToolResultMedia: routing.ToolResultMediaFollowUp, Task: "Look.", Turns: 2,
			Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: shots[i]} }})
		rep, res := preprocessIn(t, w, ctx, `"dialect":"`+target.dialect+`",`+target.extra)
		if !rep.OK || res.Stats.ImagesReplaced == 0 || res.Stats.TokensSavedEstimate <= 0 {
			t.Fatalf("%s: %+v %+v", target.extra, rep.Error, res.Stats)
		}
		saved[target.extra] = res.Stats.TokensSavedEstimate
	}
	t.Logf("tokens saved: %v", saved)
	if len(map[int64]bool{saved[`"service_id":"claude-sonnet-4"`]: true, saved[`"service_id":"gpt-4o"`]: true, saved[`"service_id":"gemini-2.5-flash"`]: true}) != 3 {
		t.Errorf("the same screenshot saves the same in three providers' formulas: %v", saved)
	}
}
