package routing

import (
	"strings"

	"github.com/agentworks/artifact-worker/messages"
)

var archiveFormats = map[string]bool{"zip": true, "gz": true, "tar": true, "7z": true, "rar": true, "bz2": true, "xz": true, "zst": true}
var executableFormats = map[string]bool{"elf": true, "exe": true, "macho": true, "wasm": true}

// formatNames spells formats the way the design's type-name table does where it is not simply
// upper case.
var formatNames = map[string]string{"webp": "WebP", "webm": "WebM", "mov": "QuickTime"}

// typeName is the friendly name of a detected type in locale (docs/design.md, "Descriptions"):
// the catalogue's table first ("PNG 图片", "Word 文档", "二进制文件"); for a type the table lacks,
// the same style, format and category ("FLAC 音频", "TIFF 图片", "7Z 压缩包"); text is "文本文件"
// or "MD 文本文件"; a type with no known format or category is its MIME type.
func typeName(loc string, d Detection) string {
	if n, ok := messages.Lookup(loc, messages.TypeName(d.MIME)); ok {
		return n
	}
	format := formatNames[d.Format]
	if format == "" {
		format = strings.ToUpper(d.Format)
	}
	if d.IsText {
		if d.Format == "" || d.Format == "txt" {
			return messages.Text(loc, messages.TextFile)
		}
		return format + " " + messages.Text(loc, messages.TextFile)
	}
	key := d.Kind
	switch {
	case archiveFormats[d.Format]:
		key = messages.CategoryArchive
	case executableFormats[d.Format]:
		key = messages.CategoryExecutable
	}
	if noun, ok := messages.Lookup(loc, messages.Noun(key)); ok && d.Format != "" {
		return format + " " + noun
	}
	if d.MIME == "" {
		return messages.Text(loc, messages.TypeName(octetStream))
	}
	return d.MIME
}
