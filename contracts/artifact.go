package contracts

import (
	"encoding/json"
	"slices"
	"time"
)

// Dialects of the assembled message parts: the API whose tool-result shape Assembly follows.
const (
	DialectOpenAIChat      = "openai-chat"      // OpenAI Chat Completions
	DialectOpenAIResponses = "openai-responses" // OpenAI Responses
	DialectAnthropic       = "anthropic"        // Anthropic Messages
	DialectGemini          = "gemini"           // Google Gemini generateContent
	DialectBedrockConverse = "bedrock-converse" // Amazon Bedrock Converse
	DialectLangChain       = "langchain"        // LangChain ToolMessage, v1 standard content blocks (Python: base64, mime_type)
	DialectLangChainJS     = "langchain-js"     // LangChain.js ToolMessage, standard content blocks (data, mimeType)
)

// DefaultDialect is the dialect of a request that names none: OpenAI Chat Completions, the shape
// the design documents' runtime writes.
const DefaultDialect = DialectOpenAIChat

// Dialects lists every dialect, the default (openai-chat) first.
var Dialects = []string{DialectOpenAIChat, DialectOpenAIResponses, DialectAnthropic, DialectGemini, DialectBedrockConverse, DialectLangChain, DialectLangChainJS}

// Locales of human-readable text produced by the worker. Chinese is the default, as in the design.
const (
	LocaleZH = "zh"
	LocaleEN = "en"
)

// DefaultLocale is the locale of a request that names none: Chinese, as in the design documents.
const DefaultLocale = LocaleZH

// Locales lists every locale, the default first: the one list that request validation, the
// tool definitions, `worker mcp`, `worker tools` and the generated schemas and client constants
// read. A new locale is added here and in the message catalogue (package messages).
var Locales = []string{LocaleZH, LocaleEN}

// KnownLocale reports whether name is one of Locales (exactly: no case folding).
func KnownLocale(name string) bool { return slices.Contains(Locales, name) }

// LocaleList is Locales for people: "zh or en" (a help text's or an error's words).
func LocaleList() string { return orList(Locales) }

// orList joins names as "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	out := ""
	for i, n := range names[:len(names)-1] {
		if i > 0 {
			out += ", "
		}
		out += n
	}
	return out + " or " + names[len(names)-1]
}

// Capability names of the LLM service registry.
const (
	CapText   = "text"
	CapVision = "vision"
	CapFile   = "file"
	CapAudio  = "audio"
	CapVideo  = "video"
)

// Capabilities returns the input capability names in their canonical order (text, vision, file,
// audio, video): the set a request's or the registry's capabilities are checked against.
func Capabilities() []string {
	return []string{CapText, CapVision, CapFile, CapAudio, CapVideo}
}

// CapabilityList is Capabilities for people: "text, vision, file, audio or video".
func CapabilityList() string { return orList(Capabilities()) }

// KnownCapability reports whether name is one of Capabilities.
func KnownCapability(name string) bool {
	return slices.Contains(Capabilities(), name)
}

// GetArtifactRequest is the body of a request published on tool.get_artifact (wire contract v1).
type GetArtifactRequest struct {
	// Caller-chosen id, unique per request. Echoed in the reply; also sent as the Nats-Msg-Id
	// header for de-duplication. Missing or empty: invalid_request (field request_id),
	// dead-lettered. At most 256 bytes of UTF-8; a wrong type, invalid UTF-8 or a longer value:
	// invalid_request (field request_id), dead-lettered, like a missing one. Other spellings
	// (requestId, ...) are refused: invalid_request naming them.
	//
	//schema:minLength 1
	//schema:maxLength MaxIDLen
	RequestID string `json:"request_id"`
	// "artifact:{id}", a bare id, or a workspace id "ws:{workspaceId}:{base64url(relativePath)
	// without padding}". Empty: invalid_request (field ref); malformed id: invalid_artifact_id;
	// unknown: artifact_not_found. At most 2048 bytes (longer: invalid_request).
	//
	//schema:minLength 1
	//schema:examples ["artifact:a1", "a1", "ws:team-7:cmVwb3J0cy9xMS5wZGY"]
	//schema:maxLength MaxRefLen
	Ref string `json:"ref"`
	// The agent's LLM service id in the worker's capability registry (llmservices.json). Unknown or
	// absent: text only. At most 256 bytes.
	//
	//schema:maxLength MaxIDLen
	//schema:alias serviceId the routing design
	ServiceID string `json:"service_id,omitempty"`
	// Go: Capabilities, when present (even empty), overrides the registry for this request. nil
	// leaves the field out (the registry's entry for ServiceID applies); []string{} sends [] (text
	// only).
	//
	// Explicit input capabilities of the model; when present (even []), they replace the registry's
	// entry for service_id. An unknown name: invalid_request (field capabilities).
	//
	//schema:enum Capabilities
	Capabilities []string `json:"capabilities,omitzero"`
	// Dialect of result.assembly. Absent: openai-chat. Anything else: invalid_request (field
	// dialect). Letter case and surrounding spaces are ignored: the worker canonicalizes the name
	// ("Anthropic" is anthropic) and assembly.dialect carries the canonical name; send the
	// canonical names listed here.
	//
	//schema:enum Dialects
	Dialect string `json:"dialect,omitempty"`
	// Language of descriptions written in place of content. Absent: zh. Anything else:
	// invalid_request (field locale).
	//
	//schema:enum Locales
	Locale string `json:"locale,omitempty"`
	// Where the reply carries the artifact's media (base64). both (default): imageUrl/file and
	// assembly, the media twice; result: imageUrl/file only, no assembly; assembly: assembly only,
	// no imageUrl/file (contentType, routing, content and metadata stay). The default keeps callers
	// written before this field working whichever half they read; a caller that reads one half
	// should ask for it, which halves the reply of an image or file. Anything else: invalid_request
	// (field media).
	//
	//schema:enum MediaModes
	Media string `json:"media,omitempty"`
	// true: a document the model cannot take as a file (PDF, DOCX, XLSX, PPTX, ODT, ODS, ODP, EPUB)
	// is answered with its extracted text (routing text, first line "[已提取文本] report.pdf
	// (artifact:...)" or "[Extracted text] ...", page, sheet, slide or chapter markers inside, a
	// last line when cut at EXTRACT_MAX_CHARS or stopped at EXTRACT_TIMEOUT), metadata.extracted
	// says what was read; a scanned PDF says it has no text layer; an encrypted or corrupt document
	// gets the processing-failure description, never an error. false: the description, even when
	// the registry entry asks for extraction. Absent: the registry entry's extractText (default
	// false). A model that takes the document as a file still gets the file.
	ExtractText *bool `json:"extract_text,omitempty"`
	// Which pages of a PDF to send as images to a model that reads images but takes no PDF
	// (routing pages): comma-separated pages and ranges, 1-based ("1-3,7"; "10-" is page 10 to the
	// end). Absent: from the first page, up to PDF_MAX_PAGES and the provider's per-request limits;
	// the result names the pages left out. Malformed (a word, 0, a range that runs backwards, more
	// than 100 entries): invalid_request (field pages). Other documents and models ignore it.
	//
	//schema:maxLength MaxPagesLen
	//schema:examples ["1-3,7", "21-"]
	Pages string `json:"pages,omitempty"`
}

// Where a reply carries media (the "media" request field of tool.get_artifact and
// tool.get_history_image).
//
// The default is MediaBoth so that callers written before the field existed keep working whichever
// half they read (contract v1 grows by optional fields only). A caller that reads one half should ask
// for it: the reply of an image or file is then half the size, so half the base64, JSON and claim-check
// traffic.
const (
	// MediaBoth: the design's fields (imageUrl/file, or content blocks) and the assembly both carry the
	// media; the reply holds it twice.
	MediaBoth = "both"
	// MediaResult: only the design's fields carry the media; assembly is left out.
	MediaResult = "result"
	// MediaAssembly: only the assembly carries the media; imageUrl and file (or the content blocks)
	// are left out, everything else of the result stays.
	MediaAssembly = "assembly"
)

// Content types and routings of a ContentRouteResult.
const (
	ContentText   = "text"
	ContentImage  = "image"
	ContentBinary = "binary"

	RouteText     = "text"
	RouteImageURL = "image_url"
	RouteFile     = "file"
	// RoutePages: a PDF sent as page images, each with its text layer (pages holds them), to a
	// model that reads images but takes no PDF.
	RoutePages = "pages"
)

// Binary categories (ArtifactMetadata.BinaryType): the routing design's detectBinaryType result.
// Text artifacts have no binary category.
const (
	BinaryImage    = "image"
	BinaryAudio    = "audio"
	BinaryVideo    = "video"
	BinaryDocument = "document"
	BinaryOther    = "other"
)

// ContentRouteResult is the design's routing result; field names are kept so that a runtime which
// already reads a ContentRouteResult needs no change. Base64 only ever appears in ImageURL.ImageURL.URL
// and File.File.Data, never in Content.
type ContentRouteResult struct {
	// What the artifact is.
	//
	//schema:enum ContentTypes
	ContentType string `json:"contentType"`
	// How it reaches the model: text (content holds the text or a description), image_url (imageUrl
	// is set, unless the request asked for media "assembly"), file (file is set, unless media
	// "assembly").
	//
	//schema:enum Routings
	Routing string `json:"routing"`
	// routing text: the text byte-for-byte (contentType text), or a description in the request's
	// locale: the routing design's four-line template ([无法读取] {filename} (artifact:{id}) /
	// 类型: {friendlyType} / 大小: {size} / 当前模型不支持读取此类文件。建议创建具备相应能力的智能体协助处理。;
	// English: [Cannot read] ... / Type: ... / Size: ... / The current model does not support
	// reading this type of file. Consider creating an agent with the required capability to handle
	// it.; a too-large artifact or an image format no model API accepts says so on the last line),
	// or, for content that exists but cannot be processed, the routing design's [文件处理失败: {filename}]\n错误:
	// 无法读取文件内容\n请检查文件是否损坏 ([File processing failed: {filename}]\nError: unable to read
	// the file content\nPlease check whether the file is damaged). routing image_url/file: the routing design's
	// label 工件内容 ({filename}): (Artifact content ({filename}):).
	Content  string           `json:"content"`
	ImageURL *ImageURLPart    `json:"imageUrl,omitempty"`
	File     *FilePart        `json:"file,omitempty"`
	Metadata ArtifactMetadata `json:"metadata"`
	// What was done to a routed image to fit the model (routing image_url): the original and the
	// sent format, dimensions and bytes, and the actions taken.
	ImageProcessing *ImageProcessing `json:"imageProcessing,omitempty"`
	// routing pages: the PDF's pages sent as images, and those left out.
	Pages *PagesResult `json:"pages,omitempty"`
}

// PagesResult says which pages of a PDF went to the model as images (routing pages). Page lists
// are written as the request field pages reads them ("1-3,7").
type PagesResult struct {
	// Pages in the document.
	//
	//schema:minimum 1
	Total int `json:"total"`
	// The pages sent, in order.
	Sent string `json:"sent"`
	// Pages asked for (or, without pages, in the document) that were not sent: past PDF_MAX_PAGES or
	// the provider's per-request limits, or after RENDER_TIMEOUT. The text names them so that the
	// model can ask for them with pages.
	Left string `json:"left,omitempty"`
	// Pages that could not be rendered (damaged).
	Failed string `json:"failed,omitempty"`
	// RENDER_TIMEOUT stopped rendering: left holds the rest.
	TimedOut bool `json:"timedOut,omitempty"`
	// One entry per page sent, in order. Left out with media "assembly" (the assembly carries
	// them).
	Images []PageImage `json:"images,omitempty"`
}

// PageImage is one page sent as an image.
type PageImage struct {
	// The page's number, 1-based.
	//
	//schema:minimum 1
	Page int `json:"page"`
	// The text part sent before the image: the page's name ("report.pdf, page 2 of 9") and its
	// text layer when it has one.
	Text     string       `json:"text"`
	ImageURL ImageURLPart `json:"imageUrl"`
	// The rendered page as sent: format (png, or jpeg where that is smaller), pixels and bytes
	// (original: the page as drawn).
	ImageProcessing ImageProcessing `json:"imageProcessing"`
}

// Image processing actions (ImageProcessing.Actions).
const (
	ImageOriented   = "oriented"    // the JPEG's EXIF orientation was applied
	ImageFirstFrame = "first_frame" // an animated GIF was reduced to its first frame
	ImageConverted  = "converted"   // the format changed (BMP, TIFF, GIF to PNG or JPEG)
	ImageDownscaled = "downscaled"  // made smaller to fit the model's limits
	ImageReencoded  = "reencoded"   // re-encoded in its own format and size (metadata dropped)
)

// ImageProcessing is set with routing image_url: what was done to fit the image to the model
// (docs/providers.md limits). actions empty or absent: sent as it was.
type ImageProcessing struct {
	Original ImageInfo `json:"original"`
	Sent     ImageInfo `json:"sent"`
	// oriented: EXIF orientation applied; first_frame: an animated GIF reduced to its first frame;
	// converted: format changed; downscaled: made smaller for the model's limits; reencoded:
	// re-encoded as it was (metadata dropped).
	//
	//schema:enum ImageActions
	Actions []string `json:"actions,omitempty"`
}

// ImageInfo is one image's format, dimensions and size in bytes.
type ImageInfo struct {
	// png, jpeg, gif, webp, bmp, tiff, ...
	Format string `json:"format"`
	// Pixels; 0 when the format is not decoded here.
	//
	//schema:minimum 0
	Width int `json:"width"`
	//schema:minimum 0
	Height int `json:"height"`
	// Size of the encoded image (not its base64).
	//
	//schema:minimum 0
	Bytes int64 `json:"bytes"`
}

// ImageURLPart is an OpenAI-style image part: {"type":"image_url","image_url":{"url":"data:..."}}.
type ImageURLPart struct {
	//schema:const "image_url"
	Type     string   `json:"type"`
	ImageURL ImageURL `json:"image_url"`
}

// ImageURL holds the data URL of an ImageURLPart.
//
//schema:inline
type ImageURL struct {
	// data:{mime};base64,{data}
	//
	//schema:pattern "^data:[^;,]+;base64,"
	URL string `json:"url"`
}

// FilePart is the design's file part: {"type":"file","file":{"filename","mimeType","data"}}.
type FilePart struct {
	//schema:const "file"
	Type string   `json:"type"`
	File FileData `json:"file"`
}

// FileData is the body of a FilePart.
//
//schema:inline
type FileData struct {
	Filename string `json:"filename"`
	MimeType string `json:"mimeType"`
	// Standard base64, no data: prefix.
	//
	//schema:contentEncoding "base64"
	Data string `json:"data"`
	// DataURL is never on the wire. routing.Route sets it to "data:{MimeType};base64,{Data}", built
	// once with Data as its tail (the same memory), and routing.Assemble reuses it for the OpenAI
	// dialects' file parts instead of building another copy of the base64. Empty, or not that URL,
	// it is not used.
	DataURL string `json:"-"`
}

// ArtifactMetadata describes the artifact a result is about, with the routing design's field
// meanings (docs/design.md): type is the artifact's MIME type, the same value as mimeType;
// binaryType is the category of a binary artifact, absent for text; format names the detected
// format.
type ArtifactMetadata struct {
	// Bare artifact id, or the full ws: id of a workspace file.
	ID string `json:"id"`
	// The detected MIME type, the same value as mimeType (the routing design's artifact.type,
	// the workspace-ID design's "type": "text/javascript"). Contract v1 before the correction sent the
	// kind (text, image, ...) here: see the README's Versioning section.
	Type string `json:"type"`
	// Never empty: the filename metadata, else the workspace path's last element, else the id, else
	// 未知文件 (unknown file).
	Filename string `json:"filename"`
	// Detected MIME type (content wins over a declared type it contradicts).
	MimeType string `json:"mimeType"`
	// Bytes.
	//
	//schema:minimum 0
	Size      int64     `json:"size"`
	CreatedAt time.Time `json:"createdAt"`
	// Category of a binary artifact, as the routing design's detectBinaryType; absent for text.
	//
	//schema:enum BinaryTypes
	BinaryType string `json:"binaryType,omitempty"`
	// Detected format: png, jpeg, pdf, mp3, zip, elf, md, txt, ...; absent when unknown.
	Format string `json:"format,omitempty"`
	// Over the worker's size limit: described from its metadata, not read.
	TooLarge bool `json:"tooLarge,omitempty"`
	// Confidence of the type detection.
	//
	//schema:minimum 0
	//schema:maximum 1
	Confidence float64 `json:"confidence,omitempty"`
	// Set for workspace files.
	WorkspaceID string `json:"workspaceId,omitempty"`
	// Set for workspace files.
	RelativePath string `json:"relativePath,omitempty"`
	// Set when content holds text extracted from the document (request field extract_text, or the
	// registry entry's extractText).
	Extracted *Extraction `json:"extracted,omitempty"`
}

// Extraction says what text extraction read from a document.
//
//schema:additionalProperties false
type Extraction struct {
	// What the document's parts are; document: one flowing text (DOCX, ODT).
	//
	//schema:enum ["page", "sheet", "slide", "chapter", "document"]
	Unit string `json:"unit"`
	// Parts in the document.
	//
	//schema:minimum 0
	Total int `json:"total"`
	// Parts read before any time limit.
	//
	//schema:minimum 0
	Read int `json:"read"`
	// Characters (Unicode code points) of document text in content.
	//
	//schema:minimum 0
	Chars int `json:"chars"`
	// Characters left out by EXTRACT_MAX_CHARS.
	//
	//schema:minimum 0
	Remaining int `json:"remaining,omitempty"`
	// Text was left out by EXTRACT_MAX_CHARS; content's last line says how much.
	Truncated bool `json:"truncated,omitempty"`
	// EXTRACT_TIMEOUT stopped extraction after read parts.
	TimedOut bool `json:"timedOut,omitempty"`
	// A PDF without a text layer (a scan): content says so.
	NoText bool `json:"noText,omitempty"`
}

// GetArtifactResult is the "result" of an ok reply on tool.get_artifact: the design's
// ContentRouteResult fields at the top level (a runtime that reads a ContentRouteResult needs no
// change) plus assembly. With the request's media "both" (the default) all of them are present;
// media "result" leaves assembly out, media "assembly" leaves imageUrl and file out. Base64 only
// ever appears in imageUrl.image_url.url, file.file.data and media parts of assembly, never in
// content.
//
//schema:allOf [
//schema:allOf   {
//schema:allOf     "if": {
//schema:allOf       "properties": {"routing": {"const": "image_url"}},
//schema:allOf       "not": {"required": ["assembly"]}
//schema:allOf     },
//schema:allOf     "then": {"required": ["imageUrl"]}
//schema:allOf   },
//schema:allOf   {
//schema:allOf     "if": {
//schema:allOf       "properties": {"routing": {"const": "file"}},
//schema:allOf       "not": {"required": ["assembly"]}
//schema:allOf     },
//schema:allOf     "then": {"required": ["file"]}
//schema:allOf   }
//schema:allOf ]
type GetArtifactResult struct {
	ContentRouteResult
	// Estimated input tokens of what is sent, against the same media as base64 text.
	Usage    Usage    `json:"usage"`
	Assembly Assembly `json:"assembly,omitzero"`
	// What decided which inputs the model takes: the capability registry entry that service_id
	// resolved to, the request's capabilities list, or nothing (text only).
	Model *ModelDecision `json:"model,omitempty"`
}

// What decided a model's inputs (ModelDecision.DecidedBy).
const (
	DecidedByRegistry = "registry" // service_id resolved to a capability registry entry
	DecidedByRequest  = "request"  // the request's capabilities list
	DecidedByNone     = "none"     // service_id resolved to no entry (or was empty): text only
)

// ModelDecision says what decided which inputs the model takes: the capability registry entry
// service_id resolved to (README, "Which models it knows": provider prefixes, regions, Bedrock and
// Vertex versions, dated snapshots, -latest, gateway variants, case), the request's capabilities
// list, or nothing (text only). `worker models explain NAME` shows the same decision step by step.
type ModelDecision struct {
	// registry: service_id resolved to an entry; request: the request's capabilities list decided;
	// none: service_id resolved to no entry (or was empty), so the model is treated as text only.
	//
	//schema:enum DecidedBy
	DecidedBy string `json:"decidedBy"`
	// decidedBy registry: the entry's id, e.g. claude-3-5-sonnet-20240620 for
	// anthropic.claude-3-5-sonnet-20240620-v1:0.
	Entry string `json:"entry,omitempty"`
	// decidedBy registry: the entry's provider, the model's own (openai, anthropic, google, xai,
	// mistral, ...).
	Provider string `json:"provider,omitempty"`
	// decidedBy registry: the provider the name says serves the model (bedrock for
	// anthropic.claude-...-v1:0, vertex, openrouter, ...); its formats and limits apply when the
	// registry has them, else provider's.
	ServedBy string `json:"servedBy,omitempty"`
	// decidedBy registry: curated (the built-in hand-curated list), catalogue (the built-in
	// catalogue from models.dev and LiteLLM) or file (LLM_SERVICES_FILE; `worker models explain`
	// names it).
	Source string `json:"source,omitempty"`
}

// Bases of a Usage estimate: how the media part's tokens were estimated.
const (
	UsageText            = "text"             // nothing but text is sent
	UsageOpenAITiles     = "openai-tiles"     // 85 + 170 per 512 px tile after fitting to 2048 and a 768 px short side
	UsageAnthropicPixels = "anthropic-pixels" // width x height / 750, at most 1,600
	UsageGeminiTiles     = "gemini-tiles"     // 258 per 768 px tile (258 when both sides are at most 384 px)
	UsageAudioSeconds    = "audio-seconds"    // 32 tokens per second of audio
	UsageUnknown         = "unknown"          // no formula for this media: tokensSaved is 0
)

// Usage estimates the input tokens of what is sent, against the same bytes sent as base64 text
// (docs/providers.md formulas; 0.71 tokens per base64 character). The estimates are for the
// model's provider in every dialect (the dialect's provider when the model's is not known); text
// counts 4 ASCII characters or 1 other character per token.
type Usage struct {
	// Estimated input tokens of the assembly as sent: the text plus the media part by the
	// provider's formula.
	//
	//schema:minimum 0
	InputTokens int64 `json:"inputTokens"`
	// Estimated input tokens if the media's base64 were sent as text, plus the same text.
	//
	//schema:minimum 0
	Base64TextTokens int64 `json:"base64TextTokens"`
	// base64TextTokens - inputTokens; 0 when nothing is sent but text or the media's cost is not
	// known.
	TokensSaved int64 `json:"tokensSaved"`
	// How inputTokens was estimated for the media part.
	//
	//schema:enum UsageBases
	Basis string `json:"basis"`
}

// Assembly holds the parts the runtime sends to the model for this tool call; toolContent goes
// where the dialect's API puts a tool's result. openai-chat: the string content of the tool message
// (OpenAI accepts text only there); when media is routed, followUp holds one user message carrying
// it (with several tool calls in one turn: every tool message first, then the follow-ups in call
// order). openai-responses: function_call_output.output, a string or a list of input_text,
// input_image, input_file. anthropic: tool_result.content, a list of text, image and document
// blocks. gemini: a functionResponse object without name and id ({response:{output}}); for a model
// that takes media inside a function response (registry toolResultMedia "inline": Gemini 3) it also
// has parts:[{inlineData}], otherwise ("followUp", the default: Gemini 2.x) followUp holds one user
// content ({role:"user", parts:[{text}, {inlineData}]}) carrying the media (with several calls in
// one turn: every functionResponse in one content first, then the follow-ups in call order).
// bedrock-converse: toolResult.content, a list of text, image, document and video blocks.
// langchain: a ToolMessage's content, a list of v1 standard blocks (text, image, file, audio,
// video) in langchain-core Python's shape (base64, mime_type, extras.filename). langchain-js: the
// same blocks in LangChain.js's shape (data, mimeType, metadata.filename). followUp is only ever
// set for openai-chat and gemini.
//
// Go: client.Turn builds a whole turn from several results.
//
//schema:allOf [
//schema:allOf   {
//schema:allOf     "if": {"properties": {"dialect": {"const": "openai-chat"}}},
//schema:allOf     "then": {
//schema:allOf       "properties": {
//schema:allOf         "toolContent": {"type": "string"},
//schema:allOf         "followUp": {"items": {"required": ["content"]}}
//schema:allOf       }
//schema:allOf     }
//schema:allOf   },
//schema:allOf   {
//schema:allOf     "if": {"properties": {"dialect": {"enum": "${DialectsMediaInToolResult}"}}},
//schema:allOf     "then": {"properties": {"followUp": {"maxItems": 0}}}
//schema:allOf   },
//schema:allOf   {
//schema:allOf     "if": {"properties": {"dialect": {"enum": "${DialectsBlockList}"}}},
//schema:allOf     "then": {"properties": {"toolContent": {"type": "array"}}}
//schema:allOf   },
//schema:allOf   {
//schema:allOf     "if": {"properties": {"dialect": {"const": "gemini"}}},
//schema:allOf     "then": {
//schema:allOf       "properties": {
//schema:allOf         "toolContent": {
//schema:allOf           "type": "object",
//schema:allOf           "required": ["response"]
//schema:allOf         },
//schema:allOf         "followUp": {
//schema:allOf           "maxItems": 1,
//schema:allOf           "items": {
//schema:allOf             "required": ["parts"],
//schema:allOf             "properties": {
//schema:allOf               "role": {
//schema:allOf                 "const": "user"
//schema:allOf               },
//schema:allOf               "parts": {
//schema:allOf                 "minItems": 1
//schema:allOf               }
//schema:allOf             }
//schema:allOf           }
//schema:allOf         }
//schema:allOf       }
//schema:allOf     }
//schema:allOf   }
//schema:allOf ]
type Assembly struct {
	//schema:enum Dialects
	Dialect string `json:"dialect"`
	// openai-chat: a string. openai-responses: a string or a list of parts. gemini: an object.
	// anthropic, bedrock-converse, langchain, langchain-js: a list of blocks (possibly empty).
	//
	//schema:oneOf [
	//schema:oneOf   {"type": "string"},
	//schema:oneOf   {"type": "array", "items": {"type": "object"}},
	//schema:oneOf   {"type": "object"}
	//schema:oneOf ]
	//ts:type string | Array<Record<string, unknown>> | Record<string, unknown>
	ToolContent json.RawMessage `json:"toolContent"`
	// openai-chat and gemini only: messages to append after every tool message (gemini: after the
	// content holding every functionResponse) of the turn, in call order.
	FollowUp []ChatMessage `json:"followUp,omitempty"`
	// The limits the model's provider enforces across one request (sizes counted on base64); the
	// turn helpers (client.Turn, assembleTurn) keep a turn within them. Absent when the provider
	// sets none or is not known.
	RequestLimits *RequestLimits `json:"requestLimits,omitempty"`
}

// RequestLimits are limits a provider enforces across one request (docs/providers.md, "Formats
// and limits", per request; docs/design.md, "Per-request limits"). Zero fields set no limit. Sizes
// are counted on the media's base64 (what the request carries), which never undercounts.
//
//schema:inline
//schema:additionalProperties false
type RequestLimits struct {
	// The most images one request may hold (OpenAI 500, Anthropic 100).
	//
	//schema:minimum 0
	MaxImages int `json:"maxImages,omitempty"`
	// The most bytes of images one request may hold (OpenAI: 50 MB of images).
	//
	//schema:minimum 0
	MaxImageBytes int64 `json:"maxImageBytes,omitempty"`
	// The most bytes of media one request may hold (Anthropic: 32 MB per request; Gemini: inline
	// data).
	//
	//schema:minimum 0
	MaxBytes int64 `json:"maxBytes,omitempty"`
	// The most PDF pages one request may hold (Anthropic: 100).
	//
	//schema:minimum 0
	MaxPDFPages int `json:"maxPdfPages,omitempty"`
	// A request with more than manyImages images takes images with a long edge of at most
	// manyImagesMaxEdge pixels (Anthropic: 20, 2000).
	//
	//schema:minimum 0
	ManyImages int `json:"manyImages,omitempty"`
	// The longest edge, in pixels, of each image of a request with more than manyImages images.
	//
	//schema:minimum 0
	ManyImagesMaxEdge int `json:"manyImagesMaxEdge,omitempty"`
}

// ChatMessage is a message in the dialect's own shape: openai-chat has content (a string or a list
// of parts), gemini has parts (a Content's parts: text and inlineData).
//
//schema:oneOf [{"required": ["content"]}, {"required": ["parts"]}]
type ChatMessage struct {
	//schema:examples ["user"]
	Role string `json:"role"`
	// A string or a list of parts (text, image_url, file with file_data, input_audio).
	//
	//schema:oneOf [{"type": "string"}, {"type": "array", "items": {"type": "object"}}]
	//ts:type string | Array<Record<string, unknown>>
	Content json.RawMessage `json:"content,omitempty"`
	// gemini: the parts of a Content, a text part and an inlineData part ({inlineData:{mimeType,
	// data}}, data standard base64).
	//
	//schema:type "array"
	//schema:items {"type": "object"}
	//ts:type Array<Record<string, unknown>>
	Parts json.RawMessage `json:"parts,omitempty"`
}
