package historyimage_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
)

// Test images: base64 of a PNG header of the given size plus random bytes, and one of unknown format.
var (
	imgA = fakePNG(1, 1024, 1024, 3000)                                                        // 765 (OpenAI) vs 1398 (Anthropic) tokens -> saves 745
	imgB = fakePNG(2, 800, 600, 2000)                                                          // 765 vs 640 -> saves 620
	imgC = fakePNG(3, 2048, 1024, 1000)                                                        // 1105 vs 1600 -> saves 1085
	imgD = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("not an image header "), 50)) // unknown: 85 -> 65
	imgE = fakePNG(5, 100, 100, 500)                                                           // 255 vs 13 -> saves 0
)

// expand fills a context template: $A..$E are base64 data, $PA..$PE the placeholder parts.
func expand(tmpl string) string {
	return strings.NewReplacer(
		"$PA", placeholderPart(imgA), "$PB", placeholderPart(imgB), "$PC", placeholderPart(imgC),
		"$PD", placeholderPart(imgD), "$PE", placeholderPart(imgE),
		"$A", imgA, "$B", imgB, "$C", imgC, "$D", imgD, "$E", imgE,
	).Replace(tmpl)
}

// The history-image example of the design (docs/design.md, "History images"): system, human (text + image A), ai, human (text + image B), ai. Image A of the
// older human turn is moved to the cache; the last human turn is kept whole; the placeholder resolves
// through the JetStream cache to the same bytes.
func TestPreprocessSeedExample(t *testing.T) {
	cache := newCache(t, startJetStream(t), historyimage.CacheConfig{})
	tests := []struct {
		name, in, want string
	}{
		{
			name: "pairs",
			in: `[["system","You are a helpful assistant."],` +
				`["human",[{"type":"text","text":"What is in this picture?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],` +
				`["ai","A cat on a sofa."],` +
				`["human",[{"type":"text","text":"And in this one?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$B"}}]],` +
				`["ai","A dog."]]`,
			want: `[["system","You are a helpful assistant."],` +
				`["human",[{"type":"text","text":"What is in this picture?"},$PA]],` +
				`["ai","A cat on a sofa."],` +
				`["human",[{"type":"text","text":"And in this one?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$B"}}]],` +
				`["ai","A dog."]]`,
		},
		{
			name: "objects",
			in: `[{"role":"system","content":"You are a helpful assistant."},` +
				`{"role":"user","content":[{"type":"text","text":"What is in this picture?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]},` +
				`{"role":"assistant","content":"A cat on a sofa."},` +
				`{"role":"user","content":[{"type":"text","text":"And in this one?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$B"}}]},` +
				`{"role":"assistant","content":"A dog."}]`,
			want: `[{"role":"system","content":"You are a helpful assistant."},` +
				`{"role":"user","content":[{"type":"text","text":"What is in this picture?"},$PA]},` +
				`{"role":"assistant","content":"A cat on a sofa."},` +
				`{"role":"user","content":[{"type":"text","text":"And in this one?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$B"}}]},` +
				`{"role":"assistant","content":"A dog."}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, stats, err := historyimage.Preprocess(t.Context(), json.RawMessage(expand(tt.in)), cache, nil)
			if err != nil {
				t.Fatalf("Preprocess: %v", err)
			}
			if got, want := string(out), expand(tt.want); got != want {
				t.Errorf("messages:\n got %.300s\nwant %.300s", got, want)
			}
			wantStats := contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgA)), TokensSavedEstimate: 745}
			if stats != wantStats {
				t.Errorf("stats = %+v, want %+v", stats, wantStats)
			}
			// The model asks for the image back with the id it read in the placeholder.
			img, err := cache.Get(t.Context(), "[Picture:history_"+md5hex(imgA)+"]")
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			if img.Data != imgA || img.MimeType != "image/png" {
				t.Errorf("Get = %d chars of %q, want the %d chars of image A as image/png", len(img.Data), img.MimeType, len(imgA))
			}
			if _, err := cache.Get(t.Context(), md5hex(imgB)); !errors.Is(err, historyimage.ErrNotFound) {
				t.Errorf("image B of the last human turn: Get error = %v, want ErrNotFound (it was not moved)", err)
			}
		})
	}
}

func TestPreprocessEdgeCases(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		want      string // "" means: unchanged, byte for byte
		stats     contracts.PreprocessStats
		puts      int
		fail      func(md5 string) bool
		wantImage map[string]historyimage.Image // images the putter must hold afterwards
	}{
		{
			name: "empty context",
			in:   `[]`,
		},
		{
			name: "no images",
			in:   `[["system","be brief"],["human","hi"],["ai","hello"],["human",[{"type":"text","text":"bye"}]]]`,
		},
		{
			name: "one human message with images is kept whole",
			in:   `[["system","s"],["human",[{"type":"text","text":"look"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]]]`,
		},
		{
			name: "images only in the last human turn",
			in:   `[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]}]`,
		},
		{
			name: "same image several times: one write, same placeholder",
			in: `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],["ai","x"],` +
				`["human",[{"type":"image","source_type":"base64","data":"$A","mime_type":"image/png"}]],["ai","y"],["human","last"]]`,
			want:      `[["human",[$PA,$PA]],["ai","x"],["human",[$PA]],["ai","y"],["human","last"]]`,
			stats:     contracts.PreprocessStats{ImagesReplaced: 3, BytesRemoved: 3 * int64(len(imgA)), TokensSavedEstimate: 3 * 745},
			puts:      1,
			wantImage: map[string]historyimage.Image{md5hex(imgA): {Data: imgA, MimeType: "image/png"}},
		},
		{
			name:  "image of the last turn also in an older turn",
			in:    `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],["ai","x"],["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]]]`,
			want:  `[["human",[$PA]],["ai","x"],["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]]]`,
			stats: contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgA)), TokensSavedEstimate: 745},
			puts:  1,
		},
		{
			name: "existing placeholders are left alone",
			in:   `[["human",[{"type":"text","text":"see"},$PA]],["ai","x"],["human","and now?"]]`,
		},
		{
			name: "http(s) and other references are left alone",
			in: `[["human",[{"type":"image_url","image_url":{"url":"https://example.com/a.png"}},{"type":"image_url","image_url":"http://example.com/b.png"},` +
				`{"type":"image","source":{"type":"url","url":"https://example.com/c.png"}},{"type":"image","source_type":"url","url":"https://example.com/d.png"},` +
				`{"type":"image","file_id":"file-123"},{"type":"image","source":{"type":"file","file_id":"file_abc"}}]],["ai","x"],["human","last"]]`,
		},
		{
			name: "assistant and system messages are untouched; an older tool message is not",
			in: `[{"role":"system","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]},` +
				`{"role":"user","content":"one"},` +
				`{"role":"assistant","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"$B"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,$C"}}]},` +
				`{"role":"user","content":"two"}]`,
			want: `[{"role":"system","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]},` +
				`{"role":"user","content":"one"},` +
				`{"role":"assistant","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"$B"}}]},` +
				`{"role":"tool","tool_call_id":"c1","content":[$PC]},` +
				`{"role":"user","content":"two"}]`,
			stats: contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgC)), TokensSavedEstimate: 1085},
			puts:  1,
		},
		{
			name:  "a failed cache write leaves the image in place",
			in:    `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],["ai","x"],["human","last"]]`,
			stats: contracts.PreprocessStats{CacheFailures: 1},
			puts:  1,
			fail:  func(string) bool { return true },
		},
		{
			name: "one of two cache writes fails",
			in: `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}},{"type":"image_url","image_url":{"url":"data:image/png;base64,$B"}},` +
				`{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],["ai","x"],["human","last"]]`,
			want: `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}},$PB,` +
				`{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],["ai","x"],["human","last"]]`,
			stats: contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgB)), TokensSavedEstimate: 620, CacheFailures: 2},
			puts:  2,
			fail:  func(md5 string) bool { return md5 == md5hex(imgA) },
		},
		{
			name: "every part shape",
			in: `[{"role":"user","content":[` +
				`{"type":"image_url","image_url":{"url":"data:image/png;base64,$A","detail":"high"}},` +
				`{"type":"image_url","image_url":"data:image/png;base64,$B"},` +
				`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"$C"}},` +
				`{"type":"image","source_type":"base64","data":"$D","mime_type":"image/webp"},` +
				`{"type":"image","base64":"$E","mime_type":"image/webp"}]},` +
				`{"role":"assistant","content":"ok"},{"role":"user","content":"last"}]`,
			// $D is text labelled image/webp: not an image, left in place. $E is a PNG labelled
			// image/webp: cached as what its bytes are.
			want:  `[{"role":"user","content":[$PA,$PB,$PC,{"type":"image","source_type":"base64","data":"$D","mime_type":"image/webp"},$PE]},{"role":"assistant","content":"ok"},{"role":"user","content":"last"}]`,
			stats: contracts.PreprocessStats{ImagesReplaced: 4, BytesRemoved: int64(len(imgA) + len(imgB) + len(imgC) + len(imgE)), TokensSavedEstimate: 745 + 620 + 1085 + 0, PartsSkipped: 1},
			puts:  4,
			wantImage: map[string]historyimage.Image{
				md5hex(imgC): {Data: imgC, MimeType: "image/png"},
				md5hex(imgE): {Data: imgE, MimeType: "image/png"},
			},
		},
		{
			name: "other members, key order and whitespace are kept",
			in: "[\n  {\"id\": \"m1\", \"content\": [\n    {\"type\": \"text\", \"text\": \"hi\"},\n    {\"type\": \"image_url\", \"image_url\": {\"url\": \"data:image/png;base64,$A\"}}\n  ], \"role\": \"human\", \"name\": \"alice\", \"extra\": {\"k\": [1, 2]}},\n" +
				"  {\"role\": \"ai\", \"content\": \"x\", \"additional_kwargs\": {}},\n  {\"role\": \"human\", \"content\": \"last\"}\n]\n",
			want: "[\n  {\"id\": \"m1\", \"content\": [\n    {\"type\": \"text\", \"text\": \"hi\"},\n    $PA\n  ], \"role\": \"human\", \"name\": \"alice\", \"extra\": {\"k\": [1, 2]}},\n" +
				"  {\"role\": \"ai\", \"content\": \"x\", \"additional_kwargs\": {}},\n  {\"role\": \"human\", \"content\": \"last\"}\n]\n",
			stats: contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgA)), TokensSavedEstimate: 745},
			puts:  1,
		},
		{
			name:  "human and user both count",
			in:    `[["user",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],["assistant","x"],["human","last"]]`,
			want:  `[["user",[$PA]],["assistant","x"],["human","last"]]`,
			stats: contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgA)), TokensSavedEstimate: 745},
			puts:  1,
		},
		{
			name: "a user message of tool results is not the last human turn",
			in: `[{"role":"user","content":[{"type":"text","text":"crop this"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"$A"}}]},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"crop","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"$B"}}]}]}]`,
		},
		{
			name:      "escaped slashes in base64: the hash is of the decoded string",
			in:        `[["human",[{"type":"image","source_type":"base64","data":"` + strings.ReplaceAll(imgA, "/", `\/`) + `","mime_type":"image\/png"}]],["ai","x"],["human","last"]]`,
			want:      `[["human",[$PA]],["ai","x"],["human","last"]]`,
			stats:     contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgA)), TokensSavedEstimate: 745},
			puts:      1,
			wantImage: map[string]historyimage.Image{md5hex(imgA): {Data: imgA, MimeType: "image/png"}},
		},
		{
			name:      "a missing media type is sniffed",
			in:        `[["human",[{"type":"image_url","image_url":{"url":"data:;base64,$A"}}]],["ai","x"],["human","last"]]`,
			want:      `[["human",[$PA]],["ai","x"],["human","last"]]`,
			stats:     contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgA)), TokensSavedEstimate: 745},
			puts:      1,
			wantImage: map[string]historyimage.Image{md5hex(imgA): {Data: imgA, MimeType: "image/png"}},
		},
		{
			name: "human messages with string, null or no content",
			in:   `[{"role":"user","content":"a"},{"role":"user","content":null},{"role":"user"},{"role":"assistant","content":null,"tool_calls":[]}]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newMemPutter()
			p.fail = tt.fail
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, nil))
			in := json.RawMessage(expand(tt.in))
			out, stats, err := historyimage.Preprocess(t.Context(), in, p, logger)
			if err != nil {
				t.Fatalf("Preprocess: %v", err)
			}
			want := string(in)
			if tt.want != "" {
				want = expand(tt.want)
			}
			if string(out) != want {
				t.Errorf("messages:\n got %.400s\nwant %.400s", out, want)
			}
			if !json.Valid(out) {
				t.Errorf("output is not valid JSON")
			}
			if stats != tt.stats {
				t.Errorf("stats = %+v, want %+v", stats, tt.stats)
			}
			if p.puts != tt.puts {
				t.Errorf("cache writes = %d, want %d", p.puts, tt.puts)
			}
			for md5, wantImg := range tt.wantImage {
				if got := p.images[md5]; got != wantImg {
					t.Errorf("cached %s = {%d chars, %q}, want {%d chars, %q}", md5, len(got.Data), got.MimeType, len(wantImg.Data), wantImg.MimeType)
				}
			}
			if tt.stats.CacheFailures > 0 {
				if !strings.Contains(logs.String(), "history image cache write failed") || !strings.Contains(logs.String(), md5hex(imgA)) {
					t.Errorf("cache failure not logged with its hash; logs: %s", logs.String())
				}
			}
		})
	}
}

func TestPreprocessMalformed(t *testing.T) {
	tests := []struct {
		name, in    string
		wantProblem string // substring of InvalidContextError.Problem
	}{
		{"empty input", ``, "not valid JSON"},
		{"not JSON", `[["human","hi"]`, "not valid JSON"},
		{"an object", `{"role":"human","content":"hi"}`, "not a JSON list, got an object"},
		{"a string", `"hello"`, "not a JSON list, got a string"},
		{"null", `null`, "not a JSON list, got null"},
		{"a message that is a number", `[["human","hi"],42]`, "messages[1] is a number, neither a [role, content] pair nor an object with a role"},
		{"a message that is a string", `["human"]`, "messages[0] is a string"},
		{"a pair with 3 elements", `[["human","hi","extra"]]`, "messages[0] is a [role, content] pair with 3 elements, want 2"},
		{"a pair with 1 element", `[["human"]]`, "pair with 1 elements"},
		{"a pair whose role is not a string", `[[1,"hi"]]`, "messages[0][0]: role is a number"},
		{"an object without role", `[{"content":"hi"}]`, "messages[0] is an object without a role"},
		{"an object whose role is not a string", `[{"role":null,"content":"hi"}]`, "messages[0].role is null"},
		{"human content that is an object", `[{"role":"user","content":{"type":"text"}}]`, "messages[0].content is an object, want a string or a list of parts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newMemPutter()
			out, _, err := historyimage.Preprocess(t.Context(), json.RawMessage(tt.in), p, nil)
			var ice *historyimage.InvalidContextError
			if !errors.As(err, &ice) {
				t.Fatalf("error = %v (output %.100s), want *InvalidContextError", err, out)
			}
			if !strings.Contains(ice.Problem, tt.wantProblem) {
				t.Errorf("problem = %q, want it to contain %q", ice.Problem, tt.wantProblem)
			}
			if out != nil {
				t.Errorf("output = %.100s, want nil with an error", out)
			}
			if p.puts != 0 {
				t.Errorf("cache writes = %d, want none for a rejected context", p.puts)
			}
		})
	}
}

// An image part that is malformed, or whose bytes are not an image whatever its label, stays in
// place byte for byte and is counted in stats.parts_skipped; it never rejects the context (design
// document 002 passes such parts through). Parts of the last human turn are not looked at.
func TestPreprocessLeavesBadPartsInPlace(t *testing.T) {
	const older = `,["ai","x"],["human","last"]]`
	notImage := base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n%\xe2\xe3\xcf\xd3 not an image at all"))
	tests := []struct {
		name, in string
		skipped  int
		why      string // substring of the logged reason
	}{
		{"a data URL that is not base64", `[["human",[{"type":"image_url","image_url":{"url":"data:image/png,rawtext"}}]]` + older, 1, "data URL is not base64"},
		{"a data URL without comma", `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64"}}]]` + older, 1, "data URL has no comma"},
		{"a data URL without data", `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,"}}]]` + older, 1, "data URL has no data"},
		{"base64 that does not decode", `[["human",[{"type":"text","text":"t"},{"type":"image_url","image_url":{"url":"data:image/png;base64,!!!!"}}]]` + older, 1, "base64 data does not decode"},
		{"base64 without padding", `[["human",[{"type":"image","source_type":"base64","data":"QUJDRA","mime_type":"image/png"}]]` + older, 1, "base64 data does not decode"},
		{"base64 with spaces", `[["human",[{"type":"image","base64":"QUJD RA==","mime_type":"image/png"}]]` + older, 1, "base64 data does not decode"},
		{"image_url without url", `[["human",[{"type":"image_url","image_url":{"detail":"high"}}]]` + older, 1, "messages[0][1][1].image_url.url: media part has no URL or data"},
		{"image_url that is null", `[["human",[{"type":"image_url","image_url":null}]]` + older, 1, "messages[0][1][1].image_url: media part has no URL or data"},
		{"Anthropic base64 source without data", `[["human",[{"type":"image","source":{"type":"base64","media_type":"image/png"}}]]` + older, 1, "messages[0][1][1].source.data: media part has no data"},
		{"LangChain base64 block without data", `[["human",[{"type":"image","source_type":"base64","mime_type":"image/png"}]]` + older, 1, "messages[0][1][1].data: media part has no data"},
		{"image block with nothing", `[["human",[{"type":"image"}]]` + older, 1, "media part has no data (no source, source_type, base64, url or file_id)"},
		{"Anthropic source that is a string", `[["human",[{"type":"image","source":"x"}]]` + older, 1, "messages[0][1][1].source: source is not an object"},
		{"bad parts of the last human turn are not looked at", `[["human",[{"type":"text","text":"t"}]],["ai","x"],["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,@@@@"}}]]]`, 0, ""},
		{"a PDF labelled image/png", `[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + notImage + `"}}]]` + older, 1, "declared image/png, but its bytes are application/pdf"},
		{"text labelled image/webp", `[["human",[{"type":"image","source_type":"base64","data":"` + imgD + `","mime_type":"image/webp"}]]` + older, 1, "not an image"},
		{"the same bad image twice", `[["human",[{"type":"image","base64":"` + notImage + `"},{"type":"image","base64":"` + notImage + `"}]]` + older, 2, "declared a part of kind image, but its bytes are application/pdf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newMemPutter()
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			// A good image in the same turn is still replaced.
			in := strings.Replace(tt.in, `[["human",[`, `[["human",[{"type":"image","base64":"`+imgA+`","mime_type":"image/png"},`, 1)
			out, stats, err := historyimage.Preprocess(t.Context(), json.RawMessage(in), p, logger)
			if err != nil {
				t.Fatalf("Preprocess: %v", err)
			}
			want := strings.Replace(in, `{"type":"image","base64":"`+imgA+`","mime_type":"image/png"}`, placeholderPart(imgA), 1)
			if string(out) != want {
				t.Errorf("messages:\n got %.400s\nwant %.400s", out, want)
			}
			wantStats := contracts.PreprocessStats{ImagesReplaced: 1, BytesRemoved: int64(len(imgA)), TokensSavedEstimate: 745, PartsSkipped: tt.skipped}
			if stats != wantStats {
				t.Errorf("stats = %+v, want %+v", stats, wantStats)
			}
			if p.puts != 1 {
				t.Errorf("cache writes = %d, want 1 (the good image only)", p.puts)
			}
			if tt.skipped > 0 && !strings.Contains(logs.String(), tt.why) {
				t.Errorf("logs do not give the reason %q: %s", tt.why, logs.String())
			}
		})
	}
}

func TestPreprocessContextCancelled(t *testing.T) {
	in := json.RawMessage(expand(`[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]],["human","last"]]`))
	t.Run("before the call", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, _, err := historyimage.Preprocess(ctx, in, newMemPutter(), nil); !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	})
	t.Run("during a cache write", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		p := newMemPutter()
		p.fail = func(string) bool { cancel(); return true }
		if _, _, err := historyimage.Preprocess(ctx, in, p, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	})
}
