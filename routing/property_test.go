package routing_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
	"pgregory.net/rapid"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// The invariants of the routing design, checked over random inputs:
//
//	INV-1 binary never in text   INV-2 text never encoded   INV-3 same inputs, same route
//	INV-4 complete structure     INV-5 downgrade never throws

var (
	declaredMIMEs = []string{
		"", "text/plain", "text/plain; charset=utf-8", "text/html", "application/json", "text/csv",
		"image/png", "IMAGE/PNG", "image/jpeg", "image/jpg", "image/gif", "image/webp", "image/bmp",
		"image/svg+xml", "application/pdf", "audio/mpeg", "audio/wav", "video/mp4", "application/zip",
		"application/octet-stream", "application/x-custom", "not a mime", "image/png;;;", "text/",
	}
	filenameExts = []string{"", ".txt", ".png", ".jpg", ".gif", ".webp", ".bmp", ".svg", ".pdf", ".mp3", ".wav", ".mp4", ".zip", ".json", ".go", ".exe", ".PNG"}
	capNames     = []string{"text", "vision", "file", "audio", "video", "VISION", "bogus"}
	textRunes    = []rune("aZ09 \t\n\r.,;:{}[]<>\"'%#/\\-_=+中文字👋é\u00a0\ufeff\u2028")
	fixtures     = [][]byte{
		testfiles.PNG(3, 3), testfiles.JPEG(3, 3), testfiles.GIF(3, 3), testfiles.WebP(), testfiles.BMP(2, 2),
		testfiles.PDF(), testfiles.WAV(), testfiles.MP3(), testfiles.MP4(), testfiles.ZIP(), testfiles.ELF(),
		testfiles.Text(), testfiles.JSON(), testfiles.CSV(), testfiles.SVG(), testfiles.GoSource(),
	}
	b64Run = regexp.MustCompile(`[A-Za-z0-9+/]{64,}`)
)

func genContent() *rapid.Generator[[]byte] {
	return rapid.OneOf(
		rapid.SliceOfN(rapid.Byte(), 0, 200),
		rapid.Map(rapid.SliceOfN(rapid.SampledFrom(textRunes), 0, 200), func(r []rune) []byte { return []byte(string(r)) }),
		rapid.SampledFrom(fixtures),
		rapid.Custom(func(t *rapid.T) []byte { // a fixture, cut or with one byte changed
			f := bytes.Clone(rapid.SampledFrom(fixtures).Draw(t, "fixture"))
			if rapid.Bool().Draw(t, "cut") {
				return f[:rapid.IntRange(0, len(f)).Draw(t, "cutAt")]
			}
			f[rapid.IntRange(0, len(f)-1).Draw(t, "at")] = rapid.Byte().Draw(t, "byte")
			return f
		}),
	)
}

type case_ struct {
	in      routing.Input
	data    []byte // the artifact's bytes (also when TooLarge, for the checks)
	caps    []string
	dialect string
}

func genCase() *rapid.Generator[case_] {
	return rapid.Custom(func(t *rapid.T) case_ {
		data := genContent().Draw(t, "data")
		caps := rapid.SliceOfDistinct(rapid.SampledFrom(capNames), rapid.ID[string]).Draw(t, "caps")
		in := routing.Input{
			ID:           rapid.StringMatching(`[a-z0-9-]{1,16}`).Draw(t, "id"),
			Filename:     rapid.StringMatching(`[a-zA-Z0-9 _.-]{0,16}`).Draw(t, "name") + rapid.SampledFrom(filenameExts).Draw(t, "ext"),
			DeclaredMIME: rapid.SampledFrom(declaredMIMEs).Draw(t, "declared"),
			Size:         int64(len(data)),
			Content:      data,
			Capabilities: routing.NewCapabilities(caps...),
			Locale:       rapid.SampledFrom([]string{"", "zh", "en", "fr"}).Draw(t, "locale"),
			WorkspaceID:  rapid.SampledFrom([]string{"", "ws-1"}).Draw(t, "ws"),
		}
		if rapid.IntRange(0, 4).Draw(t, "tooLarge") == 0 {
			in.TooLarge = true
			in.Size = rapid.Int64Range(0, 1<<40).Draw(t, "size")
			if rapid.Bool().Draw(t, "noHead") {
				in.Content = nil
			}
		}
		dialect := rapid.SampledFrom([]string{"", "openai-chat", "anthropic", "other"}).Draw(t, "dialect")
		return case_{in: in, data: data, caps: caps, dialect: dialect}
	})
}

// isPlainText is the oracle for "the bytes are text": valid UTF-8 without NUL, DEL or C0
// controls other than \t \n \r \f and ESC.
func isPlainText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, c := range b {
		if c < 0x20 && !strings.ContainsRune("\t\n\r\f\x1b", rune(c)) || c == 0x7f {
			return false
		}
	}
	return true
}

func sniffsAsText(b []byte) bool {
	for m := mimetype.Detect(b); m != nil; m = m.Parent() {
		if m.Is("text/plain") {
			return true
		}
	}
	return false
}

func TestPropertyBinaryNeverInText(t *testing.T) { // INV-1
	rapid.Check(t, func(t *rapid.T) {
		c := genCase().Draw(t, "case")
		r := routing.Route(c.in)
		textual := isPlainText(c.data)
		if !textual && !c.in.TooLarge && r.ContentType == contracts.ContentText {
			t.Fatalf("non-text bytes routed as text: %q", r.Content)
		}
		carriesText := r.ContentType == contracts.ContentText && !c.in.TooLarge
		if !carriesText {
			assertNoPayload(t, "content", r.Content, c.data)
			assertDesignDocumentShape(t, r)
		}
		for _, d := range contracts.Dialects {
			for _, where := range []string{routing.ToolResultMediaInline, routing.ToolResultMediaFollowUp} {
				a := routing.Assemble(r, d, "", routing.Formats{ToolResultMedia: where})
				for _, s := range textFields(t, a) {
					if carriesText && strings.HasPrefix(s, r.Content) {
						continue // the text itself, checked by INV-2
					}
					assertNoPayload(t, d+" ("+where+") text field", s, c.data)
				}
			}
		}
	})
}

// assertNoPayload fails when s holds the raw bytes, their base64, or anything base64-like.
func assertNoPayload(t *rapid.T, what, s string, data []byte) {
	// A few bytes that are not text can still be part of valid UTF-8 (a lone continuation byte
	// sits inside every Chinese character): look for the raw bytes only when there are enough.
	if !isPlainText(data) && len(data) >= 16 && strings.Contains(s, string(data)) {
		t.Fatalf("%s holds the raw bytes: %q", what, s)
	}
	// Short inputs have base64 short enough to occur by chance in a filename.
	if len(data) >= 12 && strings.Contains(s, base64.StdEncoding.EncodeToString(data)) {
		t.Fatalf("%s holds the base64 of the content: %q", what, s)
	}
	if strings.Contains(s, ";base64,") || b64Run.MatchString(s) {
		t.Fatalf("%s holds base64: %q", what, s)
	}
}

// textFields returns every string a model reads as text in an assembly: a string ToolContent, the
// "text" of every part, and gemini's response fields.
func textFields(t *rapid.T, a contracts.Assembly) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			if s, ok := v["text"].(string); ok {
				out = append(out, s)
			}
			if r, ok := v["response"].(map[string]any); ok { // gemini's functionResponse
				for _, s := range r {
					walk(s)
				}
			}
		}
	}
	var tool any
	if err := json.Unmarshal(a.ToolContent, &tool); err != nil {
		t.Fatalf("toolContent is not JSON: %v", err)
	}
	walk(tool)
	for _, m := range a.FollowUp {
		list := m.Content // openai-chat
		if a.Dialect == contracts.DialectGemini {
			list = m.Parts
		}
		var parts []any
		if err := json.Unmarshal(list, &parts); err != nil {
			t.Fatalf("follow-up content (gemini: parts) is not a list: %v", err)
		}
		for _, p := range parts {
			if p, ok := p.(map[string]any); ok {
				walk(p)
			}
		}
	}
	return out
}

func TestPropertyTextNeverEncoded(t *testing.T) { // INV-2
	rapid.Check(t, func(t *rapid.T) {
		c := genCase().Draw(t, "case")
		r := routing.Route(c.in)
		if c.in.TooLarge {
			return
		}
		if r.ContentType == contracts.ContentText && r.Content != string(c.data) {
			t.Fatalf("text content %q differs from the bytes %q", r.Content, c.data)
		}
		if isPlainText(c.data) && sniffsAsText(c.data) && r.ContentType != contracts.ContentText {
			t.Fatalf("text bytes %q routed as %s/%s", c.data, r.ContentType, r.Routing)
		}
		if r.ContentType == contracts.ContentText {
			var got string
			if err := json.Unmarshal(routing.Assemble(r, contracts.DialectOpenAIChat, "", routing.Formats{}).ToolContent, &got); err != nil || got != string(c.data) {
				t.Fatalf("openai tool content %q (err %v) differs from the text", got, err)
			}
		}
	})
}

func TestPropertyDeterministic(t *testing.T) { // INV-3
	rapid.Check(t, func(t *rapid.T) {
		c := genCase().Draw(t, "case")
		before := bytes.Clone(c.in.Content)
		r1 := routing.Route(c.in)
		in2 := c.in
		in2.Content = bytes.Clone(c.in.Content)
		in2.Capabilities = routing.NewCapabilities(c.caps...)
		r2 := routing.Route(in2)
		if !reflect.DeepEqual(r1, r2) {
			t.Fatalf("two routes differ:\n%+v\n%+v", r1, r2)
		}
		if !bytes.Equal(before, c.in.Content) {
			t.Fatal("Route modified its input")
		}
		if a1, a2 := routing.Assemble(r1, c.dialect, "", routing.Formats{}), routing.Assemble(r2, c.dialect, "", routing.Formats{}); !reflect.DeepEqual(a1, a2) {
			t.Fatalf("two assemblies differ:\n%+v\n%+v", a1, a2)
		}
	})
}

func TestPropertyCompleteStructure(t *testing.T) { // INV-4
	categories := map[string]bool{contracts.BinaryImage: true, contracts.BinaryAudio: true,
		contracts.BinaryVideo: true, contracts.BinaryDocument: true, contracts.BinaryOther: true}
	rapid.Check(t, func(t *rapid.T) {
		c := genCase().Draw(t, "case")
		r := routing.Route(c.in)
		switch r.Routing {
		case contracts.RouteText, contracts.RouteImageURL, contracts.RouteFile:
		default:
			t.Fatalf("routing %q", r.Routing)
		}
		// binaryType is the category of a binary and absent for text; type is the MIME type.
		wantCT := map[string]string{"": contracts.ContentText, contracts.BinaryImage: contracts.ContentImage}[r.Metadata.BinaryType]
		if wantCT == "" {
			wantCT = contracts.ContentBinary
		}
		if (r.Metadata.BinaryType != "" && !categories[r.Metadata.BinaryType]) || r.ContentType != wantCT {
			t.Fatalf("binaryType %q with contentType %q", r.Metadata.BinaryType, r.ContentType)
		}
		if r.Metadata.Type != r.Metadata.MimeType {
			t.Fatalf("type %q is not the MIME type %q", r.Metadata.Type, r.Metadata.MimeType)
		}
		if (r.Routing == contracts.RouteImageURL) != (r.ImageURL != nil) || (r.Routing == contracts.RouteFile) != (r.File != nil) {
			t.Fatalf("routing %s with imageUrl %v, file %v", r.Routing, r.ImageURL != nil, r.File != nil)
		}
		wantSize := int64(len(c.in.Content))
		if c.in.TooLarge {
			wantSize = max(c.in.Size, wantSize)
		}
		md := r.Metadata
		if md.ID != c.in.ID || md.Filename == "" || md.Size != wantSize || md.MimeType == "" || md.TooLarge != c.in.TooLarge ||
			md.Confidence < 0 || md.Confidence > 1 || md.WorkspaceID != c.in.WorkspaceID {
			t.Fatalf("metadata %+v for input id %q size %d", md, c.in.ID, wantSize)
		}
		if r.ImageURL != nil {
			mime, data, ok := strings.Cut(strings.TrimPrefix(r.ImageURL.ImageURL.URL, "data:"), ";base64,")
			p := r.ImageProcessing
			if !ok || r.ImageURL.Type != "image_url" || r.ContentType != contracts.ContentImage || p == nil {
				t.Fatalf("image part %.80q for %s, processing %+v", r.ImageURL.ImageURL.URL, md.MimeType, p)
			}
			dec, err := base64.StdEncoding.DecodeString(data)
			if err != nil || int64(len(dec)) != p.Sent.Bytes {
				t.Fatalf("image data does not decode to %d bytes (err %v)", p.Sent.Bytes, err)
			}
			if len(p.Actions) == 0 && (mime != md.MimeType || !bytes.Equal(dec, c.data)) {
				t.Fatalf("unprocessed image part %.80q is not the content (%s)", r.ImageURL.ImageURL.URL, md.MimeType)
			}
			if len(p.Actions) > 0 && mime != "image/"+p.Sent.Format {
				t.Fatalf("processed image part is %s, sent format %s", mime, p.Sent.Format)
			}
		}
		if r.File != nil {
			if dec, err := base64.StdEncoding.DecodeString(r.File.File.Data); err != nil || !bytes.Equal(dec, c.data) || r.File.Type != "file" || r.File.File.MimeType != md.MimeType {
				t.Fatalf("file part %+v does not carry the content (err %v)", r.File, err)
			}
		}
	})
}

func TestPropertyDowngradeNeverThrows(t *testing.T) { // INV-5
	rapid.Check(t, func(t *rapid.T) {
		c := genCase().Draw(t, "case")
		r := routing.Route(c.in) // a panic fails the check
		need := map[string]string{contracts.BinaryImage: "vision", contracts.BinaryAudio: "audio", contracts.BinaryVideo: "video",
			contracts.BinaryDocument: "file", contracts.BinaryOther: "file"}[r.Metadata.Type]
		missing := need != "" && !c.in.Capabilities.Has(need)
		if missing || c.in.TooLarge {
			if r.Routing != contracts.RouteText {
				t.Fatalf("routed %s without %q (caps %v, tooLarge %v)", r.Routing, need, c.caps, c.in.TooLarge)
			}
			if !strings.HasPrefix(r.Content, "[无法读取] ") && !strings.HasPrefix(r.Content, "[Cannot read] ") ||
				!strings.Contains(r.Content, "(artifact:"+c.in.ID+")") {
				t.Fatalf("no description: %q", r.Content)
			}
		}
		for _, d := range append([]string{"", "x"}, contracts.Dialects...) {
			if a := routing.Assemble(r, d, "", routing.Formats{}); !json.Valid(a.ToolContent) {
				t.Fatalf("invalid toolContent %s", a.ToolContent)
			}
		}
	})
}

// assertDesignDocumentShape checks that what stands in for content has one of the routing design's
// shapes: its four-line description, its three-line processing failure, or its media label.
func assertDesignDocumentShape(t *rapid.T, r contracts.ContentRouteResult) {
	lines := strings.Split(r.Content, "\n")
	switch {
	case r.Routing != contracts.RouteText:
		if len(lines) != 1 || !(strings.HasPrefix(r.Content, "工件内容 (") || strings.HasPrefix(r.Content, "Artifact content (")) || !strings.HasSuffix(r.Content, "):") {
			t.Fatalf("media label %q", r.Content)
		}
	case strings.HasPrefix(r.Content, "[文件处理失败: "), strings.HasPrefix(r.Content, "[File processing failed: "):
		if len(lines) != 3 {
			t.Fatalf("processing failure %q", r.Content)
		}
	default:
		zh := len(lines) == 4 && strings.HasPrefix(lines[0], "[无法读取] ") && strings.HasPrefix(lines[1], "类型: ") && strings.HasPrefix(lines[2], "大小: ")
		en := len(lines) == 4 && strings.HasPrefix(lines[0], "[Cannot read] ") && strings.HasPrefix(lines[1], "Type: ") && strings.HasPrefix(lines[2], "Size: ")
		if !zh && !en || !strings.Contains(lines[0], " (artifact:") {
			t.Fatalf("description is not the routing design's four lines: %q", r.Content)
		}
	}
}
