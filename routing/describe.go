package routing

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/messages"
)

// reason is why an artifact is described instead of sent.
type reason int

const (
	reasonNoCapability reason = iota
	reasonTooLarge
)

// names are the filename and id as a description prints them: made printable, with design
// document the routing design's fallbacks (未知文件 for a missing filename, which falls back to the id first, and
// 未知 for a missing id).
func names(loc string, filename, id string) (string, string) {
	id = strings.TrimPrefix(id, "artifact:")
	if strings.TrimSpace(filename) == "" {
		filename = id
	}
	if strings.TrimSpace(filename) == "" {
		filename = messages.Text(loc, messages.UnknownFile)
	}
	if strings.TrimSpace(id) == "" {
		id = messages.Text(loc, messages.UnknownID)
	}
	return printable(filename), printable(id)
}

// describe writes the routing design's description of content the model does not get, in four
// lines (the routing design's template plus the size line task 2.5 of the task list asks for):
//
//	[无法读取] report.pdf (artifact:a1)
//	类型: PDF 文档
//	大小: 1.2 MB
//	当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。
//
// The last line is the routing design's sentence when the model lacks the capability; a too-large artifact says so
// instead (the sentence would be wrong there), and describeNotAccepted names the formats.
func describe(loc string, filename, id string, d Detection, size int64, why reason) string {
	closing := messages.Text(loc, messages.NotReadable)
	if why == reasonTooLarge {
		closing = messages.Text(loc, messages.TooLarge)
	}
	return describeWith(loc, filename, id, d, size, closing)
}

// describeNotAccepted describes an artifact whose format the model's API does not accept (or the
// dialect cannot carry), naming the formats of that kind it does accept, in the same four lines:
//
//	[Cannot read] a.docx (artifact:a1)
//	Type: Word document
//	Size: 1.2 KB
//	The current model's API does not accept the DOCX format (it accepts: PDF). Convert the file …
func describeNotAccepted(loc string, filename, id string, d Detection, size int64, accepted []string) string {
	return describeWith(loc, filename, id, d, size, notAcceptedSentence(loc, d.Format, accepted))
}

// notAcceptedSentence says the format is not accepted and names the accepted ones.
func notAcceptedSentence(loc string, format string, accepted []string) string {
	format = strings.ToUpper(format)
	if format == "" {
		format = messages.Text(loc, messages.UnknownFormat)
	}
	list := messages.Text(loc, messages.NoFormats)
	if len(accepted) > 0 {
		list = strings.ToUpper(strings.Join(accepted, ", "))
	}
	return messages.Format(loc, messages.NotAccepted, format, list)
}

func describeWith(loc string, filename, id string, d Detection, size int64, closing string) string {
	filename, id = names(loc, filename, id)
	return messages.Text(loc, messages.CannotRead) + " " + filename + " (artifact:" + id + ")\n" +
		messages.Text(loc, messages.TypeLabel) + typeName(loc, d) + "\n" +
		messages.Text(loc, messages.SizeLabel) + humanSize(size) + "\n" +
		closing
}

// processingFailed is the routing design's description of content that exists but cannot be
// processed: "[文件处理失败: report.pdf]\n错误: 无法读取文件内容\n请检查文件是否损坏".
func processingFailed(loc string, filename, id string) string {
	filename, _ = names(loc, filename, id)
	return messages.Format(loc, messages.ProcessingFailed, filename)
}

// mediaLabel is the text that goes with routed media, the routing design's
// "工件内容 ({filename}):".
func mediaLabel(loc string, filename, id string) string {
	filename, _ = names(loc, filename, id)
	return messages.Format(loc, messages.MediaLabel, filename)
}

// humanSize formats a byte count with binary multiples: "512 B", "1.2 MB".
func humanSize(n int64) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", max(n, 0))
	}
	units := [...]string{"KB", "MB", "GB", "TB", "PB", "EB"}
	f := float64(n) / 1024
	i := 0
	for f >= 1023.95 && i < len(units)-1 {
		f /= 1024
		i++
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// printable makes a filename or id safe inside a one-line label: invalid UTF-8 and control
// characters become U+FFFD and very long names are shortened.
func printable(s string) string {
	const maxRunes = 200
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > maxRunes {
		s = string([]rune(s)[:maxRunes]) + "…"
	}
	return s
}
