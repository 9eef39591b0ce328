package routing

import (
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/extract"
)

// Extractable reports whether res describes a document whose text extract can read instead:
// routed as text (the model cannot take it as a file, or the dialect cannot carry it), not too
// large to have been read, and of a type extract supports. The caller still needs the bytes.
func Extractable(res contracts.ContentRouteResult) bool {
	return res.Routing == contracts.RouteText && !res.Metadata.TooLarge &&
		res.ContentType == contracts.ContentBinary && extract.Supports(res.Metadata.MimeType)
}

// extractionMessages are the words around extracted text, in one locale.
type extractionMessages struct {
	marker, noTextMarker string
	units                map[extract.Unit]string // marker of a part: %d number (and %s name for sheets)
	unitNouns            map[extract.Unit]string // "pages", for the time-limit line
	empty                string
	truncated            string // %d remaining, %d shown, %d total
	timedOut             string // %d read, %d total, %s unit noun
	noText               string // %d pages
}

var extractionZH = extractionMessages{
	marker:       "[已提取文本]",
	noTextMarker: "[无法提取文本]",
	units: map[extract.Unit]string{
		extract.UnitPage: "--- 第 %d 页 ---", extract.UnitSheet: "--- 工作表 %d：%s ---",
		extract.UnitSlide: "--- 第 %d 张幻灯片 ---", extract.UnitChapter: "--- 第 %d 章 ---",
	},
	unitNouns: map[extract.Unit]string{
		extract.UnitNone: "份文档", extract.UnitPage: "页", extract.UnitSheet: "个工作表", extract.UnitSlide: "张幻灯片", extract.UnitChapter: "章",
	},
	empty:     "（文档中没有文字）",
	truncated: "[内容已截断：还有 %d 个字符未显示（已显示 %d 个，共 %d 个）]",
	timedOut:  "[提取超时：只读取了 %d / %d %s，其余内容未提取]",
	noText:    "此 PDF 共 %d 页，没有文本层（可能是扫描件），无法提取文字。\n建议：请使用具备文件或视觉能力的智能体读取，或先进行文字识别（OCR）。",
}

var extractionEN = extractionMessages{
	marker:       "[Extracted text]",
	noTextMarker: "[No text layer]",
	units: map[extract.Unit]string{
		extract.UnitPage: "--- Page %d ---", extract.UnitSheet: "--- Sheet %d: %s ---",
		extract.UnitSlide: "--- Slide %d ---", extract.UnitChapter: "--- Chapter %d ---",
	},
	unitNouns: map[extract.Unit]string{
		extract.UnitNone: "documents", extract.UnitPage: "pages", extract.UnitSheet: "sheets", extract.UnitSlide: "slides", extract.UnitChapter: "chapters",
	},
	empty:     "(the document contains no text)",
	truncated: "[Truncated: %d more characters not shown (%d shown of %d)]",
	timedOut:  "[Time limit reached: read %d of %d %s; the rest was not extracted]",
	noText:    "This PDF has %d page(s) and no text layer (probably a scan); no text could be extracted.\nSuggestion: use an agent with the file or vision capability, or run OCR first.",
}

func extractionLocale(locale string) *extractionMessages {
	if localeMessages(locale) == &en {
		return &extractionEN
	}
	return &extractionZH
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
	m := extractionLocale(locale)
	filename, id := names(localeMessages(locale), res.Metadata.Filename, res.Metadata.ID)
	label := filename + " (artifact:" + id + ")"
	res.Routing, res.ImageURL, res.File = contracts.RouteText, nil, nil
	res.Metadata.Extracted = &contracts.Extraction{
		Unit: unitName(doc.Unit), Total: doc.Total, Read: doc.Read, Chars: doc.Chars,
		Remaining: doc.Remaining, Truncated: doc.Truncated(), TimedOut: doc.TimedOut, NoText: doc.NoText,
	}
	if doc.NoText {
		res.Content = m.noTextMarker + " " + label + "\n" + fmt.Sprintf(m.noText, doc.Total)
		return res
	}
	var b strings.Builder
	b.Grow(doc.Chars*3 + 256)
	b.WriteString(m.marker + " " + label + "\n")
	for _, p := range doc.Parts {
		if f, ok := m.units[doc.Unit]; ok {
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
		b.WriteString(m.empty + "\n")
	}
	if doc.Truncated() {
		fmt.Fprintf(&b, m.truncated, doc.Remaining, doc.Chars, doc.Chars+doc.Remaining)
		b.WriteByte('\n')
	}
	if doc.TimedOut {
		fmt.Fprintf(&b, m.timedOut, doc.Read, doc.Total, m.unitNouns[doc.Unit])
		b.WriteByte('\n')
	}
	res.Content = strings.TrimSuffix(b.String(), "\n")
	return res
}

// ProcessingFailed replaces res.Content with design document 000's description of a file that
// could not be processed (routing text, never an error):
//
//	[文件处理失败: report.pdf]
//	错误: 无法读取文件内容
//	请检查文件是否损坏
func ProcessingFailed(res contracts.ContentRouteResult, locale string) contracts.ContentRouteResult {
	res.Routing, res.ImageURL, res.File = contracts.RouteText, nil, nil
	res.Content = processingFailed(localeMessages(locale), res.Metadata.Filename, res.Metadata.ID)
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
