package routing

import (
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// messages holds the human-readable text of one locale. The markers open every text the package
// writes in place of content, which is how Assemble recognises the locale of a ContentRouteResult:
// keep them distinct between locales.
type messages struct {
	cannotRead  string // "[无法读取]": first line of a description
	mediaLabel  string // %s: filename; the text that goes with routed media
	failed      string // %s: filename; the whole processing-failed description
	typeLabel   string
	sizeLabel   string
	notReadable string // design document 000's closing sentence
	tooLarge    string
	// notAccepted: %s is the format, %s the accepted formats (noFormats when none).
	notAccepted, noFormats, unknownFormat string
	followsNext                           string
	dialectCannot                         string
	// unknownFile and unknownID stand in for a missing filename and id, as in 000.
	unknownFile, unknownID string
	friendly               map[string]string // design document 000's _getFriendlyTypeName, by MIME type
	nouns                  map[string]string // category → noun, for the types 000's table lacks
	textFile               string
}

var zh = messages{
	cannotRead:    "[无法读取]",
	mediaLabel:    "工件内容 (%s):",
	failed:        "[文件处理失败: %s]\n错误: 无法读取文件内容\n请检查文件是否损坏",
	typeLabel:     "类型: ",
	sizeLabel:     "大小: ",
	notReadable:   "当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。",
	tooLarge:      "文件超过大小限制，内容未加载。建议提供更小的文件，或拆分后分别读取。",
	notAccepted:   "当前模型接口不接受 %s 格式（可接受：%s）。建议转换为可接受的格式后再读取，或使用支持此格式的智能体。",
	noFormats:     "无",
	unknownFormat: "未知",
	followsNext:   "内容见下一条消息。",
	dialectCannot: "此模型接口无法直接接收这种文件，内容未发送。",
	unknownFile:   "未知文件",
	unknownID:     "未知",
	friendly: map[string]string{
		"image/jpeg":         "JPEG 图片",
		"image/png":          "PNG 图片",
		"image/gif":          "GIF 图片",
		"image/webp":         "WebP 图片",
		"image/bmp":          "BMP 图片",
		"image/svg+xml":      "SVG 图片",
		"application/pdf":    "PDF 文档",
		"application/msword": "Word 文档",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word 文档",
		"application/vnd.ms-excel": "Excel 表格",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "Excel 表格",
		"application/vnd.ms-powerpoint":                                             "PowerPoint 演示",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint 演示",
		"audio/mpeg":                   "MP3 音频",
		"audio/mp3":                    "MP3 音频",
		"audio/wav":                    "WAV 音频",
		"audio/ogg":                    "OGG 音频",
		"video/mp4":                    "MP4 视频",
		"video/webm":                   "WebM 视频",
		"video/quicktime":              "QuickTime 视频",
		"application/zip":              "ZIP 压缩包",
		"application/x-rar-compressed": "RAR 压缩包",
		"application/octet-stream":     "二进制文件",
	},
	nouns: map[string]string{
		contracts.BinaryImage: "图片", contracts.BinaryAudio: "音频", contracts.BinaryVideo: "视频",
		contracts.BinaryDocument: "文档", categoryArchive: "压缩包", categoryExecutable: "可执行文件",
	},
	textFile: "文本文件",
}

var en = messages{
	cannotRead:    "[Cannot read]",
	mediaLabel:    "Artifact content (%s):",
	failed:        "[File processing failed: %s]\nError: unable to read the file content\nPlease check whether the file is damaged",
	typeLabel:     "Type: ",
	sizeLabel:     "Size: ",
	notReadable:   "The current model does not support reading this type of file. Consider creating an agent with the required capability to handle it.",
	tooLarge:      "The file exceeds the size limit and was not loaded. Provide a smaller file, or split it and read the parts.",
	notAccepted:   "The current model's API does not accept the %s format (it accepts: %s). Convert the file to an accepted format and read it again, or use an agent whose model accepts it.",
	noFormats:     "none of this kind",
	unknownFormat: "unknown",
	followsNext:   "The content follows in the next message.",
	dialectCannot: "This model API cannot receive this kind of file directly; its content was not sent.",
	unknownFile:   "unknown file",
	unknownID:     "unknown",
	friendly: map[string]string{
		"image/jpeg":         "JPEG image",
		"image/png":          "PNG image",
		"image/gif":          "GIF image",
		"image/webp":         "WebP image",
		"image/bmp":          "BMP image",
		"image/svg+xml":      "SVG image",
		"application/pdf":    "PDF document",
		"application/msword": "Word document",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document": "Word document",
		"application/vnd.ms-excel": "Excel spreadsheet",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         "Excel spreadsheet",
		"application/vnd.ms-powerpoint":                                             "PowerPoint presentation",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation": "PowerPoint presentation",
		"audio/mpeg":                   "MP3 audio",
		"audio/mp3":                    "MP3 audio",
		"audio/wav":                    "WAV audio",
		"audio/ogg":                    "OGG audio",
		"video/mp4":                    "MP4 video",
		"video/webm":                   "WebM video",
		"video/quicktime":              "QuickTime video",
		"application/zip":              "ZIP archive",
		"application/x-rar-compressed": "RAR archive",
		"application/octet-stream":     "Binary file",
	},
	nouns: map[string]string{
		contracts.BinaryImage: "image", contracts.BinaryAudio: "audio", contracts.BinaryVideo: "video",
		contracts.BinaryDocument: "document", categoryArchive: "archive", categoryExecutable: "executable",
	},
	textFile: "text file",
}

// Categories of "other" binaries that get their own noun.
const (
	categoryArchive    = "archive"
	categoryExecutable = "executable"
)

var archiveFormats = map[string]bool{"zip": true, "gz": true, "tar": true, "7z": true, "rar": true, "bz2": true, "xz": true, "zst": true}
var executableFormats = map[string]bool{"elf": true, "exe": true, "macho": true, "wasm": true}

// formatNames spells formats the way design document 000's table does where it is not simply
// upper case.
var formatNames = map[string]string{"webp": "WebP", "webm": "WebM", "mov": "QuickTime"}

// enMarkers open the English texts: a description, a media label, a processing failure.
var enMarkers = []string{en.cannotRead, "Artifact content (", "[File processing failed: "}

// localeMessages returns the messages of a request locale; anything but "en" is Chinese, the
// default of the design documents.
func localeMessages(locale string) *messages {
	if strings.EqualFold(strings.TrimSpace(locale), contracts.LocaleEN) {
		return &en
	}
	return &zh
}

// contentLocale recognises the locale a ContentRouteResult's content was written in from its
// marker; text content (or anyone else's) is taken as Chinese, the default.
func contentLocale(content string) *messages {
	for _, m := range enMarkers {
		if strings.HasPrefix(content, m) {
			return &en
		}
	}
	return &zh
}

// typeName is the friendly name of a detected type, as design document 000's _getFriendlyTypeName
// gives it: its table first ("PNG 图片", "Word 文档", "二进制文件"); for a type the table lacks, the
// same style, format and category ("FLAC 音频", "TIFF 图片", "7Z 压缩包"); text is "文本文件" or
// "MD 文本文件"; a type with no known format or category is its MIME type, as in 000.
func (m *messages) typeName(d Detection) string {
	if n, ok := m.friendly[d.MIME]; ok {
		return n
	}
	format := formatNames[d.Format]
	if format == "" {
		format = strings.ToUpper(d.Format)
	}
	if d.IsText {
		if d.Format == "" || d.Format == "txt" {
			return m.textFile
		}
		return format + " " + m.textFile
	}
	key := d.Kind
	switch {
	case archiveFormats[d.Format]:
		key = categoryArchive
	case executableFormats[d.Format]:
		key = categoryExecutable
	}
	if noun, ok := m.nouns[key]; ok && d.Format != "" {
		return format + " " + noun
	}
	if d.MIME == "" {
		return m.friendly[octetStream]
	}
	return d.MIME
}
