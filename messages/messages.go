// Package messages is the one catalogue of the worker's user-facing sentences: descriptions of
// content a model does not get, the notes that go with routed media, the words around extracted
// text, the sentences of error replies, tool descriptions, and the MCP server's texts. Every text is
// keyed by an ID and written in each locale (contracts.LocaleZH, the default, and LocaleEN).
//
// The locale is always passed explicitly; nothing here infers it from a text. Text and Format
// take any locale string: "en" (any case, surrounding spaces ignored) is English, anything else
// Chinese, the design's default. docs/design.md, "How to add a locale", says what a new locale
// touches. The catalogue is immutable and safe for concurrent use.
package messages

import (
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// ID names one message of the catalogue.
type ID string

// text is one message in every locale.
type text struct{ zh, en string }

// in is the message in locale.
func (t text) in(locale string) string {
	if IsEnglish(locale) {
		return t.en
	}
	return t.zh
}

// IsEnglish reports whether locale selects English ("en", any case, spaces around ignored);
// every other value selects Chinese, the default.
func IsEnglish(locale string) bool {
	return strings.EqualFold(strings.TrimSpace(locale), contracts.LocaleEN)
}

// Text returns message id in locale, or "" when the catalogue has no such message.
func Text(locale string, id ID) string {
	return catalogue[id].in(locale)
}

// Lookup returns message id in locale and whether the catalogue has it.
func Lookup(locale string, id ID) (string, bool) {
	t, ok := catalogue[id]
	return t.in(locale), ok
}

// Is reports whether s is message id in one of the catalogue's locales: how a reader of the
// worker's own output (historyimage, for the bridge) recognises it.
func Is(id ID, s string) bool {
	t, ok := catalogue[id]
	return ok && (s == t.zh || s == t.en)
}

// Format is Text formatted with args (fmt.Sprintf verbs).
func Format(locale string, id ID, args ...any) string {
	return fmt.Sprintf(catalogue[id].in(locale), args...)
}

// Descriptions of content the model does not get (docs/design.md, "Descriptions").
const (
	// CannotRead: the first words of a description: "[无法读取] report.pdf (artifact:a1)"
	CannotRead ID = "describe.cannotRead"
	// MediaLabel: %s: filename; the text that goes with routed media
	MediaLabel ID = "describe.mediaLabel"
	// ProcessingFailed: %s: filename; the whole description of content that cannot be processed
	ProcessingFailed ID = "describe.processingFailed"
	// TypeLabel: the second line of a description
	TypeLabel ID = "describe.typeLabel"
	// SizeLabel: the third line of a description
	SizeLabel ID = "describe.sizeLabel"
	// NotReadable: the closing sentence when the model lacks the capability
	NotReadable ID = "describe.notReadable"
	// TooLarge: the closing sentence for an artifact over the size limit
	TooLarge ID = "describe.tooLarge"
	// NotAccepted: %s: the format, %s: the accepted formats (NoFormats when none)
	NotAccepted ID = "describe.notAccepted"
	// NoFormats: NotAccepted's list when no format of the kind is accepted
	NoFormats ID = "describe.noFormats"
	// UnknownFormat: NotAccepted's format when it is not known
	UnknownFormat ID = "describe.unknownFormat"
	// FollowsNext: the tool result's note when its media follows in another message
	FollowsNext ID = "describe.followsNext"
	// DialectCannot: added when the dialect cannot carry the routed media
	DialectCannot ID = "describe.dialectCannot"
	// UnknownFile: stands in for a missing filename
	UnknownFile ID = "describe.unknownFile"
	// UnknownID: stands in for a missing id
	UnknownID ID = "describe.unknownID"
	// TextFile: the type name of text: "文本文件", "MD 文本文件"
	TextFile ID = "describe.textFile"
)

// TypeName is the ID of the friendly name of a MIME type ("PNG 图片"), for the types the design's
// table names; Lookup tells whether it has one.
func TypeName(mime string) ID { return ID("type:" + mime) }

// Noun is the ID of the noun of a kind of content (contracts.BinaryImage, BinaryAudio,
// BinaryVideo, BinaryDocument, CategoryArchive, CategoryExecutable), for the types the table lacks.
func Noun(kind string) ID { return ID("noun:" + kind) }

// Categories of "other" binaries that get their own noun.
const (
	CategoryArchive    = "archive"
	CategoryExecutable = "executable"
)

// Extracted text (routing.WithExtractedText).
const (
	// ExtractedMarker opens extracted text: "[已提取文本] report.pdf (artifact:a1)".
	ExtractedMarker ID = "extract.marker"
	// NoTextMarker opens the description of a PDF without a text layer.
	NoTextMarker ID = "extract.noTextMarker"
	// ExtractedEmpty stands for a document with no text.
	ExtractedEmpty ID = "extract.empty"
	// Truncated: %d remaining, %d shown, %d total characters.
	Truncated ID = "extract.truncated"
	// TimedOut: %d read, %d total, %s the unit's noun (UnitNoun).
	TimedOut ID = "extract.timedOut"
	// NoText: %d pages.
	NoText ID = "extract.noText"
)

// UnitHeader is the ID of the line that opens a part of extracted text: %d its number (and %s
// its name for a sheet); unit is "page", "sheet", "slide" or "chapter".
func UnitHeader(unit string) ID { return ID("extract.header:" + unit) }

// UnitNoun is the ID of the plural noun of a unit of extracted text ("页", "pages"); unit is
// "document", "page", "sheet", "slide" or "chapter".
func UnitNoun(unit string) ID { return ID("extract.noun:" + unit) }

// PDF pages sent as images (routing.WithPages).
const (
	// PagesIntro: %s filename, %s id, %d pages in the document, %s the pages sent ("1-3,7").
	PagesIntro ID = "pages.intro"
	// PageLabel: %s filename, %d page, %d pages in the document: the text before a page's image.
	PageLabel ID = "pages.label"
	// PageTextLayer: the line before a page's text layer.
	PageTextLayer ID = "pages.textLayer"
	// PageTextCut: %d characters of the page's text layer not shown.
	PageTextCut ID = "pages.textCut"
	// PagesLeft: %s the pages left out, %s the same as a pages value to ask for them.
	PagesLeft ID = "pages.left"
	// PagesFailed: %s the pages that did not render.
	PagesFailed ID = "pages.failed"
	// PagesTimedOut: rendering stopped at RENDER_TIMEOUT.
	PagesTimedOut ID = "pages.timedOut"
	// PagesMissing: %d pages in the document, when pages named pages past its end.
	PagesMissing ID = "pages.missing"
	// PDFEncrypted: the closing sentence for a PDF that needs a password.
	PDFEncrypted ID = "pages.encrypted"
	// PDFNoPages: the closing sentence for a PDF without pages.
	PDFNoPages ID = "pages.noPages"
)

// Assembly notes.
const (
	// Bridge is the assistant message that goes between tool messages and the follow-up that
	// carries their media, for providers that reject a user message right after a tool message.
	Bridge ID = "assemble.bridge"
	// TurnOmitted stands in for media a turn leaves out to keep the request within the provider's
	// per-request limits (client.Turn, assembleTurn).
	TurnOmitted ID = "turn.omitted"
)

// ToolError is the ID of the model-readable sentence of a wire error code
// ("工件不存在或已被删除"); Lookup tells whether the code has one.
func ToolError(code string) ID { return ID("error:" + code) }

// Error sentences around the codes.
const (
	// ToolFailed: %s the code; the sentence of a code without its own.
	ToolFailed ID = "error.failed"
	// FieldSeparator joins invalid_request's sentence and the field it names.
	FieldSeparator ID = "error.fieldSeparator"
)

// Tool descriptions, as a model reads them (tooldefs, the MCP server).
const (
	GetArtifactDescription  ID = "tool.get_artifact"
	RefDescription          ID = "tool.get_artifact.ref"
	ServiceIDDescription    ID = "tool.get_artifact.service_id"
	CapabilitiesDescription ID = "tool.get_artifact.capabilities"
	// PagesDescription: get_artifact's and get_history_image's optional pages argument.
	PagesDescription           ID = "tool.pages"
	GetHistoryImageDescription ID = "tool.get_history_image"
	ImageMD5Description        ID = "tool.get_history_image.image_md5"
	WriteFileDescription       ID = "tool.write_file"
	PathDescription            ID = "tool.write_file.path"
	ContentDescription         ID = "tool.write_file.content"
	MimeTypeDescription        ID = "tool.write_file.mimeType"
)

// MCP tool errors.
const (
	// NoWorkspace: write_file when the agent has no workspace.
	NoWorkspace ID = "mcp.noWorkspace"
	// InvalidArguments: %s what is wrong with a tool call's arguments.
	InvalidArguments ID = "mcp.invalidArguments"
	// BadHistoryImage: %s the image's hash, %v what is wrong with the image the worker sent.
	BadHistoryImage ID = "mcp.badHistoryImage"
	// NoHistoryContent: %s the image's hash; the worker's answer held neither media nor text.
	NoHistoryContent ID = "mcp.noHistoryContent"
)

// The lines an MCP tool result fitted to its host's size limit adds (mcpserver).
const (
	// HostReduced: image fitted further: original width, height, size; sent width, height,
	// size; the host's bound.
	HostReduced ID = "mcp.host.reduced"
	// HostTooLarge: file replaced by a link: name, size, the bound, where to get it.
	HostTooLarge ID = "mcp.host.tooLarge"
	// HostNoLink: media dropped without a link: the bound.
	HostNoLink ID = "mcp.host.noLink"
	// HostCut: text cut: bytes kept, bytes in all, the bound.
	HostCut ID = "mcp.host.cut"
	// HostGet: where to get the whole file: its URL.
	HostGet ID = "mcp.host.get"
	// HostGetToken: the URL, which needs the worker's HTTP_TOKEN.
	HostGetToken ID = "mcp.host.getToken"
	// HostAskUser: the artifact URI to open.
	HostAskUser ID = "mcp.host.askUser"
)

var catalogue = map[ID]text{
	CannotRead: {
		zh: "[无法读取]",
		en: "[Cannot read]",
	},
	MediaLabel: {
		zh: "工件内容 (%s):",
		en: "Artifact content (%s):",
	},
	ProcessingFailed: {
		zh: "[文件处理失败: %s]\n错误: 无法读取文件内容\n请检查文件是否损坏",
		en: "[File processing failed: %s]\nError: unable to read the file content\nPlease check whether the file is damaged",
	},
	TypeLabel: {
		zh: "类型: ",
		en: "Type: ",
	},
	SizeLabel: {
		zh: "大小: ",
		en: "Size: ",
	},
	NotReadable: {
		zh: "当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。",
		en: "The current model does not support reading this type of file. Consider creating an agent with the required capability to handle it.",
	},
	TooLarge: {
		zh: "文件超过大小限制，内容未加载。建议提供更小的文件，或拆分后分别读取。",
		en: "The file exceeds the size limit and was not loaded. Provide a smaller file, or split it and read the parts.",
	},
	NotAccepted: {
		zh: "当前模型接口不接受 %s 格式（可接受：%s）。建议转换为可接受的格式后再读取，或使用支持此格式的智能体。",
		en: "The current model's API does not accept the %s format (it accepts: %s). Convert the file to an accepted format and read it again, or use an agent whose model accepts it.",
	},
	NoFormats: {
		zh: "无",
		en: "none of this kind",
	},
	UnknownFormat: {
		zh: "未知",
		en: "unknown",
	},
	FollowsNext: {
		zh: "内容见下一条消息。",
		en: "The content follows in the next message.",
	},
	DialectCannot: {
		zh: "此模型接口无法直接接收这种文件，内容未发送。",
		en: "This model API cannot receive this kind of file directly; its content was not sent.",
	},
	UnknownFile: {
		zh: "未知文件",
		en: "unknown file",
	},
	UnknownID: {
		zh: "未知",
		en: "unknown",
	},
	TextFile: {
		zh: "文本文件",
		en: "text file",
	},

	TypeName("image/jpeg"):         {"JPEG 图片", "JPEG image"},
	TypeName("image/png"):          {"PNG 图片", "PNG image"},
	TypeName("image/gif"):          {"GIF 图片", "GIF image"},
	TypeName("image/webp"):         {"WebP 图片", "WebP image"},
	TypeName("image/bmp"):          {"BMP 图片", "BMP image"},
	TypeName("image/svg+xml"):      {"SVG 图片", "SVG image"},
	TypeName("application/pdf"):    {"PDF 文档", "PDF document"},
	TypeName("application/msword"): {"Word 文档", "Word document"},
	TypeName("application/vnd.openxmlformats-officedocument.wordprocessingml.document"):   {"Word 文档", "Word document"},
	TypeName("application/vnd.ms-excel"):                                                  {"Excel 表格", "Excel spreadsheet"},
	TypeName("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"):         {"Excel 表格", "Excel spreadsheet"},
	TypeName("application/vnd.ms-powerpoint"):                                             {"PowerPoint 演示", "PowerPoint presentation"},
	TypeName("application/vnd.openxmlformats-officedocument.presentationml.presentation"): {"PowerPoint 演示", "PowerPoint presentation"},
	TypeName("audio/mpeg"):                   {"MP3 音频", "MP3 audio"},
	TypeName("audio/mp3"):                    {"MP3 音频", "MP3 audio"},
	TypeName("audio/wav"):                    {"WAV 音频", "WAV audio"},
	TypeName("audio/ogg"):                    {"OGG 音频", "OGG audio"},
	TypeName("video/mp4"):                    {"MP4 视频", "MP4 video"},
	TypeName("video/webm"):                   {"WebM 视频", "WebM video"},
	TypeName("video/quicktime"):              {"QuickTime 视频", "QuickTime video"},
	TypeName("application/zip"):              {"ZIP 压缩包", "ZIP archive"},
	TypeName("application/x-rar-compressed"): {"RAR 压缩包", "RAR archive"},
	TypeName("application/octet-stream"):     {"二进制文件", "Binary file"},

	Noun(contracts.BinaryImage):    {"图片", "image"},
	Noun(contracts.BinaryAudio):    {"音频", "audio"},
	Noun(contracts.BinaryVideo):    {"视频", "video"},
	Noun(contracts.BinaryDocument): {"文档", "document"},
	Noun(CategoryArchive):          {"压缩包", "archive"},
	Noun(CategoryExecutable):       {"可执行文件", "executable"},

	ExtractedMarker: {"[已提取文本]", "[Extracted text]"},
	NoTextMarker:    {"[无法提取文本]", "[No text layer]"},
	ExtractedEmpty:  {"（文档中没有文字）", "(the document contains no text)"},
	Truncated:       {"[内容已截断：还有 %d 个字符未显示（已显示 %d 个，共 %d 个）]", "[Truncated: %d more characters not shown (%d shown of %d)]"},
	TimedOut:        {"[提取超时：只读取了 %d / %d %s，其余内容未提取]", "[Time limit reached: read %d of %d %s; the rest was not extracted]"},
	NoText: {
		zh: "此 PDF 共 %d 页，没有文本层（可能是扫描件），无法提取文字。\n建议：请使用具备文件或视觉能力的智能体读取，或先进行文字识别（OCR）。",
		en: "This PDF has %d page(s) and no text layer (probably a scan); no text could be extracted.\nSuggestion: use an agent with the file or vision capability, or run OCR first.",
	},
	UnitHeader("page"):    {"--- 第 %d 页 ---", "--- Page %d ---"},
	UnitHeader("sheet"):   {"--- 工作表 %d：%s ---", "--- Sheet %d: %s ---"},
	UnitHeader("slide"):   {"--- 第 %d 张幻灯片 ---", "--- Slide %d ---"},
	UnitHeader("chapter"): {"--- 第 %d 章 ---", "--- Chapter %d ---"},
	UnitNoun("document"):  {"份文档", "documents"},
	UnitNoun("page"):      {"页", "pages"},
	UnitNoun("sheet"):     {"个工作表", "sheets"},
	UnitNoun("slide"):     {"张幻灯片", "slides"},
	UnitNoun("chapter"):   {"章", "chapters"},

	PagesIntro:    {"%s (artifact:%s)：PDF 文档，共 %d 页。以下依次是第 %s 页：每页先给出页码和文本层，再给出页面图片。", "%s (artifact:%s): a PDF of %d pages. Pages %s follow in order: each page's name and text layer, then its image."},
	PageLabel:     {"%s，第 %d 页（共 %d 页）", "%s, page %d of %d"},
	PageTextLayer: {"文本层：", "Text layer:"},
	PageTextCut:   {"[本页文本层还有 %d 个字符未显示；使用 extract_text 可读取全文]", "[%d more characters of this page's text layer not shown; extract_text reads the whole text]"},
	PagesLeft:     {"第 %s 页未包含；如需查看，请用 pages 参数再次读取（例如 pages \"%s\"）。", "Pages %s not included; ask with pages (for example pages \"%s\")."},
	PagesFailed:   {"第 %s 页无法渲染（页面已损坏）。", "Pages %s could not be rendered (damaged)."},
	PagesTimedOut: {"渲染达到时间上限，已停止。", "Rendering reached its time limit and stopped."},
	PagesMissing:  {"文档共 %d 页，超出末页的页码不存在。", "The document has %d pages; pages past its end do not exist."},
	PDFEncrypted:  {"此 PDF 已加密（需要密码），无法显示其页面或文字。", "The PDF is encrypted (it needs a password): its pages and text cannot be shown."},
	PDFNoPages:    {"此 PDF 没有页面。", "The PDF has no pages."},

	Bridge:      {"工具结果中的内容见下一条消息。", "The tool results' content follows in the next message."},
	TurnOmitted: {"[内容未发送：本次请求已达到模型接口的单次请求上限（图片数量、总大小或 PDF 页数）。请单独再次读取此内容。]", "[Content not sent: this request reached the model API's per-request limits (images, total size or PDF pages). Read this content again on its own.]"},

	ToolError(contracts.CodeArtifactNotFound):     {"工件不存在或已被删除", "The artifact does not exist or has been deleted"},
	ToolError(contracts.CodeInvalidArtifactID):    {"工件标识符无效", "The artifact identifier is invalid"},
	ToolError(contracts.CodePathTraversalBlocked): {"路径超出工作区范围，已被拦截", "The path leaves its workspace and was blocked"},
	ToolError(contracts.CodeInvalidPath):          {"工作区文件路径无效", "The workspace file path is invalid"},
	ToolError(contracts.CodePermissionDenied):     {"存储拒绝访问此工件", "Storage denied access to this artifact"},
	ToolError(contracts.CodeInvalidRequest):       {"工具调用参数无效", "The tool call's arguments are invalid"},
	ToolError(contracts.CodePayloadTooLarge):      {"请求过大，无法处理", "The request is too large to process"},
	ToolError(contracts.CodeUnavailable):          {"服务暂时不可用，请稍后重试", "The service is temporarily unavailable; try again later"},
	ToolError(contracts.CodeInternal):             {"工具执行时发生内部错误", "An internal error occurred while running the tool"},
	ToolError(contracts.CodeDuplicateRequest):     {"重复的请求，未再次执行", "Duplicate request; it was not run again"},
	ToolError(contracts.CodeExpired):              {"请求已超过截止时间，未执行", "The request passed its deadline and was not run"},
	ToolError(contracts.CodeInvalidImageID):       {"无效的图片标识符", "Invalid image identifier"},
	ToolError(contracts.CodeImageNotFound):        {"图片不存在或已过期", "The image does not exist or has expired"},
	ToolFailed:                                    {"工具调用失败（%s）", "The tool call failed (%s)"},
	FieldSeparator:                                {"：", ": "},

	GetArtifactDescription: {
		zh: "读取工件内容。按当前模型的能力返回：文本原样返回；模型能读取的图片或文件以图片或文件内容返回；模型无法读取的二进制内容返回文本描述（名称、类型、大小），不会把 base64 放进文本。",
		en: "Read an artifact. What comes back follows the current model's capabilities: text as it is; an image or file the model can read as image or file content; binary content it cannot read as a short text description (name, type, size), never base64 in text.",
	},
	RefDescription: {
		zh: "工件引用：artifact:{id}，或工作区文件的工件ID ws:{workspaceId}:{base64Path}",
		en: "Artifact reference: artifact:{id}, or a workspace file's artifact ID ws:{workspaceId}:{base64Path}",
	},
	ServiceIDDescription: {
		zh: "模型在能力注册表中的 service_id（可选，默认用服务器设置）",
		en: "The model's service_id in the capability registry (optional; default: the server's setting)",
	},
	CapabilitiesDescription: {
		zh: "模型能读取的输入（可选，覆盖注册表）：text、vision、file、audio、video",
		en: "What the model can read (optional; replaces the registry's entry): text, vision, file, audio, video",
	},
	PagesDescription: {
		zh: "PDF 要发送的页（可选）：如 \"1-3,7\" 或 \"21-\"，页码从 1 开始；用于读取上次回答未包含的页",
		en: "The PDF's pages to send (optional): such as \"1-3,7\" or \"21-\", numbered from 1; for pages an earlier answer left out",
	},
	GetHistoryImageDescription: {
		zh: "获取历史对话中用户上传的图片。\n当用户询问历史图片的细节（如\"刚才那张图的右上角是什么\"）时，\n使用此工具获取图片内容进行分析。\n输入参数为图片的 MD5 哈希值（从 [Picture:history_xxx] 占位符中提取）。\n文档等其他文件以 [File:history_xxx] 占位符出现，同样传入其中的哈希值。",
		en: "Get an image the user uploaded earlier in the conversation.\nWhen the user asks about details of an earlier image (such as \"what is in the top right corner of that picture\"),\nuse this tool to get the image and analyse it.\nThe input is the image's MD5 hash (taken from the [Picture:history_xxx] placeholder).\nDocuments and other files appear as [File:history_xxx] placeholders: pass their hash the same way.",
	},
	ImageMD5Description: {
		zh: "图片的 MD5 哈希值（从 [Picture:history_xxx] 占位符中提取；文件取自 [File:history_xxx]）",
		en: "The image's MD5 hash (taken from the [Picture:history_xxx] placeholder; for a file, from [File:history_xxx])",
	},
	WriteFileDescription: {"在工作空间内创建或修改文件。", "Create or modify a file in the workspace."},
	PathDescription:      {"文件的相对路径", "Relative path of the file"},
	ContentDescription:   {"文件内容", "Content of the file"},
	MimeTypeDescription: {
		zh: "文件的MIME类型，如 'text/javascript', 'application/json', 'text/html' 等。必须使用标准MIME类型。",
		en: "MIME type of the file, such as 'text/javascript', 'application/json', 'text/html'. Must be a standard MIME type.",
	},

	HostReduced:  {"（图片已从 %dx%d、%s 缩小为 %dx%d、%s，以符合当前宿主 %s 的工具结果上限。）", "(Image reduced from %dx%d, %s to %dx%d, %s to fit this host's %s tool results.)"},
	HostTooLarge: {"%s（%s）超出当前宿主的工具结果上限（%s），未附上。%s", "%s (%s) is too large for this host's tool results (at most %s), so it is not attached. %s"},
	HostNoLink:   {"图片超出当前宿主的工具结果上限（%s），且无法缩小到该上限以内。", "The image is too large for this host's tool results (at most %s) and cannot be reduced to fit."},
	HostCut:      {"[已截断：显示前 %d 字节，共 %d 字节；当前宿主的工具结果上限为 %s。]", "[Cut: the first %d of %d bytes; this host's tool results take at most %s.]"},
	HostGet:      {"完整文件：GET %s", "The whole file: GET %s"},
	HostGetToken: {"完整文件：GET %s，需带请求头 \"Authorization: Bearer\" 和工作器的 HTTP_TOKEN。", "The whole file: GET %s with the header \"Authorization: Bearer\" and the worker's HTTP_TOKEN."},
	HostAskUser:  {"请让用户打开 %s。", "Ask the user to open %s."},

	NoWorkspace:      {"当前智能体未分配工作空间", "No workspace is assigned to the current agent"},
	InvalidArguments: {"工具参数无效：%s", "invalid arguments: %s"},
	NoHistoryContent: {"历史内容 %s：工作器既未返回媒体也未返回文本", "history image %s: the worker sent neither media nor text"},
	BadHistoryImage:  {"历史图片 %s 无法读取：%v", "history image %s: %v"},
}
