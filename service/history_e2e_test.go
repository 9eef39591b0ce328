package service_test

import (
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

func preprocess(t *testing.T, w *servicetest.Worker, messages string) (contracts.Reply, contracts.PreprocessResult) {
	t.Helper()
	body := fmt.Sprintf(`{"request_id":"pp-%s","messages":%s}`, randomHex(6), messages)
	rep := w.CallRaw(contracts.SubjectPreprocess, []byte(body))
	var res contracts.PreprocessResult
	if rep.OK {
		if err := json.Unmarshal(rep.Result, &res); err != nil {
			t.Fatal(err)
		}
	}
	return rep, res
}

func historyImage(t *testing.T, w *servicetest.Worker, id, dialect, locale string) (contracts.Reply, contracts.GetHistoryImageResult) {
	t.Helper()
	return historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: id, Dialect: dialect, Locale: locale})
}

func historyImageFor(t *testing.T, w *servicetest.Worker, req contracts.GetHistoryImageRequest) (contracts.Reply, contracts.GetHistoryImageResult) {
	t.Helper()
	req.RequestID = "hi-" + randomHex(6)
	rep := w.Call(contracts.SubjectGetHistoryImage, req)
	var res contracts.GetHistoryImageResult
	if rep.OK {
		if err := json.Unmarshal(rep.Result, &res); err != nil {
			t.Fatal(err)
		}
	}
	return rep, res
}

func md5hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// The example of docs/design.md ("History images"): a conversation with two image turns. The older one's image is replaced by a
// placeholder and cached; the last human turn keeps its image; the placeholder resolves to the bytes.
func TestPreprocessAndGetHistoryImage(t *testing.T) {
	w := startWorker(t)
	a := base64.StdEncoding.EncodeToString(testfiles.PNG(300, 300))
	b := base64.StdEncoding.EncodeToString(testfiles.JPEG(16, 16))
	conversation := fmt.Sprintf(`[
  {"role":"system","content":"You are helpful."},
  {"role":"user","content":[{"type":"text","text":"What is in this chart?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},
  {"role":"assistant","content":"A bar chart."},
  {"role":"user","content":[{"type":"text","text":"And this photo?"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,%s"}}]},
  {"role":"assistant","content":"A small photo."}
]`, a, b)
	rep, res := preprocess(t, w, conversation)
	if !rep.OK {
		t.Fatalf("%+v", rep.Error)
	}
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(res.Messages, &msgs); err != nil || len(msgs) != 5 {
		t.Fatalf("messages: %v %s", err, res.Messages)
	}
	placeholder := "[Picture:history_" + md5hex(a) + "]"
	if strings.Contains(string(msgs[1].Content), a) || !strings.Contains(string(msgs[1].Content), placeholder) ||
		!strings.Contains(string(msgs[1].Content), "What is in this chart?") {
		t.Fatalf("older image turn not replaced: %.200s", msgs[1].Content)
	}
	if !strings.Contains(string(msgs[3].Content), b) {
		t.Fatal("the last human turn lost its image")
	}
	if res.Stats.ImagesReplaced != 1 || res.Stats.BytesRemoved != int64(len(a)) || res.Stats.TokensSavedEstimate <= 0 {
		t.Fatalf("stats = %+v", res.Stats)
	}

	t.Run("placeholder resolves to the same bytes (openai-chat)", func(t *testing.T) {
		rep, img := historyImage(t, w, "history_"+md5hex(a), "", "")
		if !rep.OK {
			t.Fatalf("%+v", rep.Error)
		}
		if len(img.Content) != 1 || img.Content[0].Type != "image" || img.Content[0].MimeType != "image/png" || img.Content[0].Base64 != a {
			t.Fatalf("block = %+v", img.Content)
		}
		var tool string
		if json.Unmarshal(img.Assembly.ToolContent, &tool) != nil || strings.Contains(tool, a[:40]) || len(img.Assembly.FollowUp) != 1 {
			t.Fatalf("openai-chat assembly: %s", img.Assembly.ToolContent)
		}
	})
	t.Run("anthropic puts the image in the tool_result", func(t *testing.T) {
		rep, img := historyImage(t, w, md5hex(a), "anthropic", "")
		if !rep.OK || !strings.Contains(string(img.Assembly.ToolContent), `"type":"image"`) || !strings.Contains(string(img.Assembly.ToolContent), a) {
			t.Fatalf("anthropic assembly: %+v %.200s", rep.Error, img.Assembly.ToolContent)
		}
	})
	t.Run("media asks for one copy", func(t *testing.T) {
		for _, tt := range []struct {
			media             string
			content, assembly bool
		}{
			{contracts.MediaResult, true, false},
			{contracts.MediaAssembly, false, true},
		} {
			rep := w.Call(contracts.SubjectGetHistoryImage, contracts.GetHistoryImageRequest{RequestID: "hi-" + randomHex(6), ImageMD5: md5hex(a), Media: tt.media})
			if !rep.OK {
				t.Fatalf("%s: %+v", tt.media, rep.Error)
			}
			var img contracts.GetHistoryImageResult
			if err := json.Unmarshal(rep.Result, &img); err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(rep.Result), a); n != 1 || (len(img.Content) == 1) != tt.content || (img.Assembly.Dialect != "") != tt.assembly {
				t.Errorf("media %s: %d copies, content %d blocks, assembly %q", tt.media, n, len(img.Content), img.Assembly.Dialect)
			}
		}
	})
	t.Run("errors carry the catalogue's messages", func(t *testing.T) {
		cases := []struct{ id, locale, code, msg string }{
			{"abc", "", contracts.CodeInvalidImageID, "无效的图片标识符"},
			{"history_zzzzzzzzzz", "en", contracts.CodeInvalidImageID, "Invalid image identifier"},
			{"0123456789abcdef", "", contracts.CodeImageNotFound, "图片不存在或已过期"},
			{"0123456789abcdef", "en", contracts.CodeImageNotFound, "The image does not exist or has expired"},
		}
		for _, c := range cases {
			rep, _ := historyImage(t, w, c.id, "", c.locale)
			if rep.OK || rep.Error.Code != c.code || rep.Error.Message != c.msg {
				t.Errorf("%s/%s: %+v", c.id, c.locale, rep.Error)
			}
		}
	})
}

func TestPreprocessEdgeCasesAndBadInput(t *testing.T) {
	w := startWorker(t)
	img := base64.StdEncoding.EncodeToString(testfiles.PNG(8, 8))
	t.Run("no images: unchanged", func(t *testing.T) {
		in := `[["system","hi"],["human","hello"],["ai","yo"],["human","again"]]`
		rep, res := preprocess(t, w, in)
		if !rep.OK || string(res.Messages) != in || res.Stats.ImagesReplaced != 0 {
			t.Fatalf("%+v %s", rep.Error, res.Messages)
		}
	})
	t.Run("pairs keep their shape", func(t *testing.T) {
		in := fmt.Sprintf(`[["human",[{"type":"image","source_type":"base64","data":"%s","mime_type":"image/png"}]],["ai","ok"],["human","next"]]`, img)
		rep, res := preprocess(t, w, in)
		if !rep.OK || res.Stats.ImagesReplaced != 1 || !strings.HasPrefix(string(res.Messages), `[["human",`) || strings.Contains(string(res.Messages), img) {
			t.Fatalf("%+v %s", rep.Error, res.Messages)
		}
	})
	bad := []struct{ name, messages string }{
		{"not a list", `{"role":"user"}`},
		{"a message that is neither shape", `[42]`},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			rep, _ := preprocess(t, w, c.messages)
			if rep.OK || rep.Error.Code != contracts.CodeInvalidRequest || rep.Error.Field != "messages" || rep.Error.Message == "" {
				t.Fatalf("%+v", rep.Error)
			}
		})
	}
}

// The history-image design passes a context through: only parts whose bytes really are an image are
// cached (with the MIME type of the bytes) and replaced; a malformed part or one whose bytes are
// not an image stays as it came and is counted, and never rejects the context.
func TestPreprocessPassesBadPartsThrough(t *testing.T) {
	w := startWorker(t)
	png := base64.StdEncoding.EncodeToString(testfiles.PNG(16, 16))
	pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
	bad := []string{
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,` + pdf + `"}}`,
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,@@@not base64@@@"}}`,
		`{"type":"image_url","image_url":{"url":"data:image/png,rawtext"}}`,
		`{"type":"image","source":{"type":"base64","media_type":"image/png"}}`,
	}
	in := `[{"role":"user","content":[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + png + `"}},` +
		strings.Join(bad, ",") + `]},{"role":"assistant","content":"ok"},{"role":"user","content":"and now?"}]`
	rep, res := preprocess(t, w, in)
	if !rep.OK {
		t.Fatalf("context rejected: %+v", rep.Error)
	}
	want := strings.Replace(in, `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,`+png+`"}}`,
		`{"type":"text","text":"[Picture:history_`+md5hex(png)+`]"}`, 1)
	if string(res.Messages) != want {
		t.Errorf("messages:\n got %.300s\nwant %.300s", res.Messages, want)
	}
	if res.Stats.ImagesReplaced != 1 || res.Stats.PartsSkipped != len(bad) {
		t.Errorf("stats = %+v, want 1 replaced and %d skipped", res.Stats, len(bad))
	}
	rep, img := historyImage(t, w, md5hex(png), "", "")
	if !rep.OK || len(img.Content) != 1 || img.Content[0].MimeType != "image/png" {
		t.Fatalf("cached image: %+v %+v, want it as image/png (labelled image/jpeg)", rep.Error, img.Content)
	}
}

// A 3 MB image (over NATS' 1 MiB max payload) goes through the claim check in both directions and
// the Object Store side of the cache.
func TestHistoryImageLargeRoundTrip(t *testing.T) {
	w := startWorker(t)
	big := base64.StdEncoding.EncodeToString(testfiles.NoisyPNG(1000, 1000))
	if len(big) < 3<<20 {
		t.Fatalf("fixture is %d base64 bytes, want >= 3 MB", len(big))
	}
	conv := fmt.Sprintf(`[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%s"}}]},{"role":"assistant","content":"ok"},{"role":"user","content":"and now?"}]`, big)
	rep, res := preprocess(t, w, conv)
	if !rep.OK || res.Stats.ImagesReplaced != 1 {
		t.Fatalf("%+v %+v", rep.Error, res.Stats)
	}
	if len(res.Messages) > 1000 {
		t.Fatalf("processed context is still %d bytes", len(res.Messages))
	}
	// vision-model takes images up to 20 MB as they are.
	rep, img := historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: md5hex(big), ServiceID: "vision-model"})
	if !rep.OK || img.Content[0].Base64 != big {
		t.Fatalf("3 MB image did not round-trip: %+v", rep.Error)
	}
	if p := img.ImageProcessing; p == nil || len(p.Actions) != 0 || p.Sent.Width != 1000 || img.Usage.TokensSaved <= 0 {
		t.Errorf("imageProcessing %+v, usage %+v: want the image sent as it is, and tokens saved", p, img.Usage)
	}
}

// History images follow the model's formats and limits, like get_artifact: an Anthropic model gets
// the 4 MB PNG within 5 MB of base64, a model without vision a description.
func TestHistoryImageFitsTheModel(t *testing.T) {
	w := startWorker(t)
	big := base64.StdEncoding.EncodeToString(testfiles.NoisyPNG(1000, 1000)) // 4 MB
	conv := fmt.Sprintf(`[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]],["human","later"]]`, big)
	if rep, res := preprocess(t, w, conv); !rep.OK || res.Stats.ImagesReplaced != 1 {
		t.Fatalf("%+v %+v", rep.Error, res.Stats)
	}
	id := md5hex(big)
	rep, img := historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: id, Capabilities: []string{"vision"}, Dialect: "anthropic"})
	if !rep.OK {
		t.Fatal(rep.Error)
	}
	p := img.ImageProcessing
	if p == nil || p.Original.Bytes != 4003757 || p.Original.Width != 1000 || !slices.Contains(p.Actions, contracts.ImageDownscaled) ||
		len(img.Content) != 1 || len(img.Content[0].Base64) > 5<<20 || int64(len(img.Content[0].Base64)) != base64Len(p.Sent.Bytes) {
		t.Fatalf("imageProcessing %+v, content %d base64 bytes: want downscaled under 5 MB of base64", p, len(img.Content[0].Base64))
	}
	if !strings.Contains(string(img.Assembly.ToolContent), `"type":"image"`) || img.Usage.Basis != contracts.UsageAnthropicPixels || img.Usage.TokensSaved <= 0 {
		t.Errorf("assembly %.200s, usage %+v", img.Assembly.ToolContent, img.Usage)
	}

	rep, img = historyImageFor(t, w, contracts.GetHistoryImageRequest{ImageMD5: id, ServiceID: "text-model", Locale: "en", Dialect: "gemini"})
	if !rep.OK {
		t.Fatal(rep.Error)
	}
	if len(img.Content) != 0 || img.ImageProcessing != nil || img.Usage.TokensSaved != 0 ||
		!strings.Contains(string(img.Assembly.ToolContent), "[Picture:history_"+id+"]") || strings.Contains(string(img.Assembly.ToolContent), "inlineData") {
		t.Errorf("text-only model got %+v", img)
	}
}

func base64Len(n int64) int64 { return (n + 2) / 3 * 4 }

func TestHistoryImageExpires(t *testing.T) {
	const ttl = 2 * time.Second
	w := startWorker(t, func(c *service.Config) { c.HistoryTTL = ttl })
	img := base64.StdEncoding.EncodeToString(testfiles.PNG(4, 4))
	conv := fmt.Sprintf(`[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]],["human","later"]]`, img)
	written := time.Now()
	if rep, res := preprocess(t, w, conv); !rep.OK || res.Stats.ImagesReplaced != 1 {
		t.Fatalf("%+v", rep.Error)
	}
	// The image lives at least TTL from its write, after written. A loaded machine may take that long
	// for the two round trips; a miss answered before is wrong.
	if rep, _ := historyImage(t, w, md5hex(img), "", ""); !rep.OK && time.Since(written) < ttl {
		t.Fatalf("fresh image not found: %+v", rep.Error)
	}
	servicetest.WaitFor(t, 15*time.Second, "the cached image to expire", func() bool {
		rep, _ := historyImage(t, w, md5hex(img), "", "")
		return !rep.OK && rep.Error.Code == contracts.CodeImageNotFound
	})
}
