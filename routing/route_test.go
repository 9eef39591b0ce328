package routing_test

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
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
		format      string
		// describedAs, when set, must appear in the description (routing text, not text content).
		describedAs []string
	}{
		{"text", "notes.txt", "text/plain", txt, noCaps, "", contracts.ContentText, contracts.RouteText, routing.KindText, "text/plain", "txt", nil},
		{"json declared octet-stream", "d.bin", "application/octet-stream", testfiles.JSON(), noCaps, "", contracts.ContentText, contracts.RouteText, routing.KindText, "application/json", "json", nil},
		{"svg is text", "i.svg", "image/svg+xml", testfiles.SVG(), visionCap, "", contracts.ContentText, contracts.RouteText, routing.KindText, "image/svg+xml", "svg", nil},

		{"png with vision", "a.png", "image/png", png, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.BinaryImage, "image/png", "png", nil},
		{"jpeg with vision", "a.jpg", "image/jpeg", jpeg, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.BinaryImage, "image/jpeg", "jpeg", nil},
		{"gif with vision goes as png (default formats take no gif)", "a.gif", "image/gif", gif, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.BinaryImage, "image/gif", "gif", nil},
		{"webp with vision", "a.webp", "image/webp", webp, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.BinaryImage, "image/webp", "webp", nil},
		{"png without vision", "a.png", "image/png", png, fileCap, "", contracts.ContentImage, contracts.RouteText, contracts.BinaryImage, "image/png", "png", []string{"[无法读取] a.png (artifact:art-1)\n类型: PNG 图片\n", zhClosing}},
		{"png without vision, en", "a.png", "image/png", png, fileCap, "en", contracts.ContentImage, contracts.RouteText, contracts.BinaryImage, "image/png", "png", []string{"[Cannot read] a.png (artifact:art-1)\nType: PNG image\n", enClosing}},
		{"bmp with vision goes as png", "a.bmp", "image/bmp", testfiles.BMP(2, 2), allCaps, "", contracts.ContentImage, contracts.RouteImageURL, contracts.BinaryImage, "image/bmp", "bmp", nil},
		{"heic is not accepted by default", "a.heic", "image/heic", []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00heicmif1"), allCaps, "en", contracts.ContentImage, contracts.RouteText, contracts.BinaryImage, "image/heic", "heic", []string{"Type: HEIC image\n", "does not accept the HEIC format", "PNG, JPEG, WEBP"}},

		{"pdf with file", "r.pdf", "application/pdf", pdf, fileCap, "", contracts.ContentBinary, contracts.RouteFile, contracts.BinaryDocument, "application/pdf", "pdf", nil},
		{"pdf without file", "r.pdf", "application/pdf", pdf, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryDocument, "application/pdf", "pdf", []string{"类型: PDF 文档", zhClosing}},
		{"pdf without file, en", "r.pdf", "application/pdf", pdf, visionCap, "en", contracts.ContentBinary, contracts.RouteText, contracts.BinaryDocument, "application/pdf", "pdf", []string{"Type: PDF document", enClosing}},
		{"wav with audio", "s.wav", "audio/wav", wav, audioCap, "", contracts.ContentBinary, contracts.RouteFile, contracts.BinaryAudio, "audio/wav", "wav", nil},
		{"mp3 with audio", "s.mp3", "audio/mpeg", mp3, audioCap, "", contracts.ContentBinary, contracts.RouteFile, contracts.BinaryAudio, "audio/mpeg", "mp3", nil},
		{"mp3 without audio", "s.mp3", "audio/mpeg", mp3, fileCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryAudio, "audio/mpeg", "mp3", []string{"类型: MP3 音频", zhClosing}},
		{"mp4 with video: openai-chat cannot carry it", "v.mp4", "video/mp4", mp4, videoCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryVideo, "video/mp4", "mp4", []string{"类型: MP4 视频", "不接受 MP4 格式（可接受：无）"}},
		{"mp4 without video", "v.mp4", "video/mp4", mp4, routing.NewCapabilities("text", "vision", "file", "audio"), "en", contracts.ContentBinary, contracts.RouteText, contracts.BinaryVideo, "video/mp4", "mp4", []string{"Type: MP4 video", enClosing}},
		{"zip with file is not accepted", "a.zip", "application/zip", zip, fileCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryOther, "application/zip", "zip", []string{"类型: ZIP 压缩包", "不接受 ZIP 格式（可接受：PDF）"}},
		{"docx with file is not accepted", "a.docx", "", testfiles.DOCX(), fileCap, "en", contracts.ContentBinary, contracts.RouteText, contracts.BinaryDocument, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx", []string{"Type: Word document", "does not accept the DOCX format (it accepts: PDF)"}},
		{"elf with file is not accepted", "prog", "", elf, fileCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryOther, "application/x-executable", "elf", []string{"类型: ELF 可执行文件", "不接受 ELF 格式"}},
		{"zip without file", "a.zip", "application/zip", zip, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryOther, "application/zip", "zip", []string{"类型: ZIP 压缩包", zhClosing}},
		{"elf without file", "prog", "", elf, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryOther, "application/x-executable", "elf", []string{"类型: ELF 可执行文件"}},
		{"unknown binary without file", "blob", "", []byte{0xde, 0xad, 0, 1, 2}, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryOther, "application/octet-stream", "", []string{"类型: 二进制文件\n"}},
		{"unknown binary, en", "blob", "", []byte{0xde, 0xad, 0, 1, 2}, visionCap, "en", contracts.ContentBinary, contracts.RouteText, contracts.BinaryOther, "application/octet-stream", "", []string{"Type: Binary file\n"}},

		{"png declared text/plain with vision is an image", "a.txt", "text/plain", png, visionCap, "", contracts.ContentImage, contracts.RouteImageURL, contracts.BinaryImage, "image/png", "png", nil},
		{"elf declared image/png with vision is not an image", "a.png", "image/png", elf, visionCap, "", contracts.ContentBinary, contracts.RouteText, contracts.BinaryOther, "application/x-executable", "elf", []string{"类型: ELF 可执行文件", zhClosing}},
		{"text declared image/png with vision is text", "a.png", "image/png", txt, visionCap, "", contracts.ContentText, contracts.RouteText, routing.KindText, "text/plain", "txt", nil},
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
			// The routing design's meanings: type is the MIME type, binaryType the category of a
			// binary (absent for text), format the format.
			want := contracts.ArtifactMetadata{
				ID: "art-1", Type: tt.mime, Filename: tt.filename, MimeType: tt.mime, Size: int64(len(tt.content)),
				CreatedAt: created, Format: tt.format, Confidence: r.Metadata.Confidence,
				WorkspaceID: "ws-1", RelativePath: "out/" + tt.filename,
			}
			if tt.kind != routing.KindText {
				want.BinaryType = tt.kind
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
				if p == nil || p.Original.Format != tt.format || p.Original.Bytes != int64(len(tt.content)) {
					t.Fatalf("imageProcessing = %+v, want the original %s of %d bytes", p, tt.format, len(tt.content))
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
				// DataURL is Route's own (never on the wire): the data URL that Data is the tail of.
				wantFile := contracts.FileData{Filename: tt.filename, MimeType: tt.mime, Data: b64, DataURL: "data:" + tt.mime + ";base64," + b64}
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

// The closing sentences of the routing design's description template, and its English mirror.
const (
	zhClosing = "\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。"
	enClosing = "\nThe current model does not support reading this type of file. Consider creating an agent with the required capability to handle it."
)

// assertSummary checks the text that goes with routed media: the routing design's
// "工件内容 ({filename}):".
func assertSummary(t *testing.T, content, filename, b64 string) {
	t.Helper()
	if want := "工件内容 (" + filename + "):"; content != want {
		t.Errorf("summary = %q, want %q", content, want)
	}
	if strings.Contains(content, b64) || strings.Contains(content, "base64") {
		t.Errorf("summary holds base64: %q", content)
	}
}

// TestRouteDesignDocumentExamples runs the three examples under the routing design's description
// template ("各类型二进制文件的降级描述模板"), verbatim apart from the size line, which the worker adds
// as the third line (the task list, task 2.5).
func TestRouteDesignDocumentExamples(t *testing.T) {
	tests := []struct {
		in       routing.Input
		want     string // the routing design's example
		sizeLine string
	}{
		{
			routing.Input{ID: "abc123", Filename: "screenshot.png", DeclaredMIME: "image/png", Content: testfiles.PNG(3, 2), Capabilities: noCaps},
			"[无法读取] screenshot.png (artifact:abc123)\n类型: PNG 图片\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。",
			"大小: " + strconv.Itoa(len(testfiles.PNG(3, 2))) + " B",
		},
		{
			routing.Input{ID: "def456", Filename: "report.pdf", DeclaredMIME: "application/pdf", Content: testfiles.PDF(), Capabilities: noCaps},
			"[无法读取] report.pdf (artifact:def456)\n类型: PDF 文档\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。",
			"大小: 585 B",
		},
		{
			routing.Input{ID: "ghi789", Filename: "recording.mp3", DeclaredMIME: "audio/mpeg", Size: 2621440, TooLarge: false, Content: nil, Capabilities: noCaps},
			"[无法读取] recording.mp3 (artifact:ghi789)\n类型: MP3 音频\n当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。",
			"",
		},
	}
	tests[2].in.Content = testfiles.MP3()
	tests[2].sizeLine = "大小: " + strconv.Itoa(len(testfiles.MP3())) + " B"
	for _, tt := range tests {
		t.Run(tt.in.Filename, func(t *testing.T) {
			r := routing.Route(tt.in)
			lines := strings.Split(r.Content, "\n")
			if r.Routing != contracts.RouteText || len(lines) != 4 {
				t.Fatalf("routing %s, content =\n%s\nwant four lines", r.Routing, r.Content)
			}
			if lines[2] != tt.sizeLine {
				t.Errorf("size line = %q, want %q", lines[2], tt.sizeLine)
			}
			if got := strings.Join(slices.Delete(lines, 2, 3), "\n"); got != tt.want {
				t.Errorf("without the size line =\n%s\nwant the routing design's example\n%s", got, tt.want)
			}
		})
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
			name: "en mirrors the four lines",
			in:   routing.Input{ID: "a1", Filename: "report.pdf", DeclaredMIME: "application/pdf", Content: pdf, Locale: "en"},
			want: "[Cannot read] report.pdf (artifact:a1)\nType: PDF document\nSize: 585 B" + enClosing,
		},
		{
			name: "zh, too large",
			in:   routing.Input{ID: "a2", Filename: "big.png", DeclaredMIME: "image/png", Size: 1258291, TooLarge: true, Capabilities: allCaps},
			want: "[无法读取] big.png (artifact:a2)\n类型: PNG 图片\n大小: 1.2 MB\n" +
				"文件超过大小限制，内容未加载。建议提供更小的文件，或拆分后分别读取。",
		},
		{
			name: "en, too large",
			in:   routing.Input{ID: "a2", Filename: "big.png", DeclaredMIME: "image/png", Size: 1258291, TooLarge: true, Capabilities: allCaps, Locale: "EN"},
			want: "[Cannot read] big.png (artifact:a2)\nType: PNG image\nSize: 1.2 MB\n" +
				"The file exceeds the size limit and was not loaded. Provide a smaller file, or split it and read the parts.",
		},
		{
			name: "unknown locale falls back to zh; id prefix not doubled",
			in:   routing.Input{ID: "artifact:a3", Filename: "x.bin", Content: []byte{0, 1, 2, 3}, Locale: "fr"},
			want: "[无法读取] x.bin (artifact:a3)\n类型: 二进制文件\n大小: 4 B" + zhClosing,
		},
		{
			name: "no filename: the id, as in the routing design",
			in:   routing.Input{ID: "a4", Content: []byte{0, 1, 2, 3}},
			want: "[无法读取] a4 (artifact:a4)\n类型: 二进制文件\n大小: 4 B" + zhClosing,
		},
		{
			name: "no filename and no id: 未知文件, 未知",
			in:   routing.Input{Content: []byte{0, 1, 2, 3}},
			want: "[无法读取] 未知文件 (artifact:未知)\n类型: 二进制文件\n大小: 4 B" + zhClosing,
		},
		{
			name: "no filename and no id, en",
			in:   routing.Input{Content: []byte{0, 1, 2, 3}, Locale: "en"},
			want: "[Cannot read] unknown file (artifact:unknown)\nType: Binary file\nSize: 4 B" + enClosing,
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

// TestRouteFriendlyTypeNames checks the routing design's _getFriendlyTypeName table entry by entry,
// the names in its style for types the table lacks, and the MIME string for a type nobody names.
func TestRouteFriendlyTypeNames(t *testing.T) {
	tests := []struct{ mime, zh, en string }{
		// the routing design's 23 entries.
		{"image/jpeg", "JPEG 图片", "JPEG image"},
		{"image/png", "PNG 图片", "PNG image"},
		{"image/gif", "GIF 图片", "GIF image"},
		{"image/webp", "WebP 图片", "WebP image"},
		{"image/bmp", "BMP 图片", "BMP image"},
		{"image/svg+xml", "SVG 图片", "SVG image"},
		{"application/pdf", "PDF 文档", "PDF document"},
		{"application/msword", "Word 文档", "Word document"},
		{"application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Word 文档", "Word document"},
		{"application/vnd.ms-excel", "Excel 表格", "Excel spreadsheet"},
		{"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Excel 表格", "Excel spreadsheet"},
		{"application/vnd.ms-powerpoint", "PowerPoint 演示", "PowerPoint presentation"},
		{"application/vnd.openxmlformats-officedocument.presentationml.presentation", "PowerPoint 演示", "PowerPoint presentation"},
		{"audio/mpeg", "MP3 音频", "MP3 audio"},
		{"audio/mp3", "MP3 音频", "MP3 audio"},
		{"audio/wav", "WAV 音频", "WAV audio"},
		{"audio/ogg", "OGG 音频", "OGG audio"},
		{"video/mp4", "MP4 视频", "MP4 video"},
		{"video/webm", "WebM 视频", "WebM video"},
		{"video/quicktime", "QuickTime 视频", "QuickTime video"},
		{"application/zip", "ZIP 压缩包", "ZIP archive"},
		{"application/x-rar-compressed", "RAR 压缩包", "RAR archive"},
		{"application/octet-stream", "二进制文件", "Binary file"},
		// Not in the table: its style.
		{"audio/flac", "FLAC 音频", "FLAC audio"},
		{"image/tiff", "TIFF 图片", "TIFF image"},
		{"video/x-msvideo", "AVI 视频", "AVI video"},
		{"application/x-7z-compressed", "7Z 压缩包", "7Z archive"},
		{"application/epub+zip", "EPUB 文档", "EPUB document"},
		{"text/markdown", "MD 文本文件", "MD text file"},
		{"text/plain", "文本文件", "text file"},
		// Nobody names it: the MIME string, as 000 does.
		{"application/x-foo-bar", "application/x-foo-bar", "application/x-foo-bar"},
	}
	for _, tt := range tests {
		t.Run(tt.mime, func(t *testing.T) {
			for loc, want := range map[string]string{"zh": "\n类型: " + tt.zh + "\n", "en": "\nType: " + tt.en + "\n"} {
				// Too large: typed from the declaration alone.
				r := routing.Route(routing.Input{ID: "a", Filename: "f", DeclaredMIME: tt.mime, Size: 10, TooLarge: true, Locale: loc})
				if !strings.Contains(r.Content, want) {
					t.Errorf("%s: description lacks %q:\n%s", loc, want, r.Content)
				}
			}
		})
	}
}

// TestRouteProcessingFailed: content that exists but cannot be used is the routing design's
// processing-failed description, routing text, not an error and not sent.
func TestRouteProcessingFailed(t *testing.T) {
	png, pdf, jpeg, gif, bmp := testfiles.PNG(8, 8), testfiles.PDF(), testfiles.JPEG(8, 8), testfiles.GIF(8, 8), testfiles.BMP(8, 8)
	tests := []struct {
		name string
		in   routing.Input
		want string
	}{
		{"unreadable", routing.Input{ID: "a", Filename: "r.pdf", Content: pdf[:100], Size: int64(len(pdf)), Unreadable: true, Capabilities: allCaps},
			"[文件处理失败: r.pdf]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{"content not supplied", routing.Input{ID: "a", Filename: "p.png", Size: 100, Capabilities: allCaps},
			"[文件处理失败: p.png]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{"truncated png for vision", routing.Input{ID: "a", Filename: "p.png", Content: png[:len(png)-20], Capabilities: allCaps},
			"[文件处理失败: p.png]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{"truncated jpeg for vision", routing.Input{ID: "a", Filename: "p.jpg", Content: jpeg[:len(jpeg)-2], Capabilities: allCaps},
			"[文件处理失败: p.jpg]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{"truncated gif for vision", routing.Input{ID: "a", Filename: "p.gif", Content: gif[:len(gif)-1], Capabilities: allCaps},
			"[文件处理失败: p.gif]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{"truncated pdf for file, en", routing.Input{ID: "a", Filename: "r.pdf", Content: pdf[:len(pdf)-10], Capabilities: allCaps, Locale: "en"},
			"[File processing failed: r.pdf]\nError: unable to read the file content\nPlease check whether the file is damaged"},
		{"bmp that does not decode where it must be converted", routing.Input{ID: "a", Filename: "p.bmp", Content: bmp[:len(bmp)-30], Capabilities: allCaps},
			"[文件处理失败: p.bmp]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
		{"no filename, no id", routing.Input{Size: 100, Capabilities: allCaps},
			"[文件处理失败: 未知文件]\n错误: 无法读取文件内容\n请检查文件是否损坏"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := routing.Route(tt.in)
			if r.Routing != contracts.RouteText || r.ImageURL != nil || r.File != nil || r.Content != tt.want {
				t.Errorf("routing %s, parts %v %v, content =\n%s\nwant\n%s", r.Routing, r.ImageURL, r.File, r.Content, tt.want)
			}
		})
	}
	// Data after the end of the image is not damage (a motion photo carries a video after the JPEG).
	trailing := bytes.Repeat([]byte{0x00, 0xff, 0x11}, 4000)
	for name, content := range map[string][]byte{"p.jpg": append(append([]byte{}, jpeg...), trailing...), "p.png": append(append([]byte{}, png...), trailing...)} {
		if r := routing.Route(routing.Input{ID: "a", Filename: name, Content: content, Capabilities: allCaps}); r.Routing != contracts.RouteImageURL {
			t.Errorf("%s with data after its end: routing %s, content %q", name, r.Routing, r.Content)
		}
	}
	// A JPEG cut in its scan is damaged even when an EXIF thumbnail (with its own end marker) comes
	// before the scan.
	thumb := []byte("Exif\x00\x00\xff\xd8\xff\xd9")
	app1 := append([]byte{0xff, 0xe1, 0, byte(len(thumb) + 2)}, thumb...)
	withThumb := append(append(append([]byte{}, jpeg[:2]...), app1...), jpeg[2:]...)
	if r := routing.Route(routing.Input{ID: "a", Filename: "t.jpg", Content: withThumb, Capabilities: allCaps}); r.Routing != contracts.RouteImageURL {
		t.Fatalf("whole JPEG with a thumbnail: routing %s, content %q", r.Routing, r.Content)
	}
	if r := routing.Route(routing.Input{ID: "a", Filename: "t.jpg", Content: withThumb[:len(withThumb)-2], Capabilities: allCaps}); r.Routing != contracts.RouteText {
		t.Errorf("cut JPEG with a thumbnail: routing %s", r.Routing)
	}
	// A truncated image for a model without vision is not processed: it is described as unreadable.
	r := routing.Route(routing.Input{ID: "a", Filename: "p.png", Content: png[:len(png)-20], Capabilities: noCaps})
	if !strings.HasPrefix(r.Content, "[无法读取] p.png (artifact:a)") {
		t.Errorf("text-only model: content =\n%s", r.Content)
	}
}

func TestRouteTooLargeAndMissingContent(t *testing.T) {
	tests := []struct {
		name        string
		in          routing.Input
		contentType string
		mime        string
		says        string
	}{
		{"too large image", routing.Input{ID: "a", Filename: "p.png", DeclaredMIME: "image/png", Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentImage, "image/png", "超过大小限制"},
		{"too large text keeps content type text", routing.Input{ID: "a", Filename: "log.txt", Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentText, "text/plain", "超过大小限制"},
		{"too large pdf", routing.Input{ID: "a", Filename: "r.pdf", Size: 30 << 20, TooLarge: true, Capabilities: allCaps, Locale: "en"}, contracts.ContentBinary, "application/pdf", "exceeds the size limit"},
		{"too large with a head: detected, never sent", routing.Input{ID: "a", Filename: "x", Content: testfiles.PNG(2, 2), Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentImage, "image/png", "PNG 图片"},
		{"too large without any metadata", routing.Input{ID: "a", Size: 30 << 20, TooLarge: true, Capabilities: allCaps}, contracts.ContentBinary, "application/octet-stream", "类型: 二进制文件"},
		{"content missing though not too large", routing.Input{ID: "a", Filename: "p.png", Size: 100, Capabilities: allCaps}, contracts.ContentImage, "image/png", "[文件处理失败: p.png]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := routing.Route(tt.in)
			if r.Routing != contracts.RouteText || r.ImageURL != nil || r.File != nil {
				t.Fatalf("routing %s with parts %v %v, want a description", r.Routing, r.ImageURL, r.File)
			}
			if r.ContentType != tt.contentType || r.Metadata.Type != tt.mime || r.Metadata.MimeType != tt.mime {
				t.Errorf("contentType/type/mimeType = %s/%s/%s, want %s/%s/%[5]s", r.ContentType, r.Metadata.Type, r.Metadata.MimeType, tt.contentType, tt.mime)
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
		{"nothing", routing.Input{}, "未知文件"},
		{"nothing, en", routing.Input{Locale: "en"}, "unknown file"},
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
