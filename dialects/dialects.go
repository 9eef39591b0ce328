package dialects

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// Dialect is everything the worker and its clients know about one dialect. The table (All) is
// the only place a dialect's behaviour is written down; a Dialect is never modified.
type Dialect struct {
	// Name is the dialect's name on the wire (one of contracts.Dialects).
	Name string
	// Provider names the registry provider ("openai", "anthropic", "google", "bedrock") whose
	// defaults apply to a model the registry does not know; "" (a dialect that fronts any
	// provider) is the registry's default entry.
	Provider string
	// Tokens is the image token rule (contracts.UsageOpenAITiles, UsageAnthropicPixels,
	// UsageGeminiTiles) usage applies when the model's provider is not known: the model's
	// provider decides when the registry knows it (docs/design.md, "Token estimates").
	Tokens string
	// Carriage is what the dialect's tool result (or its follow-up) can hold.
	Carriage Carriage
	// Media says where routed media goes: in the tool result, in a follow-up message, or where
	// the model takes it (routing.Formats.ToolResultMedia).
	Media Placement
	// ToolContent builds what goes where the API puts a tool's result: the text (never holding
	// base64) and, when m is not empty, the media part. It is what Assembly.ToolContent holds.
	ToolContent func(text string, m Media) json.RawMessage
	// FollowUp builds the message that carries media after the turn's tool results, for
	// dialects whose Media is not InToolResult; label is the text that goes with the media.
	FollowUp func(label string, m Media) contracts.ChatMessage
	// Bridge, when set, builds the message that goes between a tool message and the follow-up for
	// a provider that rejects a user message right after a tool message (the registry's
	// strictToolOrdering; docs/design.md, "Ordering-strict providers").
	Bridge func(text string) contracts.ChatMessage
	// Text is the shape ToolContent gives a text alone (TextString, TextBlocks, ...): what the
	// JavaScript client writes for an error it assembles itself.
	Text TextShape
	// Turn is how the answers to the calls of one assistant turn are put together.
	Turn Turn
	// Conversation is the shape of a conversation in the dialect: what context.preprocess
	// (historyimage) accepts as its list of messages.
	Conversation Conversation
	// Tools writes function tools as the JSON value of the API's tools field (`worker tools`,
	// contracts/tools); nil for a dialect that binds tools in another dialect's form (LangChain
	// takes OpenAI chat's dicts in bind_tools).
	Tools func([]FunctionTool) []any
}

// Conversation is the shape of a dialect's list of messages.
type Conversation struct {
	// Shape is what each element of the list is.
	Shape Shape
	// ContentList: a message's content must be a list of parts (never a string).
	ContentList bool
	// Roles are the roles a message (or an input item with a role) may have; nil: any.
	Roles []string
	// Parts is how a content part is written (and the parts inside a tool result).
	Parts PartStyle
	// MediaParts, for TypedParts, are the part types that carry media or tool results in the
	// dialect. A part whose type another dialect lists there and this one does not (an Anthropic
	// "image" block in openai-chat) is not in the dialect's shape. Nil: any type.
	MediaParts []string
}

// PartStyle is how a dialect writes its content parts.
type PartStyle string

const (
	// TypedParts: objects with a string "type" ({"type":"text",...}).
	TypedParts PartStyle = "typed"
	// KeyedParts: objects without a "type", named by their member ({"text":...},
	// {"inlineData":...}, {"toolResult":...}).
	KeyedParts PartStyle = "keyed"
	// TypedOrStringParts: objects with a "type", or bare strings (LangChain).
	TypedOrStringParts PartStyle = "typedOrString"
)

// ForeignPart reports whether a part of type typ is another dialect's media or tool-result part
// that d does not have (d's MediaParts exclude it and some other dialect's list it).
func (d *Dialect) ForeignPart(typ string) bool {
	c := d.Conversation
	if c.Parts != TypedParts || c.MediaParts == nil || slices.Contains(c.MediaParts, typ) {
		return false
	}
	return mediaPartTypes[typ]
}

// mediaPartTypes are the MediaParts of every dialect.
var mediaPartTypes = func() map[string]bool {
	m := map[string]bool{}
	for _, d := range table {
		for _, t := range d.Conversation.MediaParts {
			m[t] = true
		}
	}
	return m
}()

// Shape is the kind of element a dialect's list of messages holds.
type Shape string

const (
	// Messages: objects with a role (OpenAI chat, Anthropic, Bedrock Converse).
	Messages Shape = "messages"
	// PairsOrObjects: [role, content] pairs, objects with a role, or message dicts with a type
	// instead ({"type":"human",...}), and the two forms LangChain stores messages in: its message
	// store's {"type":"human","data":{"content":...}} and dumpd's serialized constructor
	// {"lc":1,"type":"constructor","id":[...,"HumanMessage"],"kwargs":{"content":...}}; content
	// parts may be bare strings (LangChain).
	PairsOrObjects Shape = "pairsOrObjects"
	// Contents: objects with a parts list, whose role is user when it has none (Gemini).
	Contents Shape = "contents"
	// Items: input items, each with a role or a type (function_call_output, ...) that tells whose
	// it is (OpenAI Responses).
	Items Shape = "items"
)

// Placement is where a dialect puts routed media.
type Placement string

const (
	// InToolResult: the media part is in ToolContent.
	InToolResult Placement = "toolResult"
	// InFollowUp: ToolContent says the content follows, and Assembly.FollowUp carries the media.
	InFollowUp Placement = "followUp"
	// ByModel: in the tool result for a model whose Formats.ToolResultMedia is "inline", in a
	// follow-up for every other model.
	ByModel Placement = "byModel"
)

// FollowsUp reports whether media goes in a follow-up message for a model whose tool-result
// media placement is toolResultMedia ("inline", "followUp" or "").
func (d *Dialect) FollowsUp(toolResultMedia string) bool {
	switch d.Media {
	case InFollowUp:
		return true
	case ByModel:
		return toolResultMedia != "inline"
	}
	return false
}

// Carriage is what a dialect's tool result can hold, per kind of media: a nil list means any
// format of that kind, an empty list none. Any means every kind and format (the model decides).
type Carriage struct {
	Image, Document, Audio, Video []string
	Any                           bool
}

// Carries reports whether the dialect can carry media of the given kind (contracts.BinaryImage,
// BinaryDocument, BinaryAudio, BinaryVideo) and format ("png", "pdf").
func (d *Dialect) Carries(kind, format string) bool {
	c := d.Carriage
	if c.Any {
		return true
	}
	var list []string
	switch kind {
	case contracts.BinaryImage:
		list = c.Image
	case contracts.BinaryDocument:
		list = c.Document
	case contracts.BinaryAudio:
		list = c.Audio
	case contracts.BinaryVideo:
		list = c.Video
	default:
		return false
	}
	return list == nil || slices.Contains(list, format)
}

// TextShape is the shape of a text-only tool content.
type TextShape string

const (
	// TextString: the text as a JSON string.
	TextString TextShape = "string"
	// TextBlocks: [{"type":"text","text":…}], [] for an empty text.
	TextBlocks TextShape = "blocks"
	// TextGemini: {"response":{"output":…}}.
	TextGemini TextShape = "geminiResponse"
	// TextBedrock: [{"text":…}], "(empty)" for an empty text (Converse requires a non-blank block).
	TextBedrock TextShape = "bedrockBlocks"
)

var openAIImages = []string{"png", "jpeg", "gif", "webp"}

// table lists the dialects, the default (openai-chat) first. The carriage lists follow each
// API's tool-result shape (docs/providers.md, "Where a tool's media may go").
var table = []*Dialect{
	{
		Name: contracts.DialectOpenAIChat, Tools: openAIChatTools, Provider: "openai", Tokens: contracts.UsageOpenAITiles,
		// image_url, file (PDF) and input_audio (wav, mp3) parts in the follow-up user message.
		Carriage: Carriage{Image: openAIImages, Document: []string{"pdf"}, Audio: []string{"wav", "mp3"}, Video: []string{}},
		Media:    InFollowUp, ToolContent: stringContent, FollowUp: openAIFollowUp, Bridge: openAIBridge, Text: TextString,
		Turn: Turn{Answer: `{"role":"tool","tool_call_id":"$id","content":"$content"}`, Note: `{"type":"text","text":"$text"}`},
		Conversation: Conversation{Shape: Messages, Roles: []string{"system", "developer", "user", "assistant", "tool", "function"},
			Parts: TypedParts, MediaParts: []string{"image_url", "file", "input_audio"}},
	},
	{
		Name: contracts.DialectOpenAIResponses, Tools: openAIResponsesTools, Provider: "openai", Tokens: contracts.UsageOpenAITiles,
		// input_image and input_file (PDF) in function_call_output.output; input_audio is not allowed there.
		Carriage: Carriage{Image: openAIImages, Document: []string{"pdf"}, Audio: []string{}, Video: []string{}},
		Media:    InToolResult, ToolContent: responsesOutput, Text: TextString,
		Turn: Turn{Answer: `{"type":"function_call_output","call_id":"$id","output":"$content"}`, Note: `{"type":"input_text","text":"$text"}`},
		Conversation: Conversation{Shape: Items, Roles: []string{"system", "developer", "user", "assistant"},
			Parts: TypedParts, MediaParts: []string{"input_image", "input_file", "input_audio"}},
	},
	{
		Name: contracts.DialectAnthropic, Tools: anthropicTools, Provider: "anthropic", Tokens: contracts.UsageAnthropicPixels,
		// image (its source's media_type enum) and document (PDF) blocks in tool_result.content.
		Carriage: Carriage{Image: []string{"jpeg", "png", "gif", "webp"}, Document: []string{"pdf"}, Audio: []string{}, Video: []string{}},
		Media:    InToolResult, ToolContent: anthropicContent, Text: TextBlocks,
		Turn: Turn{Group: "content", Answer: `{"type":"tool_result","tool_use_id":"$id","content":"$content","is_error":"$failed"}`, Note: `{"type":"text","text":"$text"}`},
		Conversation: Conversation{Shape: Messages, Roles: []string{"user", "assistant"},
			Parts: TypedParts, MediaParts: []string{"image", "document", "tool_result"}},
	},
	{
		Name: contracts.DialectGemini, Tools: geminiTools, Provider: "google", Tokens: contracts.UsageGeminiTiles,
		// inlineData parts of functionResponse: any MIME type the model takes.
		Carriage: Carriage{Any: true},
		Media:    ByModel, ToolContent: geminiResponse, FollowUp: geminiFollowUp, Text: TextGemini,
		// Gemini takes the responses to parallel calls together, in one content.
		Turn: Turn{Group: "parts", FollowUpBody: "parts", Answer: `{"functionResponse":{"...":"$content","id":"$id","name":"$name"}}`, Note: `{"text":"$text"}`},
		// "function" is the role older Gemini SDKs gave function responses.
		Conversation: Conversation{Shape: Contents, Roles: []string{"user", "model", "function"}, Parts: KeyedParts},
	},
	{
		Name: contracts.DialectBedrockConverse, Tools: bedrockTools, Provider: "bedrock", Tokens: contracts.UsageAnthropicPixels,
		// image, document and video blocks of toolResult.content, each with a closed list of formats.
		Carriage: Carriage{
			Image:    []string{"png", "jpeg", "gif", "webp"},
			Document: []string{"pdf", "csv", "doc", "docx", "xls", "xlsx", "html", "txt", "md"},
			Audio:    []string{},
			Video:    []string{"mkv", "mov", "mp4", "webm", "flv", "mpeg", "mpg", "wmv", "3gp"},
		},
		Media: InToolResult, ToolContent: bedrockContent, Text: TextBedrock,
		// Document names must be unique within a request (docs/providers.md, "Part shapes").
		Turn:         Turn{Group: "content", Answer: `{"toolResult":{"toolUseId":"$id","content":"$content","status":"$status"}}`, Note: `{"text":"$text"}`, DocumentName: "document"},
		Conversation: Conversation{Shape: Messages, ContentList: true, Roles: []string{"user", "assistant"}, Parts: KeyedParts},
	},
	{
		Name: contracts.DialectLangChain, Tokens: contracts.UsageOpenAITiles,
		// image, file, audio and video standard blocks: whatever the model behind it takes.
		Carriage: Carriage{Any: true},
		Media:    InToolResult, ToolContent: langchainContent, Text: TextBlocks,
		Turn:         Turn{Answer: `{"role":"tool","tool_call_id":"$id","name":"$name?","content":"$content"}`, Note: `{"type":"text","text":"$text"}`},
		Conversation: Conversation{Shape: PairsOrObjects, Parts: TypedOrStringParts},
	},
	{
		Name: contracts.DialectLangChainJS, Tokens: contracts.UsageOpenAITiles,
		// LangChain.js standard blocks: the same kinds as langchain, with data and mimeType.
		Carriage: Carriage{Any: true},
		Media:    InToolResult, ToolContent: langchainJSContent, Text: TextBlocks,
		Turn:         Turn{Answer: `{"role":"tool","tool_call_id":"$id","name":"$name?","content":"$content"}`, Note: `{"type":"text","text":"$text"}`},
		Conversation: Conversation{Shape: PairsOrObjects, Parts: TypedOrStringParts},
	},
}

var byName = func() map[string]*Dialect {
	m := make(map[string]*Dialect, len(table))
	for _, d := range table {
		d.Turn.parsed = mustParseTemplate(d.Name, d.Turn.Answer)
		m[d.Name] = d
	}
	return m
}()

// ErrUnknown is wrapped by Parse's error for a name that is not a dialect.
var ErrUnknown = fmt.Errorf("unknown dialect (use one of %s)", strings.Join(contracts.Dialects, ", "))

// Parse is the one validator of a request's dialect: the Dialect of a name (case and surrounding
// spaces ignored; empty is openai-chat, the default), or an error wrapping ErrUnknown.
func Parse(name string) (*Dialect, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		n = contracts.DefaultDialect
	}
	if d, ok := byName[n]; ok {
		return d, nil
	}
	return nil, fmt.Errorf("dialect %q: %w", name, ErrUnknown)
}

// Get is Parse for callers that never fail: an unknown name is openai-chat.
func Get(name string) *Dialect {
	if d, err := Parse(name); err == nil {
		return d
	}
	return table[0]
}

// Lookup is the dialect of an exact wire name (as an Assembly carries it), if there is one.
func Lookup(name string) (*Dialect, bool) {
	d, ok := byName[name]
	return d, ok
}

// All returns every dialect, the default first, in contracts.Dialects order.
func All() []*Dialect { return slices.Clone(table) }

// errTemplate reports a turn template the table got wrong: a bug, caught by the package's tests.
var errTemplate = errors.New("dialects: bad turn template")
