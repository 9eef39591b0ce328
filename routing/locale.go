package routing

import (
	"github.com/agentworks/artifact-worker/mediaformat"
	"github.com/agentworks/artifact-worker/messages"
)

// typeName is the friendly name of a detected type in locale (docs/design.md, "Descriptions"):
// the catalogue's table first ("PNG 图片", "Word 文档", "二进制文件"); for a type the table lacks,
// the same style, format and category ("FLAC 音频", "TIFF 图片", "7Z 压缩包"); text is "文本文件"
// or "MD 文本文件"; a type with no known format or category is its MIME type.
func typeName(loc string, d Detection) string {
	if n, ok := messages.Lookup(loc, messages.TypeName(d.MIME)); ok {
		return n
	}
	format := mediaformat.Spelling(d.Format)
	if d.IsText {
		if d.Format == "" || d.Format == "txt" {
			return messages.Text(loc, messages.TextFile)
		}
		return format + " " + messages.Text(loc, messages.TextFile)
	}
	key := d.Kind
	switch {
	case mediaformat.IsArchive(d.Format):
		key = messages.CategoryArchive
	case mediaformat.IsExecutable(d.Format):
		key = messages.CategoryExecutable
	}
	if noun, ok := messages.Lookup(loc, messages.Noun(key)); ok && d.Format != "" {
		return format + " " + noun
	}
	if d.MIME == "" {
		return messages.Text(loc, messages.TypeName(mediaformat.OctetStream))
	}
	return d.MIME
}
