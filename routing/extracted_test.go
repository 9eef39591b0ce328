package routing_test

import (
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/extract"
	"github.com/agentworks/artifact-worker/routing"
)

func describedPDF() contracts.ContentRouteResult {
	return routing.Route(routing.Input{ID: "a1", Filename: "report.pdf", DeclaredMIME: "application/pdf",
		Content: []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), Capabilities: routing.NewCapabilities()})
}

func TestExtractable(t *testing.T) {
	t.Parallel()
	pdf := describedPDF()
	tooLarge := pdf
	tooLarge.Metadata.TooLarge = true
	routed := pdf
	routed.Routing = contracts.RouteFile
	zip := routing.Route(routing.Input{ID: "z", Filename: "a.zip", Content: []byte("PK\x03\x04"), Capabilities: routing.NewCapabilities()})
	text := routing.Route(routing.Input{ID: "t", Filename: "a.txt", Content: []byte("hello")})
	for _, tt := range []struct {
		name string
		res  contracts.ContentRouteResult
		want bool
	}{
		{"described pdf", pdf, true},
		{"too large", tooLarge, false},
		{"sent as a file", routed, false},
		{"zip", zip, false},
		{"text", text, false},
	} {
		if got := routing.Extractable(tt.res); got != tt.want {
			t.Errorf("%s: Extractable = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestWithExtractedText(t *testing.T) {
	t.Parallel()
	pages := []extract.Part{{Number: 1, Text: "one"}, {Number: 3, Text: "three"}}
	tests := []struct {
		name, locale string
		doc          extract.Document
		want         string
	}{
		{"pages", "zh", extract.Document{Unit: extract.UnitPage, Parts: pages, Total: 3, Read: 3, Chars: 8},
			"[已提取文本] report.pdf (artifact:a1)\n--- 第 1 页 ---\none\n--- 第 3 页 ---\nthree"},
		{"truncated, English", "en", extract.Document{Unit: extract.UnitPage, Parts: pages, Total: 3, Read: 3, Chars: 8, Remaining: 92},
			"[Extracted text] report.pdf (artifact:a1)\n--- Page 1 ---\none\n--- Page 3 ---\nthree\n[Truncated: 92 more characters not shown (8 shown of 100)]"},
		{"timed out", "zh", extract.Document{Unit: extract.UnitPage, Parts: pages[:1], Total: 50, Read: 2, Chars: 3, TimedOut: true},
			"[已提取文本] report.pdf (artifact:a1)\n--- 第 1 页 ---\none\n[提取超时：只读取了 2 / 50 页，其余内容未提取]"},
		{"sheets", "en", extract.Document{Unit: extract.UnitSheet, Parts: []extract.Part{{Number: 2, Name: "Q\n3", Text: "a,b"}}, Total: 2, Read: 2, Chars: 3},
			"[Extracted text] report.pdf (artifact:a1)\n--- Sheet 2: Q\uFFFD3 ---\na,b"},
		{"one flowing text", "zh", extract.Document{Unit: extract.UnitNone, Parts: []extract.Part{{Number: 1, Text: "body"}}, Total: 1, Read: 1, Chars: 4},
			"[已提取文本] report.pdf (artifact:a1)\nbody"},
		{"no text at all", "en", extract.Document{Unit: extract.UnitSlide, Total: 2, Read: 2},
			"[Extracted text] report.pdf (artifact:a1)\n(the document contains no text)"},
		{"scanned", "en", extract.Document{Unit: extract.UnitPage, Total: 4, Read: 4, NoText: true},
			"[No text layer] report.pdf (artifact:a1)\nThis PDF has 4 page(s) and no text layer (probably a scan); no text could be extracted.\nSuggestion: use an agent with the file or vision capability, or run OCR first."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := routing.WithExtractedText(describedPDF(), tt.doc, tt.locale)
			if res.Content != tt.want {
				t.Errorf("content:\n%s\nwant\n%s", res.Content, tt.want)
			}
			if res.Routing != contracts.RouteText || res.ContentType != contracts.ContentBinary || res.File != nil {
				t.Errorf("routing %s contentType %s file %v", res.Routing, res.ContentType, res.File)
			}
			x := res.Metadata.Extracted
			if x == nil || x.Total != tt.doc.Total || x.Chars != tt.doc.Chars || x.Remaining != tt.doc.Remaining || x.Truncated != (tt.doc.Remaining > 0) || x.TimedOut != tt.doc.TimedOut || x.NoText != tt.doc.NoText {
				t.Errorf("metadata.extracted = %+v for %+v", x, tt.doc)
			}
		})
	}
}

func TestProcessingFailed(t *testing.T) {
	t.Parallel()
	if got, want := routing.ProcessingFailed(describedPDF(), "").Content, "[文件处理失败: report.pdf]\n错误: 无法读取文件内容\n请检查文件是否损坏"; got != want {
		t.Errorf("zh: %q, want the routing design's %q", got, want)
	}
	got := routing.ProcessingFailed(describedPDF(), "en")
	if !strings.HasPrefix(got.Content, "[File processing failed: report.pdf]\n") || got.Routing != contracts.RouteText {
		t.Errorf("en: %+v", got)
	}
}
