package sdkcheck

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/routing"
)

type fixture struct {
	name, filename string
	data           []byte
}

var fixtures = sync.OnceValue(func() []fixture {
	return []fixture{
		{"text", "notes.txt", testfiles.Text()},
		{"png", "chart.png", testfiles.PNG(64, 48)},
		{"gif", "icon.gif", testfiles.GIF(32, 32)},
		{"animated gif", "spin.gif", testfiles.AnimatedGIF(40, 30, 3)},
		{"bmp", "scan.bmp", testfiles.BMP(40, 30)},
		{"tiff", "scan.tiff", testfiles.TIFF(40, 30)},
		{"large jpeg with exif orientation", "photo.jpg", testfiles.Photo(3000, 2250, 6)},
		{"pdf", "report.pdf", testfiles.PDF()},
		{"docx", "Q3 plan (draft).docx", testfiles.DOCX()},
		{"wav", "voice.wav", testfiles.WAV()},
		{"mp3", "voice.mp3", testfiles.MP3()},
		{"ogg", "voice.ogg", testfiles.OGG()},
		{"flac", "voice.flac", testfiles.FLAC()},
		{"mp4", "clip.mp4", testfiles.MP4()},
		{"zip", "bundle.zip", testfiles.ZIP()},
	}
})

var images = []string{"png", "gif", "animated gif", "bmp", "tiff", "large jpeg with exif orientation"}

// sent lists, per dialect, the non-image fixtures whose bytes reach the model with the shipped
// registry's defaults for the dialect's provider (docs/providers.md); every image fixture is sent in
// every dialect, converted where needed. Everything else is described.
var sent = map[string][]string{
	contracts.DialectOpenAIChat:      {"pdf", "wav", "mp3"},
	contracts.DialectOpenAIResponses: {"pdf"},
	contracts.DialectAnthropic:       {"pdf"},
	contracts.DialectGemini:          {"pdf", "wav", "mp3", "ogg", "flac", "mp4"},
	contracts.DialectBedrockConverse: {"pdf", "docx"},
	contracts.DialectLangChain:       {"pdf", "wav", "mp3", "mp4"},
	contracts.DialectLangChainJS:     {"pdf", "wav", "mp3", "mp4"},
}

var allCaps = routing.NewCapabilities("text", "vision", "file", "audio", "video")

// variant is a dialect and, for gemini, where the model takes a tool result's media; for
// openai-chat, whether the provider rejects a user message right after a tool message.
type variant struct {
	dialect, toolResultMedia string
	strict                   bool
}

func (v variant) String() string {
	switch {
	case v.strict:
		return v.dialect + "/strictToolOrdering"
	case v.toolResultMedia == "":
		return v.dialect
	}
	return v.dialect + "/" + v.toolResultMedia
}

// formats is what the registry says of the variant's model that the assembly reads.
func (v variant) formats() routing.Formats {
	return routing.Formats{ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict}
}

// mediaMessages is the roles of the messages that carry one call's media after the answers.
func (v variant) mediaMessages() []string {
	switch {
	case v.strict:
		return []string{"assistant", "user"}
	case v.followsUp():
		return []string{"user"}
	}
	return nil
}

// variants is every dialect, gemini twice: Gemini 3 models take media inside the functionResponse,
// older ones in a user turn after it; openai-chat twice: for an ordering-strict provider (Mistral)
// an assistant message goes before the media (docs/design.md, "Ordering-strict providers").
var variants = func() []variant {
	var out []variant
	for _, d := range contracts.Dialects {
		if d == contracts.DialectGemini {
			out = append(out, variant{dialect: d, toolResultMedia: routing.ToolResultMediaInline}, variant{dialect: d, toolResultMedia: routing.ToolResultMediaFollowUp})
			continue
		}
		if d == contracts.DialectOpenAIChat {
			out = append(out, variant{dialect: d, strict: true})
		}
		out = append(out, variant{dialect: d})
	}
	return out
}()

// followsUp reports whether the variant's media travels in follow-up messages.
func (v variant) followsUp() bool {
	return v.dialect == contracts.DialectOpenAIChat || v.dialect == contracts.DialectGemini && v.toolResultMedia != routing.ToolResultMediaInline
}

// route routes a fixture for a model of the dialect's provider, as tool.get_article does for a
// service the registry does not know.
func route(f fixture, dialect string) contracts.ContentRouteResult {
	return routing.Route(routing.Input{
		ID: "a-" + strings.ReplaceAll(f.name, " ", "-"), Filename: f.filename, Content: f.data, Capabilities: allCaps, Locale: "en",
		Dialect: dialect, Formats: llmservices.Default().Formats("", routing.DialectProvider(dialect)),
	})
}

// TestDialectsDecodeIntoSDKTypes: every dialect x every fixture, as one tool call, decodes into
// the provider's official types; media goes exactly where the provider takes it.
func TestDialectsDecodeIntoSDKTypes(t *testing.T) {
	for _, v := range variants {
		d := v.dialect
		t.Run(v.String(), func(t *testing.T) {
			t.Parallel()
			provider := llmservices.Default().Formats("", routing.DialectProvider(d))
			for _, f := range fixtures() {
				t.Run(f.name, func(t *testing.T) {
					res := route(f, d)
					turn, err := client.Turn([]client.ToolResult{{CallID: "call_1", Name: "get_artifact", Assembly: routing.Assemble(res, d, "en", v.formats())}})
					if err != nil {
						t.Fatal(err)
					}
					roles, p := decoders[d](t, turn)
					isImage := slices.Contains(images, f.name)
					wantSent := isImage || slices.Contains(sent[d], f.name)
					if got := p.total(); got != map[bool]int{true: 1, false: 0}[wantSent] {
						t.Fatalf("%d media parts, want sent=%v; routing %s, content %q", got, wantSent, res.Routing, res.Content)
					}
					if want := map[bool]int{true: 1 + len(v.mediaMessages()), false: 1}[wantSent]; len(roles) != want {
						t.Errorf("roles %v: want %d messages (media sent: %v)", roles, want, wantSent)
					}
					checkOrdering(t, v, roles)
					b64 := base64.StdEncoding.EncodeToString(f.data)
					if f.name != "text" && strings.Contains(string(joined(turn)), b64[:min(64, len(b64))]) && !wantSent {
						t.Errorf("a described artifact's bytes are in the turn")
					}
					if !wantSent && f.name != "text" && !strings.Contains(res.Content, "[Cannot read]") {
						t.Errorf("not sent but not described: %q", res.Content)
					}
					if isImage {
						checkImage(t, res, provider, p)
					}
				})
			}
		})
	}
}

// checkImage: the sent image is in a format the provider takes and within its limits.
func checkImage(t *testing.T, res contracts.ContentRouteResult, f routing.Formats, p parts) {
	t.Helper()
	ip := res.ImageProcessing
	if p.images != 1 || ip == nil {
		t.Fatalf("image parts %d, processing %+v", p.images, ip)
	}
	if !slices.Contains(f.Image, ip.Sent.Format) {
		t.Errorf("sent as %s, provider takes %v", ip.Sent.Format, f.Image)
	}
	l := f.Limits
	long, short := max(ip.Sent.Width, ip.Sent.Height), min(ip.Sent.Width, ip.Sent.Height)
	if l.MaxLongEdge > 0 && long > l.MaxLongEdge || l.MaxShortEdge > 0 && short > l.MaxShortEdge ||
		l.MaxPixels > 0 && ip.Sent.Width*ip.Sent.Height > l.MaxPixels || l.MaxBytes > 0 && ip.Sent.Bytes > l.MaxBytes {
		t.Errorf("sent %+v exceeds the limits %+v", ip.Sent, l)
	}
	if res.Metadata.Filename == "photo.jpg" {
		overLimits := l.MaxLongEdge > 0 && 3000 > l.MaxLongEdge || l.MaxShortEdge > 0 && 2250 > l.MaxShortEdge || l.MaxPixels > 0 && 3000*2250 > l.MaxPixels
		if ip.Sent.Height <= ip.Sent.Width || !slices.Contains(ip.Actions, contracts.ImageOriented) || slices.Contains(ip.Actions, contracts.ImageDownscaled) != overLimits {
			t.Errorf("EXIF orientation 6 of a 3000x2250 photo: sent %+v, actions %v; want portrait, oriented, downscaled=%v", ip.Sent, ip.Actions, overLimits)
		}
	}
	if res.Metadata.Filename == "spin.gif" && f.Limits.StaticOnly && !slices.Contains(ip.Actions, contracts.ImageFirstFrame) {
		t.Errorf("animated GIF for a static-only provider: actions %v", ip.Actions)
	}
}

// TestParallelCalls: two and three tool calls of one assistant turn give one valid turn in every
// dialect; openai-chat answers every call with a tool message before the first follow-up.
func TestParallelCalls(t *testing.T) {
	byName := map[string]fixture{}
	for _, f := range fixtures() {
		byName[f.name] = f
	}
	for _, v := range variants {
		d := v.dialect
		for _, names := range [][]string{{"png", "pdf"}, {"png", "text", "pdf"}} {
			t.Run(fmt.Sprintf("%s/%d calls", v, len(names)), func(t *testing.T) {
				var results []client.ToolResult
				for i, n := range names {
					results = append(results, client.ToolResult{CallID: fmt.Sprintf("call_%d", i+1), Name: "get_artifact", Assembly: routing.Assemble(route(byName[n], d), d, "en", v.formats())})
				}
				turn, err := client.Turn(results)
				if err != nil {
					t.Fatal(err)
				}
				roles, p := decoders[d](t, turn)
				if p.images != 1 || p.documents != 1 {
					t.Errorf("parts %+v, want one image and one document", p)
				}
				want := map[string][]string{
					contracts.DialectOpenAIChat:      append(slices.Repeat([]string{"tool"}, len(names)), "user", "user"),
					contracts.DialectOpenAIResponses: slices.Repeat([]string{"function_call_output"}, len(names)),
					contracts.DialectAnthropic:       {"user"},
					contracts.DialectGemini:          {"user"},
					contracts.DialectBedrockConverse: {"user"},
					contracts.DialectLangChain:       slices.Repeat([]string{"tool"}, len(names)),
					contracts.DialectLangChainJS:     slices.Repeat([]string{"tool"}, len(names)),
				}[d]
				if v.strict { // the answers, then the bridge and the media of each call with media
					want = append(slices.Repeat([]string{"tool"}, len(names)), "assistant", "user", "assistant", "user")
				}
				checkOrdering(t, v, roles)
				if d == contracts.DialectGemini && v.followsUp() { // the responses, then the media of call 1 and of the last call
					want = []string{"user", "user", "user"}
				}
				if !slices.Equal(roles, want) {
					t.Errorf("roles %v, want %v", roles, want)
				}
				if n, k := len(turn), len(v.mediaMessages()); v.followsUp() && n >= 2*k && (!strings.Contains(string(turn[n-1-k]), "image/png") || !strings.Contains(string(turn[n-1]), "application/pdf")) {
					t.Errorf("follow-ups are not in call order (the image's, then the PDF's): %.200s ... %.200s", turn[n-1-k], turn[n-1])
				}
				// Call ids appear once each, in call order.
				all := string(joined(turn))
				last := -1
				for _, r := range results {
					i := strings.Index(all, `"`+r.CallID+`"`)
					if i <= last || strings.Count(all, `"`+r.CallID+`"`) != 1 {
						t.Errorf("call id %s at %d (after %d), count %d", r.CallID, i, last, strings.Count(all, `"`+r.CallID+`"`))
					}
					last = i
				}
			})
		}
	}
}

// TestTextOnlyAssemblies: a text-only result (a description, an error's message) is valid in every
// dialect, including an empty text, also as the answer to a failed call (anthropic's is_error,
// bedrock-converse's status "error").
func TestTextOnlyAssemblies(t *testing.T) {
	for _, d := range contracts.Dialects {
		for _, text := range []string{"[Cannot read] a.zip (artifact:a1)", ""} {
			for _, failed := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%q/failed=%v", d, text, failed), func(t *testing.T) {
					turn, err := client.Turn([]client.ToolResult{{CallID: "c1", Name: "get_artifact", Assembly: routing.AssembleText(text, d), Failed: failed}})
					if err != nil {
						t.Fatal(err)
					}
					if _, p := decoders[d](t, turn); p.total() != 0 {
						t.Errorf("text-only result with media parts: %+v", p)
					}
				})
			}
		}
	}
}

// TestHistoryImages: a history image assembled for each dialect decodes too.
func TestHistoryImages(t *testing.T) {
	data := base64.StdEncoding.EncodeToString(testfiles.JPEG(16, 16))
	for _, v := range variants {
		d := v.dialect
		t.Run(v.String(), func(t *testing.T) {
			turn, err := client.Turn([]client.ToolResult{{CallID: "c1", Name: "get_history_image", Assembly: routing.AssembleImage("image/jpeg", data, "[Picture:history_x]", d, "", v.formats())}})
			if err != nil {
				t.Fatal(err)
			}
			roles, p := decoders[d](t, turn)
			if want := append([]string{roles[0]}, v.mediaMessages()...); p.images != 1 || !slices.Equal(roles, want) {
				t.Errorf("parts %+v, roles %v; want one image, roles %v", p, roles, want)
			}
			checkOrdering(t, v, roles)
		})
	}
}

// TestDecodersRejectDrift makes sure the checks above can fail: an unknown field, a wrong part
// type, a bad format or (gemini) a turn whose function responses are not all in its first content
// must each be caught.
func TestDecodersRejectDrift(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(testfiles.PNG(2, 2))
	tests := []struct {
		dialect string
		turn    string
	}{
		{contracts.DialectOpenAIChat, `{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `","detial":"auto"}}]}`},
		{contracts.DialectOpenAIChat, `{"role":"tool","tool_call_id":"c","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + png + `"}}]}`},
		{contracts.DialectOpenAIResponses, `{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"data:image/png;base64,` + png + `","detail":"auto","extra":1}]}`},
		{contracts.DialectAnthropic, `{"role":"user","content":[{"type":"tool_result","tool_use_id":"c","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"},"alt":"x"}]}]}`},
		{contracts.DialectGemini, `{"role":"user","parts":[{"functionResponse":{"id":"c","name":"f","response":{"output":"x"},"parts":[{"inline_data_x":{"mimeType":"image/png","data":"` + png + `"}}]}}]}`},
		{contracts.DialectGemini, `{"role":"user","parts":[{"text":"x"},{"inlineData":{"mimeType":"image/png","data":"` + png + `"}}]}`},
		{contracts.DialectGemini, `{"role":"user","parts":[{"functionResponse":{"id":"c","name":"f","response":{"output":"x"}}}]}` + "\n" +
			`{"role":"user","parts":[{"functionResponse":{"id":"d","name":"f","response":{"output":"y"}}}]}`},
		{contracts.DialectBedrockConverse, `{"role":"user","content":[{"toolResult":{"toolUseId":"c","status":"success","content":[{"image":{"format":"bmp","source":{"bytes":"` + png + `"}}}]}}]}`},
		{contracts.DialectLangChain, `{"role":"tool","tool_call_id":"c","content":[{"type":"image","source_type":"base64","data":"` + png + `","mime_type":"image/png"}]}`},
		{contracts.DialectLangChainJS, `{"role":"tool","tool_call_id":"c","content":[{"type":"image","base64":"` + png + `","mime_type":"image/png"}]}`},
		{contracts.DialectLangChainJS, `{"role":"tool","tool_call_id":"c","content":[{"type":"file","data":"` + png + `","mimeType":"application/pdf","extras":{"filename":"a.pdf"}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.dialect, func(t *testing.T) {
			rec := &recorder{}
			func() {
				defer func() { _ = recover() }() // Fatalf stops the check by panicking
				// One message a line.
				var turn []json.RawMessage
				for _, m := range strings.Split(tt.turn, "\n") {
					turn = append(turn, json.RawMessage(m))
				}
				decoders[tt.dialect](rec, turn)
			}()
			if !rec.failed {
				t.Errorf("drifted turn passed the %s check:\n%s", tt.dialect, tt.turn)
			}
		})
	}
}

// recorder is a reporter that remembers failures; Fatalf panics to stop the check.
type recorder struct{ failed bool }

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(string, ...any)     { r.failed = true }
func (r *recorder) Fatalf(f string, a ...any) { r.failed = true; panic(fmt.Sprintf(f, a...)) }

func joined(turn []json.RawMessage) []byte {
	b, _ := json.Marshal(turn)
	return b
}

// checkOrdering: for an ordering-strict provider, no user message follows a tool message.
func checkOrdering(t *testing.T, v variant, roles []string) {
	t.Helper()
	if !v.strict {
		return
	}
	for i := 1; i < len(roles); i++ {
		if roles[i-1] == "tool" && roles[i] == "user" {
			t.Errorf("roles %v: a user message right after a tool message", roles)
		}
	}
}

// TestBedrockDocumentNamesUnique: two artifacts named report.pdf, or one PDF read twice, get
// distinct document names in one Converse request, and the request still decodes.
func TestBedrockDocumentNamesUnique(t *testing.T) {
	d := contracts.DialectBedrockConverse
	var pdf fixture
	for _, f := range fixtures() {
		if f.name == "pdf" {
			pdf = f
		}
	}
	a := routing.Assemble(route(pdf, d), d, "en", routing.Formats{})
	turn, err := client.Turn([]client.ToolResult{{CallID: "tooluse_1", Name: "get_artifact", Assembly: a}, {CallID: "tooluse_2", Name: "get_artifact", Assembly: a}})
	if err != nil {
		t.Fatal(err)
	}
	if _, p := decoders[d](t, turn); p.documents != 2 {
		t.Fatalf("documents %d, want 2", p.documents)
	}
	var msg struct {
		Content []struct {
			ToolResult struct {
				Content []struct {
					Document *struct{ Name string } `json:"document"`
				} `json:"content"`
			} `json:"toolResult"`
		} `json:"content"`
	}
	mustUnmarshal(t, turn[0], &msg)
	names := map[string]bool{}
	for _, c := range msg.Content {
		for _, b := range c.ToolResult.Content {
			if b.Document != nil {
				names[b.Document.Name] = true
			}
		}
	}
	if len(names) != 2 {
		t.Errorf("document names %v, want two distinct", names)
	}
}
