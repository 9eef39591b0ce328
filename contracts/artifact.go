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

// Dialects lists every dialect, the default (openai-chat) first.
var Dialects = []string{DialectOpenAIChat, DialectOpenAIResponses, DialectAnthropic, DialectGemini, DialectBedrockConverse, DialectLangChain, DialectLangChainJS}

// Locales of human-readable text produced by the worker. Chinese is the default, as in the seeds.
const (
	LocaleZH = "zh"
	LocaleEN = "en"
)

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

// KnownCapability reports whether name is one of Capabilities.
func KnownCapability(name string) bool {
	return slices.Contains(Capabilities(), name)
}

// GetArtifactRequest is the body of tool.get_artifact.
type GetArtifactRequest struct {
	RequestID string `json:"request_id"`
	// Ref is "artifact:{id}", a bare id, or a workspace id "ws:{workspaceId}:{base64url(path)}".
	Ref string `json:"ref"`
	// ServiceID names the agent's LLM service in the capability registry.
	ServiceID string `json:"service_id,omitempty"`
	// Capabilities, when present (even empty), overrides the registry for this request. nil leaves
	// the field out (the registry's entry for ServiceID applies); []string{} sends [] (text only).
	Capabilities []string `json:"capabilities,omitzero"`
	// Dialect of Assembly: openai-chat (default) or anthropic.
	Dialect string `json:"dialect,omitempty"`
	// Locale of descriptions: zh (default) or en.
	Locale string `json:"locale,omitempty"`
	// Media says where the reply carries the artifact's media (base64): MediaBoth (default), MediaResult
	// or MediaAssembly. One copy halves the reply of an image or file.
	Media string `json:"media,omitempty"`
	// ExtractText asks for the text inside a document the model cannot take as a file (PDF, DOCX,
	// XLSX, PPTX, ODT, ODS, ODP, EPUB) instead of its description. Absent: the registry entry's
	// extractText decides (default false).
	ExtractText *bool `json:"extract_text,omitempty"`
}

// Where a reply carries media (the "media" request field of tool.get_artifact and
// tool.get_history_image).
//
// The default is MediaBoth so that callers written before the field existed keep working whichever
// half they read (contract v1 grows by optional fields only). A caller that reads one half should ask
// for it: the reply of an image or file is then half the size, so half the base64, JSON and claim-check
// traffic.
const (
	// MediaBoth: the seeds' fields (imageUrl/file, or content blocks) and the assembly both carry the
	// media; the reply holds it twice.
	MediaBoth = "both"
	// MediaResult: only the seeds' fields carry the media; assembly is left out.
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
)

// Binary categories (ArtifactMetadata.BinaryType): design document 000's detectBinaryType result.
// Text artifacts have no binary category.
const (
	BinaryImage    = "image"
	BinaryAudio    = "audio"
	BinaryVideo    = "video"
	BinaryDocument = "document"
	BinaryOther    = "other"
)

// ContentRouteResult is the seeds' routing result; field names are kept so that a runtime which
// already reads a ContentRouteResult needs no change. Base64 only ever appears in ImageURL.ImageURL.URL
// and File.File.Data, never in Content.
type ContentRouteResult struct {
	ContentType string `json:"contentType"`
	Routing     string `json:"routing"`
	// Content is the text itself (routing text, content type text) or a short description.
	Content  string           `json:"content"`
	ImageURL *ImageURLPart    `json:"imageUrl,omitempty"`
	File     *FilePart        `json:"file,omitempty"`
	Metadata ArtifactMetadata `json:"metadata"`
	// ImageProcessing says what was done to a routed image to fit the model (routing image_url):
	// the original and the sent format, dimensions and bytes, and the actions taken.
	ImageProcessing *ImageProcessing `json:"imageProcessing,omitempty"`
}

// Image processing actions (ImageProcessing.Actions).
const (
	ImageOriented   = "oriented"    // the JPEG's EXIF orientation was applied
	ImageFirstFrame = "first_frame" // an animated GIF was reduced to its first frame
	ImageConverted  = "converted"   // the format changed (BMP, TIFF, GIF to PNG or JPEG)
	ImageDownscaled = "downscaled"  // made smaller to fit the model's limits
	ImageReencoded  = "reencoded"   // re-encoded in its own format and size (metadata dropped)
)

// ImageProcessing is what was done to an image before sending it. Actions is empty when the
// image went as it was.
type ImageProcessing struct {
	Original ImageInfo `json:"original"`
	Sent     ImageInfo `json:"sent"`
	Actions  []string  `json:"actions,omitempty"`
}

// ImageInfo is one image's format, dimensions (0 when unknown) and size in bytes.
type ImageInfo struct {
	Format string `json:"format"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int64  `json:"bytes"`
}

// ImageURLPart is an OpenAI-style image part: {"type":"image_url","image_url":{"url":"data:..."}}.
type ImageURLPart struct {
	Type     string   `json:"type"`
	ImageURL ImageURL `json:"image_url"`
}

// ImageURL holds a data URL.
type ImageURL struct {
	URL string `json:"url"`
}

// FilePart is the seeds' file part: {"type":"file","file":{"filename","mimeType","data"}}; Data is
// standard base64 without a data: prefix.
type FilePart struct {
	Type string   `json:"type"`
	File FileData `json:"file"`
}

// FileData is the body of a FilePart.
type FileData struct {
	Filename string `json:"filename"`
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
	// DataURL is never on the wire. routing.Route sets it to "data:{MimeType};base64,{Data}", built
	// once with Data as its tail (the same memory), and routing.Assemble reuses it for the OpenAI
	// dialects' file parts instead of building another copy of the base64. Empty, or not that URL,
	// it is not used.
	DataURL string `json:"-"`
}

// ArtifactMetadata describes the artifact a ContentRouteResult is about, with design document 000's
// field meanings: Type is the artifact's MIME type (as 000's artifact.type and 004's metadata
// "type": "text/javascript"), the same value as MimeType; BinaryType is the category of a binary
// artifact (BinaryImage, BinaryAudio, BinaryVideo, BinaryDocument, BinaryOther), absent for text;
// Format names the detected format ("png", "pdf", "md").
type ArtifactMetadata struct {
	ID        string    `json:"id"`
	Type      string    `json:"type"`
	Filename  string    `json:"filename"`
	MimeType  string    `json:"mimeType"`
	Size      int64     `json:"size"`
	CreatedAt time.Time `json:"createdAt"`
	// BinaryType is the category of a binary artifact; empty (absent) for text.
	BinaryType string `json:"binaryType,omitempty"`
	// Format is the detected format ("png", "jpeg", "pdf", "mp3", "zip", "md", "txt"); absent when
	// unknown.
	Format string `json:"format,omitempty"`
	// TooLarge is set when the artifact exceeded the size limit and was described, not read.
	TooLarge bool `json:"tooLarge,omitempty"`
	// Confidence of the type detection, 0..1.
	Confidence   float64 `json:"confidence,omitempty"`
	WorkspaceID  string  `json:"workspaceId,omitempty"`
	RelativePath string  `json:"relativePath,omitempty"`
	// Extracted is set when Content holds text extracted from the document (extract_text).
	Extracted *Extraction `json:"extracted,omitempty"`
}

// Extraction says what text extraction read from a document.
type Extraction struct {
	// Unit of the document's parts: page, sheet, slide, chapter, or document (one flowing text).
	Unit string `json:"unit"`
	// Total parts in the document, and how many were read before any time limit.
	Total int `json:"total"`
	Read  int `json:"read"`
	// Chars is the number of characters (Unicode code points) of document text in Content;
	// Remaining those left out by the character limit (Truncated).
	Chars     int  `json:"chars"`
	Remaining int  `json:"remaining,omitempty"`
	Truncated bool `json:"truncated,omitempty"`
	// TimedOut: the time limit stopped extraction after Read parts.
	TimedOut bool `json:"timedOut,omitempty"`
	// NoText: a PDF without a text layer (a scan).
	NoText bool `json:"noText,omitempty"`
}

// GetArtifactResult is the result of tool.get_artifact: the ContentRouteResult fields at the top
// level, plus Assembly, the message parts ready to send in the requested dialect. With media
// "assembly" the result has no ImageURL or File; with media "result" it has no Assembly.
type GetArtifactResult struct {
	ContentRouteResult
	// Usage estimates the input tokens of what is sent, against the same media as base64 text.
	Usage    Usage    `json:"usage"`
	Assembly Assembly `json:"assembly,omitzero"`
	// Model says what decided which inputs the model takes: the capability registry entry that
	// service_id resolved to, the request's capabilities list, or nothing (text only).
	Model *ModelDecision `json:"model,omitempty"`
}

// What decided a model's inputs (ModelDecision.DecidedBy).
const (
	DecidedByRegistry = "registry" // service_id resolved to a capability registry entry
	DecidedByRequest  = "request"  // the request's capabilities list
	DecidedByNone     = "none"     // service_id resolved to no entry (or was empty): text only
)

// ModelDecision says which capability registry entry decided a result, or that none did. README,
// "Which models it knows", has the resolution rules; `worker models explain NAME` shows the same
// decision with its steps.
type ModelDecision struct {
	// DecidedBy is DecidedByRegistry, DecidedByRequest or DecidedByNone.
	DecidedBy string `json:"decidedBy"`
	// Entry is the registry entry's id (decidedBy registry), e.g. "claude-3-5-sonnet-20240620" for
	// "anthropic.claude-3-5-sonnet-20240620-v1:0".
	Entry string `json:"entry,omitempty"`
	// Provider is the entry's provider, the model's own ("openai", "anthropic", "google", ...).
	Provider string `json:"provider,omitempty"`
	// ServedBy is the provider the name says serves the model ("bedrock" for
	// "anthropic.claude-...-v1:0", "vertex", "openrouter", ...); its formats and limits apply when
	// the registry has them, else Provider's.
	ServedBy string `json:"servedBy,omitempty"`
	// Source is where the entry comes from: "curated" (the built-in hand-curated list),
	// "catalogue" (the built-in catalogue converted from models.dev and LiteLLM), or "file" (the
	// registry file, LLM_SERVICES_FILE).
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

// Usage is the estimated input-token cost of a tool result (PROVIDERS.md, "Token cost"). The
// estimates are for the dialect's provider; the text is counted at 4 ASCII characters or 1 other
// character per token.
type Usage struct {
	// InputTokens estimates what the assembly costs as sent: its text plus the media part.
	InputTokens int64 `json:"inputTokens"`
	// Base64TextTokens estimates what the same text plus the media's base64 would cost as text
	// (0.71 tokens per base64 character, measured).
	Base64TextTokens int64 `json:"base64TextTokens"`
	// TokensSaved is Base64TextTokens - InputTokens; 0 when only text is sent or the media's cost
	// has no formula (Basis UsageUnknown).
	TokensSaved int64 `json:"tokensSaved"`
	// Basis is how the media part was estimated (Usage* constants).
	Basis string `json:"basis"`
}

// Assembly holds what the agent runtime sends to the model for a tool call's result, in Dialect.
// ToolContent goes where the dialect's API puts a tool's result:
//
//   - openai-chat: the tool message's content, a string (tool messages take text only); when media
//     is routed to the model, FollowUp holds one user message carrying it. With several tool calls
//     in one turn, every tool message comes first, then the follow-ups in call order.
//   - openai-responses: function_call_output.output (a string, or input_text/input_image/input_file).
//   - anthropic: the tool_result block's content list (text, image, document blocks).
//   - gemini: a functionResponse object without name and id ({"response":{"output"}}). Where the
//     model takes media inside a function response (registry toolResultMedia "inline": Gemini 3),
//     it carries the media ("parts":[{"inlineData"}]); otherwise ("followUp", the default: Gemini
//     2.x) FollowUp holds one user content ({"role":"user","parts":[text, inlineData]}) to send
//     after every functionResponse of the turn.
//   - bedrock-converse: toolResult.content (text, image, document, video blocks).
//   - langchain: a ToolMessage's content, LangChain v1 standard blocks (Python's shape);
//     langchain-js: the same in LangChain.js's shape.
//
// FollowUp is empty except for openai-chat and gemini. client.Turn builds a whole turn from several
// results; RequestLimits, when set, are the limits the model's provider enforces across one
// request, which the turn helpers keep a turn within.
type Assembly struct {
	Dialect       string          `json:"dialect"`
	ToolContent   json.RawMessage `json:"toolContent"`
	FollowUp      []ChatMessage   `json:"followUp,omitempty"`
	RequestLimits *RequestLimits  `json:"requestLimits,omitempty"`
}

// RequestLimits are limits a provider enforces across one request (docs/providers.md, "Formats
// and limits", per request; docs/design.md, "Per-request limits"). Zero fields set no limit. Sizes
// are counted on the media's base64 (what the request carries), which never undercounts.
type RequestLimits struct {
	// MaxImages bounds the images of one request (OpenAI 500, Anthropic 100).
	MaxImages int `json:"maxImages,omitempty"`
	// MaxImageBytes bounds all images of one request (OpenAI: 50 MB of images).
	MaxImageBytes int64 `json:"maxImageBytes,omitempty"`
	// MaxBytes bounds all media of one request (Anthropic: 32 MB per request; Gemini: inline data).
	MaxBytes int64 `json:"maxBytes,omitempty"`
	// MaxPDFPages bounds the PDF pages of one request (Anthropic: 100).
	MaxPDFPages int `json:"maxPdfPages,omitempty"`
	// ManyImages and ManyImagesMaxEdge: a request with more than ManyImages images takes images
	// with a long edge of at most ManyImagesMaxEdge pixels (Anthropic: 20, 2000).
	ManyImages        int `json:"manyImages,omitempty"`
	ManyImagesMaxEdge int `json:"manyImagesMaxEdge,omitempty"`
}

// ChatMessage is a message in the dialect's own shape: openai-chat sets Content (a string or a list
// of parts), gemini sets Parts (a Content's parts: text and inlineData).
type ChatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content,omitempty"`
	Parts   json.RawMessage `json:"parts,omitempty"`
}
