package routing

import (
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// messages holds the human-readable text of one locale. The markers open every line the
// package writes in place of content, which is how Assemble recognises the locale of a
// ContentRouteResult: keep them distinct between locales.
type messages struct {
	cannotRead, imageMarker, fileMarker string // line markers
	typeLabel, sizeLabel                string
	needsCapability                     string // %s: capability name
	suggestCapability                   string // %s: capability name
	tooLarge, suggestSmaller            string
	unavailable, suggestRetry           string
	notAccepted                         string // %s: format, %s: accepted formats
	noFormats, suggestAccepted          string
	followsNext                         string
	dialectCannot                       string
	capabilityNames                     map[string]string
	kindNouns                           map[string]string // kind or category → noun
	unknownBinary, textFile             string
}

var zh = messages{
	cannotRead:        "[无法读取]",
	imageMarker:       "[图片]",
	fileMarker:        "[文件]",
	typeLabel:         "类型：",
	sizeLabel:         "大小：",
	needsCapability:   "当前模型无法读取此类型的内容（需要%s能力）。",
	suggestCapability: "建议：请使用具备%s能力的智能体来读取此文件。",
	tooLarge:          "文件超过大小限制，内容未加载。",
	suggestSmaller:    "建议：请提供更小的文件，或拆分后分别读取。",
	unavailable:       "文件内容不可用，未加载。",
	suggestRetry:      "建议：请稍后重新读取此文件。",
	notAccepted:       "当前模型接口不接受 %s 格式（可接受：%s）。",
	noFormats:         "无",
	suggestAccepted:   "建议：请转换为可接受的格式后再读取，或使用支持此格式的智能体。",
	followsNext:       "内容见下一条消息。",
	dialectCannot:     "此模型接口无法直接接收这种文件，内容未发送。",
	capabilityNames: map[string]string{
		contracts.CapVision: "视觉", contracts.CapFile: "文件", contracts.CapAudio: "音频", contracts.CapVideo: "视频",
	},
	kindNouns: map[string]string{
		contracts.KindImage: "图片", contracts.KindAudio: "音频", contracts.KindVideo: "视频",
		contracts.KindDocument: "文档", contracts.KindText: "文本文件", categoryArchive: "压缩包",
		categoryExecutable: "可执行文件", contracts.KindOther: "文件",
	},
	unknownBinary: "未知二进制文件",
	textFile:      "文本文件",
}

var en = messages{
	cannotRead:        "[Cannot read]",
	imageMarker:       "[Image]",
	fileMarker:        "[File]",
	typeLabel:         "Type: ",
	sizeLabel:         "Size: ",
	needsCapability:   "The current model cannot read this type of content (it needs the %s capability).",
	suggestCapability: "Suggestion: use an agent with the %s capability to read this file.",
	tooLarge:          "The file exceeds the size limit and was not loaded.",
	suggestSmaller:    "Suggestion: provide a smaller file, or split it and read the parts.",
	unavailable:       "The file content was not available and was not loaded.",
	suggestRetry:      "Suggestion: read the file again later.",
	notAccepted:       "The current model's API does not accept the %s format (it accepts: %s).",
	noFormats:         "none of this kind",
	suggestAccepted:   "Suggestion: convert the file to an accepted format and read it again, or use an agent whose model accepts it.",
	followsNext:       "The content follows in the next message.",
	dialectCannot:     "This model API cannot receive this kind of file directly; its content was not sent.",
	capabilityNames: map[string]string{
		contracts.CapVision: "vision", contracts.CapFile: "file", contracts.CapAudio: "audio", contracts.CapVideo: "video",
	},
	kindNouns: map[string]string{
		contracts.KindImage: "image", contracts.KindAudio: "audio", contracts.KindVideo: "video",
		contracts.KindDocument: "document", contracts.KindText: "text file", categoryArchive: "archive",
		categoryExecutable: "executable", contracts.KindOther: "file",
	},
	unknownBinary: "unknown binary file",
	textFile:      "text file",
}

// Categories of "other" binaries that get their own noun.
const (
	categoryArchive    = "archive"
	categoryExecutable = "executable"
)

var archiveFormats = map[string]bool{"zip": true, "gz": true, "tar": true, "7z": true, "rar": true, "bz2": true, "xz": true, "zst": true}
var executableFormats = map[string]bool{"elf": true, "exe": true, "macho": true, "wasm": true}

// localeMessages returns the messages of a request locale; anything but "en" is Chinese, the
// default of the seeds.
func localeMessages(locale string) *messages {
	if strings.EqualFold(strings.TrimSpace(locale), contracts.LocaleEN) {
		return &en
	}
	return &zh
}

// contentLocale recognises the locale a ContentRouteResult's content was written in from its
// marker; text content (or anyone else's) is taken as Chinese, the default.
func contentLocale(content string) *messages {
	for _, m := range []string{en.cannotRead, en.imageMarker, en.fileMarker} {
		if strings.HasPrefix(content, m) {
			return &en
		}
	}
	return &zh
}

// typeName is the friendly name of a detected type: "PNG 图片", "PDF document", "ZIP 压缩包",
// "未知二进制文件".
func (m *messages) typeName(d Detection) string {
	if d.IsText {
		if d.Format == "" || d.Format == "txt" {
			return m.textFile
		}
		return strings.ToUpper(d.Format) + " " + m.textFile
	}
	if d.Format == "" {
		return m.unknownBinary
	}
	key := d.Kind
	switch {
	case archiveFormats[d.Format]:
		key = categoryArchive
	case executableFormats[d.Format]:
		key = categoryExecutable
	}
	return strings.ToUpper(d.Format) + " " + m.kindNouns[key]
}

// capabilityName is the localised name of a capability.
func (m *messages) capabilityName(c string) string {
	if n, ok := m.capabilityNames[c]; ok {
		return n
	}
	return c
}
