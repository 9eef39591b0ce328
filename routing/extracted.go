package routing

import (
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/extract"
	"github.com/agentworks/artifact-worker/messages"
)

// Extractable reports whether res describes a document whose text extract can read instead:
// routed as text (the model cannot take it as a file, or the dialect cannot carry it), not too
// large to have been read, and of a type extract supports. The caller still needs the bytes.
func Extractable(res contracts.ContentRouteResult) bool {
	return res.Routing == contracts.RouteText && !res.Metadata.TooLarge &&
		res.ContentType == contracts.ContentBinary && extract.Supports(res.Metadata.MimeType)
}

// WithExtractedText replaces the description in res (see Extractable) with the text extract
// read from the document, in the locale's words:
//
//	[已提取文本] report.pdf (artifact:a1)
//	--- 第 1 页 ---
//	Quarterly Report 季度报告
//	…
//	[内容已截断：还有 1200 个字符未显示（已显示 100000 个，共 101200 个）]
//
// A document cut by the character limit ends with the truncation line; one stopped by the time
// limit with a line saying how far it was read; a PDF without a text layer says so instead.
// Routing stays text and contentType binary; metadata.extracted records what was read.
func WithExtractedText(res contracts.ContentRouteResult, doc extract.Document, locale string) contracts.ContentRouteResult {
	filename, id := names(locale, res.Metadata.Filename, res.Metadata.ID)
	label := filename + " (artifact:" + id + ")"
	res.Routing, res.ImageURL, res.File = contracts.RouteText, nil, nil
	res.Metadata.Extracted = &contracts.Extraction{
		Unit: unitName(doc.Unit), Total: doc.Total, Read: doc.Read, Chars: doc.Chars,
		Remaining: doc.Remaining, Truncated: doc.Truncated(), TimedOut: doc.TimedOut, NoText: doc.NoText,
	}
	if doc.NoText {
		res.Content = messages.Text(locale, messages.NoTextMarker) + " " + label + "\n" + messages.Format(locale, messages.NoText, doc.Total)
		return res
	}
	var b strings.Builder
	b.Grow(doc.Chars*3 + 256)
	b.WriteString(messages.Text(locale, messages.ExtractedMarker) + " " + label + "\n")
	for _, p := range doc.Parts {
		if f, ok := messages.Lookup(locale, messages.UnitHeader(unitName(doc.Unit))); ok {
			if doc.Unit == extract.UnitSheet {
				fmt.Fprintf(&b, f, p.Number, printable(p.Name))
			} else {
				fmt.Fprintf(&b, f, p.Number)
			}
			b.WriteByte('\n')
		}
		b.WriteString(p.Text)
		b.WriteByte('\n')
	}
	if len(doc.Parts) == 0 && !doc.TimedOut && !doc.Truncated() {
		b.WriteString(messages.Text(locale, messages.ExtractedEmpty) + "\n")
	}
	if doc.Truncated() {
		fmt.Fprintf(&b, messages.Text(locale, messages.Truncated), doc.Remaining, doc.Chars, doc.Chars+doc.Remaining)
		b.WriteByte('\n')
	}
	if doc.TimedOut {
		fmt.Fprintf(&b, messages.Text(locale, messages.TimedOut), doc.Read, doc.Total, messages.Text(locale, messages.UnitNoun(unitName(doc.Unit))))
		b.WriteByte('\n')
	}
	res.Content = strings.TrimSuffix(b.String(), "\n")
	return res
}

// ProcessingFailed replaces res.Content with the routing design's description of a file that
// could not be processed (routing text, never an error):
//
//	[文件处理失败: report.pdf]
//	错误: 无法读取文件内容
//	请检查文件是否损坏
func ProcessingFailed(res contracts.ContentRouteResult, locale string) contracts.ContentRouteResult {
	res.Routing, res.ImageURL, res.File = contracts.RouteText, nil, nil
	res.Content = processingFailed(locale, res.Metadata.Filename, res.Metadata.ID)
	return res
}

func unitName(u extract.Unit) string {
	switch u {
	case extract.UnitPage:
		return "page"
	case extract.UnitSheet:
		return "sheet"
	case extract.UnitSlide:
		return "slide"
	case extract.UnitChapter:
		return "chapter"
	}
	return "document"
}
