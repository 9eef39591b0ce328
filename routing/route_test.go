package routing_test

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

var (
	created   = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	noCaps    = routing.NewCapabilities()
	allCaps   = routing.NewCapabilities("text", "vision", "file", "audio", "video")
	visionCap = routing.NewCapabilities("text", "vision")
	fileCap   = routing.NewCapabilities("text", "file")
	audioCap  = routing.NewCapabilities("audio")
	videoCap  = routing.NewCapabilities("video")
)

func TestRoute(t *testing.T) {
	png, jpeg, gif, webp := testfiles.PNG(3, 2), testfiles.JPEG(3, 2), testfiles.GIF(3, 2), testfiles.WebP()
	pdf, wav, mp3, mp4 := testfiles.PDF(), testfiles.WAV(), testfiles.MP3(), testfiles.MP4()
	zip, elf, txt := testfiles.ZIP(), testfiles.ELF(), testfiles.Text()

	tests := []struct {
		name     string
		filename string
		declared string
		content  []byte
		caps     routing.Capabilities
		locale   string

		contentType string
		routing     string
		kind        string
		mime        string
		binaryType  string
		// describedAs, when set, must appear in the description (routing text, not text content).
		describedAs []string
	}{
		{"text", "notes.txt", "text/plain", txt, noCaps, "", contracts.ContentText, contracts.RouteText, contracts.KindText, "text/plain", "", nil},
		{"json declared octet-stream", "d.bin", "application/octet-stream", testfiles.JSON(), noCaps, "", contracts.ContentText, contracts.RouteText, contracts.KindText, "application/json", "", nil},
		{"svg is text", "i.svg", "image/svg+xml", testfiles.SVG(), visionCap, "", contracts.ContentText, contracts.RouteText, contracts.KindText, "image/svg+xml", "", nil},

		{"png with vision", "a.png", "image/png", png, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.KindImage, "image/png", "png", nil},
		{"jpeg with vision", "a.jpg", "image/jpeg", jpeg, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.KindImage, "image/jpeg", "jpeg", nil},
		{"gif with vision goes as png (default formats take no gif)", "a.gif", "image/gif", gif, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.KindImage, "image/gif", "gif", nil},
		{"webp with vision", "a.webp", "image/webp", webp, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.KindImage, "image/webp", "webp", nil},
		{"png without vision", "a.png", "image/png", png, fileCap, "", contracts.ContentImage, contracts.RouteText, contracts.KindImage, "image/png", "png", []string{"[无法读取] a.png (artifact:art-1)", "PNG 图片", "视觉"}},
		{"png without vision, en", "a.png", "image/png", png, fileCap, "en", contracts.ContentImage, contracts.RouteText, contracts.KindImage, "image/png", "png", []string{"[Cannot read] a.png (artifact:art-1)", "PNG image", "vision capability"}},
		{"bmp with vision goes as png", "a.bmp", "image/bmp", testfiles.BMP(2, 2), allCaps, "", contracts.ContentImage, contracts.RouteImageURL, contracts.KindImage, "image/bmp", "bmp", nil},
		{"heic is not accepted by default", "a.heic", "image/heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00heicmif1"), allCaps, "en", contracts.ContentImage, contracts.RouteText, contracts.KindImage, "image/heic", "heic", []string{"HEIC image", "does not accept the HEIC format", "PNG, JPEG, WEBP"}},

		{"pdf with file", "r.pdf", "application/pdf", pdf, fileCap, "", contracts.ContentBinary, contracts.RouteFile, contracts.KindDocument, "application/pdf", "pdf", nil},
		{"pdf without file", "r.pdf", "application/pdf", pdf, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindDocument, "application/pdf", "pdf", []string{"PDF 文档", "文件能力"}},
		{"pdf without file, en", "r.pdf", "application/pdf", pdf, visionCap, "en", contracts.ContentBinary, contracts.RouteText, contracts.KindDocument, "application/pdf", "pdf", []string{"PDF document", "file capability"}},
		{"wav with audio", "s.wav", "audio/wav", wav, audioCap, "", contracts.ContentBinary, contracts.RouteFile, contracts.KindAudio, "audio/wav", "wav", nil},
		{"mp3 with audio", "s.mp3", "audio/mpeg", mp3, audioCap, "", contracts.ContentBinary, contracts.RouteFile, contracts.KindAudio, "audio/mpeg", "mp3", nil},
		{"mp3 without audio", "s.mp3", "audio/mpeg", mp3, fileCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindAudio, "audio/mpeg", "mp3", []string{"MP3 音频", "音频能力"}},
		{"mp4 with video: openai-chat cannot carry it", "v.mp4", "video/mp4", mp4, videoCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindVideo, "video/mp4", "mp4", []string{"MP4 视频", "不接受 MP4 格式（可接受：无）"}},
		{"mp4 without video", "v.mp4", "video/mp4", mp4, allCaps.Without("video"), "en", contracts.ContentBinary, contracts.RouteText, contracts.KindVideo, "video/mp4", "mp4", []string{"MP4 video", "video capability"}},
		{"zip with file is not accepted", "a.zip", "application/zip", zip, fileCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindOther, "application/zip", "zip", []string{"ZIP 压缩包", "不接受 ZIP 格式（可接受：PDF）"}},
		{"docx with file is not accepted", "a.docx", "", testfiles.DOCX(), fileCap, "en", contracts.ContentBinary, contracts.RouteText, contracts.KindDocument, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", []string{"DOCX document", "does not accept the DOCX format (it accepts: PDF)"}},
		{"elf with file is not accepted", "prog", "", elf, fileCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindOther, "application/x-executable", "elf", []string{"ELF 可执行文件", "不接受 ELF 格式"}},
		{"zip without file", "a.zip", "application/zip", zip, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindOther, "application/zip", "zip", []string{"ZIP 压缩包", "文件能力"}},
		{"elf without file", "prog", "", elf, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindOther, "application/x-executable", "elf", []string{"ELF 可执行文件"}},
		{"unknown binary without file", "blob", "", []byte{0xde, 0xad, 0, 1, 2}, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindOther, "application/octet-stream", "", []string{"未知二进制文件"}},
		{"unknown binary, en", "blob", "", []byte{0xde, 0xad, 0, 1, 2}, visionCap, "en", contracts.ContentBinary, contracts.RouteText, contracts.KindOther, "application/octet-stream", "", []string{"unknown binary file"}},

		{"png declared text/plain with vision is an image", "a.txt", "text/plain", png, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.KindImage, "image/png", "png", nil},
		{"elf declared image/png with vision is not an image", "a.png", "image/png", elf, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.KindOther, "application/x-executable", "elf", []string{"ELF 可执行文件", "文件能力"}},
		{"text declared image/png with vision is text", "a.png", "image/png", txt, visionCap, "", contracts.ContentText, contracts.RouteText, contracts.KindText, "text/plain", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := routing.Route(routing.Input{
				ID: "art-1", Filename: tt.filename, DeclaredMIME: tt.declared, Size: 999, CreatedAt: created,
				Content: tt.content, Capabilities: tt.caps, Locale: tt.locale,
				WorkspaceID: "ws-1", RelativePath: "out/" + tt.filename,
			})
			if r.ContentType != tt.contentType || r.Routing != tt.routing {
				t.Fatalf("contentType/routing = %s/%s, want %s/%s; content %q", r.ContentType, r.Routing, tt.contentType, tt.routing, r.Content)
			}
			want := contracts.ArtifactMetadata{
				ID: "art-1", Type: tt.kind, Filename: tt.filename, MimeType: tt.mime, Size: int64(len(tt.content)),
				CreatedAt: created, BinaryType: tt.binaryType, Confidence: r.Metadata.Confidence,
				WorkspaceID: "ws-1", RelativePath: "out/" + tt.filename,
			}
			if r.Metadata != want {
				t.Errorf("metadata = %+v\nwant       %+v", r.Metadata, want)
			}
			if r.Metadata.Confidence <= 0 || r.Metadata.Confidence > 1 {
				t.Errorf("confidence %v out of (0, 1]", r.Metadata.Confidence)
			}
			b64 := base64.StdEncoding.EncodeToString(tt.content)
			switch tt.routing {
			case contracts.RouteImageURL:
				if r.File != nil || r.ImageURL == nil || r.ImageURL.Type != "image_url" {
					t.Fatalf("parts: imageUrl %v, file %v", r.ImageURL, r.File)
				}
				p := r.ImageProcessing
				if p == nil || p.Original.Format != tt.binaryType || p.Original.Bytes != int64(len(tt.content)) {
					t.Fatalf("imageProcessing = %+v, want the original %s of %d bytes", p, tt.binaryType, len(tt.content))
				}
				wantURL := "data:" + tt.mime + ";base64," + b64
				if len(p.Actions) > 0 { // converted: the sent format is PNG, as DefaultFormats take no GIF or BMP
					if p.Sent.Format != "png" || !slices.Equal(p.Actions, []string{contracts.ImageConverted}) {
						t.Errorf("imageProcessing = %+v, want converted to png", p)
					}
					wantURL = "data:image/png;base64,"
				}
				if got := r.ImageURL.ImageURL.URL; !strings.HasPrefix(got, wantURL) || len(p.Actions) == 0 && got != wantURL {
					t.Errorf("url = %.60q…, want %.60q…", got, wantURL)
				}
				assertSummary(t, r.Content, tt.filename, b64)
			case contracts.RouteFile:
				if r.ImageURL != nil || r.File == nil || r.File.Type != "file" {
					t.Fatalf("parts: imageUrl %v, file %v", r.ImageURL, r.File)
				}
				wantFile := contracts.FileData{Filename: tt.filename, MimeType: tt.mime, Data: b64}
				if r.File.File != wantFile {
					t.Errorf("file = %+v, want %+v", r.File.File, wantFile)
				}
				assertSummary(t, r.Content, tt.filename, b64)
			default:
				if r.ImageURL != nil || r.File != nil {
					t.Fatalf("routing text with parts: imageUrl %v, file %v", r.ImageURL, r.File)
				}
				if tt.contentType == contracts.ContentText {
					if r.Content != string(tt.content) {
						t.Errorf("text content = %q, want the bytes verbatim %q", r.Content, tt.content)
					}
					return
				}
				for _, s := range tt.describedAs {
					if !strings.Contains(r.Content, s) {
						t.Errorf("description lacks %q:\n%s", s, r.Content)
					}
				}
				if strings.Contains(r.Content, b64) {
					t.Error("description holds the base64 of the content")
				}
			}
		})
	}
}

// assertSummary checks the one line that goes with routed media.
func assertSummary(t *testing.T, content, filename, b64 string) {
	t.Helper()
	if strings.Contains(content, "\n") || !strings.Contains(content, filename+" (artifact:art-1)") {
		t.Errorf("summary = %q, want one line naming %s (artifact:art-1)", content, filename)
	}
	if strings.Contains(content, b64) || strings.Contains(content, "base64") {
		t.Errorf("summary holds base64: %q", content)
	}
}

func TestRouteDescriptionTemplates(t *testing.T) {
	pdf := testfiles.PDF()
	tests := []struct {
		name string
		in   routing.Input
		want string
	}{
		{
			name: "zh, missing capability",
			in:   routing.Input{ID: "a1", Filename: "report.pdf", DeclaredMIME: "application/pdf", Content: pdf},
			want: "[无法读取] report.pdf (artifact:a1)\n类型：PDF 文档\n大小：585 B\n" +
				"当前模型无法读取此类型的内容（需要文件能力）。\n建议：请使用具备文件能力的智能体来读取此文件。",
		},
		{
			name: "en, missing capability",
			in:   routing.Input{ID: "a1", Filename: "report.pdf", DeclaredMIME: "application/pdf", Content: pdf, Locale: "en"},
			want: "[Cannot read] report.pdf (artifact:a1)\nType: PDF document\nSize: 585 B\n" +
				"The current model cannot read this type of content (it needs the file capability).\n" +
				"Suggestion: use an agent with the file capability to read this file.",
		},
		{
			name: "zh, too large",
			in:   routing.Input{ID: "a2", Filename: "big.png", DeclaredMIME: "image/png", Size: 1258291, TooLarge: true, Capabilities: allCaps},
			want: "[无法读取] big.png (artifact:a2)\n类型：PNG 图片\n大小：1.2 MB\n" +
				"文件超过大小限制，内容未加载。\n建议：请提供更小的文件，或拆分后分别读取。",
		},
		{
			name: "en, too large",
			in:   routing.Input{ID: "a2", Filename: "big.png", DeclaredMIME: "image/png", Size: 1258291, TooLarge: true, Capabilities: allCaps, Locale: "EN"},
			want: "[Cannot read] big.png (artifact:a2)\nType: PNG image\nSize: 1.2 MB\n" +
				"The file exceeds the size limit and was not loaded.\nSuggestion: provide a smaller file, or split it and read the parts.",
		},
		{
			name: "unknown locale falls back to zh; id prefix not doubled",
			in:   routing.Input{ID: "artifact:a3", Filename: "x.bin", Content: []byte{0, 1, 2, 3}, Locale: "fr"},
			want: "[无法读取] x.bin (artifact:a3)\n类型：未知二进制文件\n大小：4 B\n" +
				"当前模型无法读取此类型的内容（需要文件能力）。\n建议：请使用具备文件能力的智能体来读取此文件。",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := routing.Route(tt.in).Content; got != tt.want {
				t.Errorf("content =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestRouteTooLargeAndMissingContent(t *testing.T) {
	tests := []struct {
		name        string
		in          routing.Input
		contentType string
		kind        string
		says        string
	}{
		{"too large image", routing.Input{ID: "a", Filename: "p.png", DeclaredMIME: "image/png", Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentImage, contracts.KindImage, "超过大小限制"},
		{"too large text keeps content type text", routing.Input{ID: "a", Filename: "log.txt", Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentText, contracts.KindText, "超过大小限制"},
		{"too large pdf", routing.Input{ID: "a", Filename: "r.pdf", Size: 30 << 20, TooLarge: true, Capabilities: allCaps, Locale: "en"}, contracts.ContentBinary, contracts.KindDocument, "exceeds the size limit"},
		{"too large with a head: detected, never sent", routing.Input{ID: "a", Filename: "x", Content: testfiles.PNG(2, 2), Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentImage, contracts.KindImage, "PNG 图片"},
		{"too large without any metadata", routing.Input{ID: "a", Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentBinary, contracts.KindOther, "未知二进制文件"},
		{"content missing though not too large", routing.Input{ID: "a", Filename: "p.png", Size: 100, Capabilities: allCaps}, contracts.ContentImage, contracts.KindImage, "内容不可用"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := routing.Route(tt.in)
			if r.Routing != contracts.RouteText || r.ImageURL != nil || r.File != nil {
				t.Fatalf("routing %s with parts %v %v, want a description", r.Routing, r.ImageURL, r.File)
			}
			if r.ContentType != tt.contentType || r.Metadata.Type != tt.kind {
				t.Errorf("contentType/kind = %s/%s, want %s/%s", r.ContentType, r.Metadata.Type, tt.contentType, tt.kind)
			}
			if r.Metadata.TooLarge != tt.in.TooLarge || r.Metadata.Size != tt.in.Size {
				t.Errorf("metadata tooLarge/size = %v/%d, want %v/%d", r.Metadata.TooLarge, r.Metadata.Size, tt.in.TooLarge, tt.in.Size)
			}
			if !strings.Contains(r.Content, tt.says) {
				t.Errorf("content lacks %q:\n%s", tt.says, r.Content)
			}
		})
	}
}

func TestRouteEmptyFileIsEmptyText(t *testing.T) {
	for name, content := range map[string][]byte{"nil": nil, "empty": {}} {
		t.Run(name, func(t *testing.T) {
			r := routing.Route(routing.Input{ID: "e", Filename: "a.png", DeclaredMIME: "image/png", Content: content, Capabilities: allCaps})
			if r.ContentType != contracts.ContentText || r.Routing != contracts.RouteText || r.Content != "" || r.ImageURL != nil {
				t.Errorf("empty file routed as %s/%s %q", r.ContentType, r.Routing, r.Content)
			}
		})
	}
}

func TestRouteFilenameFallbacks(t *testing.T) {
	tests := []struct {
		name string
		in   routing.Input
		want string
	}{
		{"filename", routing.Input{ID: "a", Filename: "x.txt", RelativePath: "d/y.txt"}, "x.txt"},
		{"relative path", routing.Input{ID: "a", RelativePath: "d/y.md"}, "y.md"},
		{"id", routing.Input{ID: "a"}, "a"},
		{"nothing", routing.Input{}, "artifact"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.in.Content = []byte("hi")
			if got := routing.Route(tt.in).Metadata.Filename; got != tt.want {
				t.Errorf("filename = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestRouteLabelIsOneLine(t *testing.T) {
	r := routing.Route(routing.Input{ID: "a\nb", Filename: "evil\nname\x00.png", Content: []byte{0, 1}})
	first, _, _ := strings.Cut(r.Content, "\n")
	if first != "[无法读取] evil\uFFFDname\uFFFD.png (artifact:a\uFFFDb)" {
		t.Errorf("first line = %q", first)
	}
	if r.Metadata.Filename != "evil\nname\x00.png" || r.Metadata.ID != "a\nb" {
		t.Errorf("metadata must keep the raw names, got %q %q", r.Metadata.Filename, r.Metadata.ID)
	}
}
