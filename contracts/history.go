package contracts

import "encoding/json"

// GetHistoryImageRequest is the body of a request published on tool.get_history_image (wire
// contract v1).
type GetHistoryImageRequest struct {
	// Caller-chosen id, unique per request; echoed in the reply and sent as Nats-Msg-Id. At most
	// 256 bytes of UTF-8; a wrong type, invalid UTF-8 or a longer value: invalid_request (field
	// request_id), dead-lettered, like a missing one. Other spellings (requestId, ...) are refused:
	// invalid_request naming them.
	//
	//schema:minLength 1
	//schema:maxLength MaxIDLen
	RequestID string `json:"request_id"`
	// The hash from a [Picture:history_{md5}] placeholder: 8 to 32 hex digits, with or without the
	// "history_" prefix (the whole placeholder is accepted too). Not matching: error
	// invalid_image_id (not invalid_request). Not cached or expired: image_not_found.
	//
	//schema:examples [
	//schema:examples   "9e107d9d372bb6826bd81d3542a419d6",
	//schema:examples   "history_9e107d9d372bb6826bd81d3542a419d6"
	//schema:examples ]
	ImageMD5 string `json:"image_md5"`
	// The agent's LLM service id in the worker's capability registry: the image is fitted to the
	// formats and limits its model accepts (converted, downscaled), and described instead when the
	// model has no vision. Absent (and no capabilities): the model is taken to have vision, with
	// the formats of the dialect's provider. At most 256 bytes.
	//
	//schema:maxLength MaxIDLen
	ServiceID string `json:"service_id,omitempty"`
	// Explicit input capabilities of the model, as in tool.get_artifact: when present (even []),
	// they replace the registry's entry for service_id; without vision the image is described, not
	// sent. An unknown name: invalid_request (field capabilities).
	//
	//schema:enum Capabilities
	Capabilities []string `json:"capabilities,omitzero"`
	// Dialect of result.assembly. Absent: openai-chat. Letter case and surrounding spaces are
	// ignored: the worker canonicalizes the name ("Anthropic" is anthropic) and assembly.dialect
	// carries the canonical name; send the canonical names listed here.
	//
	//schema:enum Dialects
	Dialect string `json:"dialect,omitempty"`
	// Language of error messages. Absent: zh.
	//
	//schema:enum Locales
	Locale string `json:"locale,omitempty"`
	// Where the reply carries the image. both (default): content and assembly, the image twice;
	// result: content only, no assembly; assembly: assembly only, no content. Anything else:
	// invalid_request (field media).
	//
	//schema:enum MediaModes
	Media string `json:"media,omitempty"`
	// Which pages of a cached PDF ([File:history_...]) to send as images to a model that reads
	// images but takes no PDF, as in tool.get_artifact: "1-3,7" (1-based; "10-" is page 10 to the
	// end). Absent: from the first page, up to PDF_MAX_PAGES and the provider's per-request limits;
	// the result names the pages left out. Malformed: invalid_request (field pages). Other media
	// and models ignore it.
	//
	//schema:maxLength MaxPagesLen
	//schema:examples ["1-3,7", "21-"]
	Pages string `json:"pages,omitempty"`
}

// HistoryImageBlock is the design's multimodal block, {"type":"image","mime_type","base64"}; a
// document cached from a [File:history_...] placeholder comes as type "file", audio as "audio",
// video as "video".
type HistoryImageBlock struct {
	// image for a [Picture:history_...] placeholder; file (a document such as a PDF), audio or
	// video for a [File:history_...] one.
	//
	//schema:enum ["image", "file", "audio", "video"]
	Type string `json:"type"`
	//schema:examples ["image/png"]
	MimeType string `json:"mime_type"`
	// The medium's data: an image fitted to the model (as it was in the context when it goes as it
	// is), a file exactly as it was in the context (standard base64, no data: prefix).
	//
	//schema:contentEncoding "base64"
	Base64 string `json:"base64"`
}

// GetHistoryImageResult is the "result" of an ok reply on tool.get_history_image: the design's
// multimodal block list and the parts ready for the requested dialect. Both are present with the
// request's media "both" (the default); media "result" leaves assembly out, media "assembly" leaves
// content out.
//
//schema:minProperties 1
type GetHistoryImageResult struct {
	//schema:minItems 1
	Content []HistoryImageBlock `json:"content,omitempty"`
	// What was done to fit the image to the model; absent when it is not sent.
	ImageProcessing *ImageProcessing `json:"imageProcessing,omitempty"`
	Usage           Usage            `json:"usage"`
	Assembly        Assembly         `json:"assembly,omitzero"`
	// A cached PDF sent as page images (the model reads images but takes no PDF), as in
	// tool.get_artifact's routing pages: which pages went and each page's text part (its name
	// and text layer) and image; content then holds one image block per page, in order. Media
	// "assembly" leaves images out.
	Pages *PagesResult `json:"pages,omitempty"`
}

// PreprocessRequest is the body of a request published on context.preprocess (wire contract v1).
// messages is the context in the shape of dialect; the reply keeps the shape it came in. Contexts
// are often larger than one NATS message: they then travel by claim check.
type PreprocessRequest struct {
	// Caller-chosen id, unique per request; echoed in the reply and sent as Nats-Msg-Id. At most
	// 256 bytes of UTF-8; a wrong type, invalid UTF-8 or a longer value: invalid_request (field
	// request_id), dead-lettered, like a missing one. Other spellings (requestId, ...) are refused:
	// invalid_request naming them.
	//
	//schema:minLength 1
	//schema:maxLength MaxIDLen
	RequestID string `json:"request_id"`
	// The conversation, oldest first, in the shape of dialect. Without a dialect, each message is a
	// [role, content] pair (LangChain style), an object with a role (other keys kept), an OpenAI
	// Responses item with a type, or a Gemini content with parts; roles "human" and "user" are
	// person's (or tool-result) turns, "assistant", "ai" and "model" the model's. A person's or
	// tool's content is a string, null, or a list of parts. Anything else: invalid_request naming
	// the message.
	//
	//schema:type "array"
	//schema:items {"oneOf": [
	//schema:items   {"type": "array", "prefixItems": [{"type": "string"}, {}], "minItems": 2, "maxItems": 2,
	//schema:items    "description": "[role, content]"},
	//schema:items   {"type": "object", "required": [],
	//schema:items    "properties": {"role": {"type": "string"}, "content": {}, "type": {"type": "string"}, "parts": {"type": "array"}},
	//schema:items    "additionalProperties": true,
	//schema:items    "description": "{\"role\", \"content\", ...}, a Responses item {\"type\", ...} or a Gemini content {\"role\", \"parts\"}; other keys are kept as they are.",
	//schema:items    "anyOf": [{"required": ["role"]}, {"required": ["type"]}, {"required": ["parts"]}]}
	//schema:items ]}
	//ts:type Array<[string, unknown] | MessageObject>
	Messages json.RawMessage `json:"messages"`
	// The shape of messages: that dialect's native message list (OpenAI chat messages, OpenAI
	// Responses input items, Anthropic messages, Gemini contents, Bedrock Converse messages,
	// LangChain and LangChain.js [role, content] pairs or message dicts). A context not in that
	// shape: invalid_request naming the place (messages[3].content[1] ...). Absent: any of these
	// shapes, as before the field existed. Letter case and surrounding spaces are ignored (the
	// worker canonicalizes the name); send the canonical names listed here. Media in tool results
	// (tool messages, tool_result, function_call_output, functionResponse, toolResult) and in the
	// worker's follow-up messages is taken out as in a person's messages.
	//
	//schema:enum Dialects
	Dialect string `json:"dialect,omitempty"`
	// How many of the latest turns keep their media (a turn is what one model call adds: a person's
	// message, or the tool results and follow-ups after a model message); the latest person's
	// message keeps its media too while this is at least 1. 0: every medium the target can read
	// goes, the latest included. Absent: the worker's HISTORY_KEEP_TURNS (default 1).
	//
	//schema:minimum 0
	//schema:maximum 10000
	KeepTurns *int `json:"keep_turns,omitempty"`
	// The model the context goes to, in the worker's capability registry (as for
	// tool.get_artifact): media of a kind it cannot read (images without vision, PDFs without file,
	// audio, video) is replaced everywhere, the latest turn included, by the routing design's
	// description naming the placeholder that fetches it back. Absent (and no capabilities): every
	// kind is taken to be readable. At most 256 bytes.
	//
	//schema:maxLength MaxIDLen
	ServiceID string `json:"service_id,omitempty"`
	// Explicit input capabilities of the target model, as in tool.get_artifact: when present (even
	// []), they replace the registry's entry for service_id. An unknown name: invalid_request
	// (field capabilities).
	//
	//schema:enum Capabilities
	Capabilities []string `json:"capabilities,omitzero"`
	// Language of human-readable text. Absent: zh.
	//
	//schema:enum Locales
	Locale string `json:"locale,omitempty"`
}

// PreprocessResult is the "result" of an ok reply on context.preprocess. Large results travel by
// claim check.
type PreprocessResult struct {
	// The context in the shape it came in. In turns older than keep_turns (and not the latest
	// person's message), inline base64 media (images, PDFs, audio, video) in person's messages,
	// tool results and follow-ups whose bytes are media of the declared kind are cached with the
	// detected MIME type and replaced by a text part of the dialect ({"type":"text"},
	// {"type":"input_text"} or {"text"}) holding [Picture:history_{md5}] (images) or
	// [File:history_{md5}] (other media); inside a Gemini functionResponse the part leaves
	// functionResponse.parts and the text part follows the functionResponse. Media the target
	// cannot read is replaced everywhere by a description naming the placeholder. Everything else,
	// the parts listed in left_alone included, is unchanged.
	//
	//schema:type "array"
	//ts:type Array<[string, unknown] | MessageObject>
	Messages json.RawMessage `json:"messages"`
	Stats    PreprocessStats `json:"stats"`
	// Parts left as they were although they were looked at: malformed (no data, a data URL that is
	// not base64, base64 that does not decode), bytes that are not media or contradict the declared
	// kind, an unknown part type, over MAX_ARTIFACT_BYTES. Absent when there are none.
	LeftAlone []LeftAlonePart `json:"left_alone,omitempty"`
	// What was done to keep the request within the target provider's per-request limits (images,
	// bytes, PDF pages per request; the dialect's provider's, or service_id's): media of the kept
	// turns taken out (cached, replaced by their placeholder, oldest first), Bedrock document names
	// made unique; each with its path and why. Absent when nothing was needed.
	OverLimits []LeftAlonePart `json:"over_limits,omitempty"`
}

// PreprocessStats reports what preprocessing removed from the context.
//
//schema:inline
type PreprocessStats struct {
	// Image parts replaced (by a placeholder or a description).
	//
	//schema:minimum 0
	ImagesReplaced int `json:"images_replaced"`
	// Characters of base64 data taken out of the context.
	//
	//schema:minimum 0
	BytesRemoved int64 `json:"bytes_removed"`
	// Estimated input tokens saved per later turn.
	//
	//schema:minimum 0
	TokensSavedEstimate int64 `json:"tokens_saved_estimate"`
	// Media parts whose cache write failed: left in place (or, for a target that cannot read them,
	// described without a way back).
	//
	//schema:minimum 0
	CacheFailures int `json:"cache_failures"`
	// Parts looked at and left in place, unchanged: the entries of left_alone.
	//
	//schema:minimum 0
	PartsSkipped int `json:"parts_skipped"`
	// Document (PDF), audio and video parts replaced.
	//
	//schema:minimum 0
	FilesReplaced int `json:"files_replaced"`
	// Of the parts replaced, those replaced by a description because the target model cannot read
	// their kind.
	//
	//schema:minimum 0
	MediaDescribed int `json:"media_described"`
	// Media of the kept turns taken out (cached, replaced by their placeholder) to keep the request
	// within the target provider's per-request limits (over_limits says which).
	//
	//schema:minimum 0
	MediaOverLimits int `json:"media_over_limits"`
	// Page images that replaced PDFs of the kept turns for a target that reads images but takes no
	// PDF (each PDF part replaced by its pages, every page's name and text layer before its image,
	// as tool.get_artifact sends them). Such a PDF is counted in files_replaced too.
	//
	//schema:minimum 0
	PDFPages int `json:"pdf_pages,omitempty"`
}

// LeftAlonePart is a part of the context that context.preprocess looked at and left as it was.
//
//schema:inline
type LeftAlonePart struct {
	// JSON path in messages: messages[3].content[0].content[1].
	Path string `json:"path"`
	// Why: malformed base64, a declared type its bytes contradict, an unknown part type, over the
	// size limit.
	Reason string `json:"reason"`
}
