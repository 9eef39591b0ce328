package routing

import (
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/mediaformat"
	"github.com/agentworks/artifact-worker/messages"
)

// NotReadableNote is the sentence, in the locale, that says the model cannot read what it asked
// for (the description's closing sentence, docs/design.md): given with a history image placeholder when the
// model has no vision.
func NotReadableNote(locale string) string { return messages.Text(locale, messages.NotReadable) }

// NotAcceptedNote is the sentence, in the locale, that says the model's API takes no form of an
// image of this MIME type, naming the image formats it does take (f, for the dialect).
func NotAcceptedNote(locale, mime string, f Formats, dialect string) string {
	accepted := f.orDefault().accepted(normalizeDialect(dialect), contracts.BinaryImage)
	return notAcceptedSentence(locale, mediaformat.Name(mediaformat.NormalizeMIME(mime)), accepted)
}

// DescribeHistoryMedia is the description (docs/design.md, "Descriptions") of media that context.preprocess took
// out of a context for a model that cannot read it, in the locale: the template's four lines, with
// the placeholder that fetches the media back ("[Picture:history_{md5}]") where a description of an
// artifact has "(artifact:{id})", so that a later model that can read it asks for it:
//
//	[无法读取] chart.png ([Picture:history_9a49...])
//	类型: PNG 图片
//	大小: 171 B
//	当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。
//
// A missing filename is the placeholder's id.
func DescribeHistoryMedia(locale, placeholder, filename, mime string, size int64) string {
	d := Detect(DetectInput{Filename: filename, DeclaredMIME: mime, Size: size})
	if strings.TrimSpace(filename) == "" {
		filename = strings.TrimSuffix(placeholder[strings.IndexByte(placeholder, ':')+1:], "]")
	}
	return messages.Text(locale, messages.CannotRead) + " " + printable(filename) + " (" + printable(placeholder) + ")\n" +
		messages.Text(locale, messages.TypeLabel) + typeName(locale, d) + "\n" +
		messages.Text(locale, messages.SizeLabel) + humanSize(size) + "\n" +
		messages.Text(locale, messages.NotReadable)
}
