package routing

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// mediaKind is what a routed part is, as far as the dialects care.
type mediaKind int

const (
	mediaNone mediaKind = iota
	mediaImage
	mediaDocument // PDF, and the office and text documents Bedrock takes
	mediaAudio
	mediaVideo
)

// media is the routed payload of a ContentRouteResult.
type media struct {
	kind     mediaKind
	mime     string
	format   string // "png", "pdf", "wav"
	data     string // standard base64, no data: prefix
	filename string
	url      string // the data URL it came from (image_url) or Route built (file), reused rather than built again (it can be tens of MB)
}

// dataURL is "data:{mime};base64,{data}", the one it came from when there is one.
func (m media) dataURL() string {
	if m.url != "" {
		return m.url
	}
	return "data:" + m.mime + ";base64," + m.data
}

// kindName is the contracts kind a dialect's carriage is listed by.
func (m media) kindName() string {
	switch m.kind {
	case mediaImage:
		return contracts.BinaryImage
	case mediaAudio:
		return contracts.BinaryAudio
	case mediaVideo:
		return contracts.BinaryVideo
	}
	return contracts.BinaryDocument
}

// routedMedia extracts the payload a result routes to the model. It returns mediaNone when the
// result routes nothing (routing text), and also sets unsupported when the result routes
// something the dialect cannot carry (a ZIP, a video for OpenAI, a malformed part).
func routedMedia(r contracts.ContentRouteResult, dialect string) (m media, unsupported bool) {
	switch {
	case r.Routing == contracts.RouteImageURL && r.ImageURL != nil:
		mime, data, ok := parseDataURL(r.ImageURL.ImageURL.URL)
		if !ok || !acceptedImageFormats[formatOf(mime)] {
			return media{}, true
		}
		m = media{kind: mediaImage, mime: mime, format: formatOf(mime), data: data}
		m.url = sameDataURL(r.ImageURL.ImageURL.URL, mime, data)
	case r.Routing == contracts.RouteFile && r.File != nil:
		f := r.File.File
		m = media{mime: normalizeMIME(f.MimeType), data: f.Data, filename: f.Filename}
		m.format = formatOf(m.mime)
		m.url = sameDataURL(f.DataURL, m.mime, m.data)
		switch {
		case m.mime == "" || m.data == "":
			return media{}, true
		case strings.HasPrefix(m.mime, "audio/"):
			m.kind = mediaAudio
		case strings.HasPrefix(m.mime, "video/"):
			m.kind = mediaVideo
		case strings.HasPrefix(m.mime, "image/"):
			return media{}, true // images travel as image_url
		default:
			m.kind = mediaDocument
		}
	case r.Routing == contracts.RouteImageURL, r.Routing == contracts.RouteFile:
		return media{}, true // routing says media, but the part is missing
	default:
		return media{}, false
	}
	if !DialectCarries(dialect, m.kindName(), m.format) {
		return media{}, true
	}
	return m, false
}

// Assemble turns a ContentRouteResult into the tool-result parts of a dialect (one of
// contracts.Dialects; anything else is openai-chat). ToolContent is what goes where the API puts
// a tool's result; FollowUp, for openai-chat and gemini, holds the user message that carries media.
// toolResultMedia (Formats.ToolResultMedia of the model) matters to gemini only.
//
//   - openai-chat: tool messages take text only, so ToolContent is a JSON string — the text, the
//     description, or for routed media the summary line and a note that the content follows — and
//     FollowUp holds one user message with a text part and the media part: image_url for images,
//     file (file_data data URL) for PDFs, input_audio for WAV and MP3.
//   - openai-responses: ToolContent is function_call_output.output: a string for text, else a list
//     of input_text plus input_image (data URL, detail auto) or input_file (PDF data URL).
//   - anthropic: ToolContent is the tool_result content list: a text block, plus an image block
//     or a document block (PDF). Empty text gives an empty list (Anthropic rejects empty text).
//   - gemini: ToolContent is a functionResponse without name and id (the caller's to set):
//     {"response":{"output":text}}. Media goes where toolResultMedia says: ToolResultMediaInline
//     (Gemini 3) adds "parts":[{"inlineData":{mimeType,data}}] to it; ToolResultMediaFollowUp (the
//     default, for every other value too: Gemini 2.x) puts the summary line and a note that the
//     content follows in output, and FollowUp holds one user content
//     {"role":"user","parts":[{"text":label},{"inlineData":{mimeType,data}}]}, to send after
//     every functionResponse of the turn.
//   - bedrock-converse: ToolContent is toolResult.content: a text block, plus an image, document
//     (format and a sanitised name) or video block with the bytes as base64. Empty text is sent
//     as "(empty)": Converse requires a content block.
//   - langchain: ToolContent is a ToolMessage's content: v1 standard blocks, text plus an image,
//     file (with extras.filename), audio or video block with base64 and mime_type.
//
// Media a dialect cannot carry is not sent: the text says so. Base64 only ever appears in media
// parts, never in a text field or a string ToolContent. The locale of the notes added here follows
// the markers Route writes at the start of Content. Assemble is pure and safe for concurrent use.
func Assemble(r contracts.ContentRouteResult, dialect, toolResultMedia string) contracts.Assembly {
	d := normalizeDialect(dialect)
	m, unsupported := routedMedia(r, d)
	return assemble(d, toolResultMedia, r.Content, m, unsupported, contentLocale(r.Content))
}

// AssembleText assembles a text-only tool result (a description, an error message) in a dialect:
// what Assemble does with a result that routes text. Error replies are assembled with it, so every
// dialect Assemble knows carries them too.
func AssembleText(text, dialect string) contracts.Assembly {
	return assemble(normalizeDialect(dialect), "", text, media{}, false, contentLocale(text))
}

// AssembleImage assembles one plain image, given as standard base64 (no data: prefix), with a
// text that goes with it (which must not hold the base64). A MIME type that no API accepts as an
// image, one the dialect cannot carry, or empty data gives the text alone. toolResultMedia is
// Assemble's.
func AssembleImage(mime, base64Data, text, dialect, toolResultMedia string) contracts.Assembly {
	d := normalizeDialect(dialect)
	m := media{kind: mediaImage, mime: normalizeMIME(mime), data: base64Data}
	m.format = formatOf(m.mime)
	if base64Data == "" || !acceptedImageFormats[m.format] || !DialectCarries(d, contracts.BinaryImage, m.format) {
		m = media{}
	}
	switch {
	case d == contracts.DialectOpenAIChat: // the text is a label, not a routed summary: no "follows" note
		a := contracts.Assembly{Dialect: d, ToolContent: marshal(text)}
		if m.kind != mediaNone {
			a.FollowUp = []contracts.ChatMessage{openAIFollowUp(text, m)}
		}
		return a
	case d == contracts.DialectGemini && toolResultMedia != ToolResultMediaInline:
		a := contracts.Assembly{Dialect: d, ToolContent: geminiResponse(text, media{})}
		if m.kind != mediaNone {
			a.FollowUp = []contracts.ChatMessage{geminiFollowUp(text, m)}
		}
		return a
	}
	return assemble(d, toolResultMedia, text, m, false, &zh)
}

// assemble builds the parts of dialect d (already normalised).
func assemble(d, toolResultMedia, content string, m media, unsupported bool, msgs *messages) contracts.Assembly {
	text := content
	if unsupported {
		text = content + "\n" + msgs.dialectCannot
	}
	switch d {
	case contracts.DialectOpenAIResponses:
		return contracts.Assembly{Dialect: d, ToolContent: responsesOutput(text, m)}
	case contracts.DialectAnthropic:
		return contracts.Assembly{Dialect: d, ToolContent: anthropicContent(text, m)}
	case contracts.DialectGemini:
		if m.kind == mediaNone || toolResultMedia == ToolResultMediaInline {
			return contracts.Assembly{Dialect: d, ToolContent: geminiResponse(text, m)}
		}
		return contracts.Assembly{Dialect: d, ToolContent: geminiResponse(content+"\n"+msgs.followsNext, media{}),
			FollowUp: []contracts.ChatMessage{geminiFollowUp(content, m)}}
	case contracts.DialectBedrockConverse:
		return contracts.Assembly{Dialect: d, ToolContent: bedrockContent(text, m)}
	case contracts.DialectLangChain:
		return contracts.Assembly{Dialect: d, ToolContent: langchainContent(text, m)}
	}
	a := contracts.Assembly{Dialect: contracts.DialectOpenAIChat}
	if m.kind == mediaNone {
		a.ToolContent = marshal(text)
		return a
	}
	a.ToolContent = marshal(content + "\n" + msgs.followsNext)
	a.FollowUp = []contracts.ChatMessage{openAIFollowUp(content, m)}
	return a
}

// openAIFollowUp is the user message carrying media after an OpenAI chat tool message.
func openAIFollowUp(label string, m media) contracts.ChatMessage {
	parts := make([]any, 0, 2)
	if label != "" {
		parts = append(parts, textPart{Type: "text", Text: label})
	}
	switch m.kind {
	case mediaImage:
		parts = append(parts, contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: m.dataURL()}})
	case mediaDocument:
		parts = append(parts, openAIFilePart{Type: "file", File: openAIFile{Filename: m.filename, FileData: m.dataURL()}})
	case mediaAudio:
		parts = append(parts, openAIAudioPart{Type: "input_audio", InputAudio: openAIAudio{Data: m.data, Format: m.format}})
	}
	return contracts.ChatMessage{Role: "user", Content: marshal(parts)}
}

// responsesOutput is function_call_output.output of OpenAI Responses.
func responsesOutput(text string, m media) json.RawMessage {
	if m.kind == mediaNone {
		return marshal(text)
	}
	parts := make([]any, 0, 2)
	if text != "" {
		parts = append(parts, textPart{Type: "input_text", Text: text})
	}
	switch m.kind {
	case mediaImage:
		parts = append(parts, responsesImage{Type: "input_image", ImageURL: m.dataURL(), Detail: "auto"})
	case mediaDocument:
		parts = append(parts, responsesFile{Type: "input_file", Filename: m.filename, FileData: m.dataURL()})
	}
	return marshal(parts)
}

// anthropicContent is tool_result.content of Anthropic Messages.
func anthropicContent(text string, m media) json.RawMessage {
	blocks := make([]any, 0, 2)
	if text != "" {
		blocks = append(blocks, textPart{Type: "text", Text: text})
	}
	switch m.kind {
	case mediaImage:
		blocks = append(blocks, anthropicBlock{Type: "image", Source: anthropicSource{Type: "base64", MediaType: m.mime, Data: m.data}})
	case mediaDocument:
		blocks = append(blocks, anthropicBlock{Type: "document", Source: anthropicSource{Type: "base64", MediaType: m.mime, Data: m.data}})
	}
	return marshal(blocks)
}

// geminiResponse is a Gemini functionResponse without its name and id.
func geminiResponse(text string, m media) json.RawMessage {
	r := geminiFunctionResponse{Response: geminiOutput{Output: text}}
	if m.kind != mediaNone {
		r.Parts = []geminiPart{{InlineData: &geminiBlob{MimeType: m.mime, Data: m.data}}}
	}
	return marshal(r)
}

// geminiFollowUp is the user content carrying media after a turn's function responses, for models
// that take no media inside a functionResponse.
func geminiFollowUp(label string, m media) contracts.ChatMessage {
	parts := make([]geminiPart, 0, 2)
	if label != "" {
		parts = append(parts, geminiPart{Text: label})
	}
	parts = append(parts, geminiPart{InlineData: &geminiBlob{MimeType: m.mime, Data: m.data}})
	return contracts.ChatMessage{Role: "user", Parts: marshal(parts)}
}

// bedrockContent is toolResult.content of Bedrock Converse.
func bedrockContent(text string, m media) json.RawMessage {
	blocks := make([]any, 0, 2)
	if text != "" || m.kind == mediaNone {
		if text == "" {
			text = bedrockEmpty // Converse requires at least one content block, and a text one not blank
		}
		blocks = append(blocks, bedrockText{Text: text})
	}
	src := bedrockSource{Bytes: m.data}
	switch m.kind {
	case mediaImage:
		blocks = append(blocks, bedrockImage{Image: bedrockMedia{Format: m.format, Source: src}})
	case mediaDocument:
		blocks = append(blocks, bedrockDocument{Document: bedrockMedia{Format: m.format, Name: bedrockDocumentName(m.filename), Source: src}})
	case mediaVideo:
		format := m.format
		if format == "3gp" {
			format = "three_gp"
		}
		blocks = append(blocks, bedrockVideo{Video: bedrockMedia{Format: format, Source: src}})
	}
	return marshal(blocks)
}

// bedrockEmpty stands for an empty text result in Bedrock Converse.
const bedrockEmpty = "(empty)"

// bedrockDocumentName makes a Bedrock document name from a filename: the name without its
// extension, keeping only ASCII letters and digits, single spaces, hyphens, parentheses and square
// brackets (what Bedrock allows); "document" when nothing is left.
func bedrockDocumentName(filename string) string {
	base := strings.TrimSuffix(filename, path.Ext(filename))
	var b strings.Builder
	space := false
	for _, r := range base {
		switch {
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', strings.ContainsRune("-()[]", r):
			b.WriteRune(r)
			space = false
		case !space && b.Len() > 0:
			b.WriteByte(' ')
			space = true
		}
		if b.Len() >= 200 {
			break
		}
	}
	if name := strings.TrimSpace(b.String()); name != "" {
		return name
	}
	return "document"
}

// langchainContent is a LangChain ToolMessage's content in v1 standard blocks.
func langchainContent(text string, m media) json.RawMessage {
	blocks := make([]any, 0, 2)
	if text != "" {
		blocks = append(blocks, textPart{Type: "text", Text: text})
	}
	switch m.kind {
	case mediaImage:
		blocks = append(blocks, langchainBlock{Type: "image", Base64: m.data, MimeType: m.mime})
	case mediaDocument:
		blocks = append(blocks, langchainBlock{Type: "file", Base64: m.data, MimeType: m.mime, Extras: &langchainExtras{Filename: m.filename}})
	case mediaAudio:
		blocks = append(blocks, langchainBlock{Type: "audio", Base64: m.data, MimeType: m.mime})
	case mediaVideo:
		blocks = append(blocks, langchainBlock{Type: "video", Base64: m.data, MimeType: m.mime})
	}
	return marshal(blocks)
}

type textPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type openAIFilePart struct {
	Type string     `json:"type"`
	File openAIFile `json:"file"`
}

type openAIFile struct {
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

type openAIAudioPart struct {
	Type       string      `json:"type"`
	InputAudio openAIAudio `json:"input_audio"`
}

type openAIAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

type responsesImage struct {
	Type     string `json:"type"`
	ImageURL string `json:"image_url"`
	Detail   string `json:"detail"`
}

type responsesFile struct {
	Type     string `json:"type"`
	Filename string `json:"filename"`
	FileData string `json:"file_data"`
}

type geminiFunctionResponse struct {
	Response geminiOutput `json:"response"`
	Parts    []geminiPart `json:"parts,omitempty"`
}

type geminiOutput struct {
	Output string `json:"output"`
}

// geminiPart is a Part holding text or inlineData.
type geminiPart struct {
	Text       string      `json:"text,omitempty"`
	InlineData *geminiBlob `json:"inlineData,omitempty"`
}

type geminiBlob struct {
	MimeType string `json:"mimeType"`
	Data     string `json:"data"`
}

type bedrockText struct {
	Text string `json:"text"`
}

type bedrockImage struct {
	Image bedrockMedia `json:"image"`
}

type bedrockDocument struct {
	Document bedrockMedia `json:"document"`
}

type bedrockVideo struct {
	Video bedrockMedia `json:"video"`
}

type bedrockMedia struct {
	Format string        `json:"format"`
	Name   string        `json:"name,omitempty"`
	Source bedrockSource `json:"source"`
}

type bedrockSource struct {
	Bytes string `json:"bytes"`
}

type langchainBlock struct {
	Type     string           `json:"type"`
	Base64   string           `json:"base64"`
	MimeType string           `json:"mime_type"`
	Extras   *langchainExtras `json:"extras,omitempty"`
}

type langchainExtras struct {
	Filename string `json:"filename,omitempty"`
}

type anthropicBlock struct {
	Type   string          `json:"type"`
	Source anthropicSource `json:"source"`
}

type anthropicSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// marshal encodes v without HTML escaping. The values here are strings and structs of strings,
// which always encode; a failure would be a bug and yields JSON null.
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// sameDataURL is u when it is "data:{mime};base64,{data}", else "". Comparing data with u's tail
// costs nothing when data is that tail (Route's file parts, a parsed image_url): the same memory.
func sameDataURL(u, mime, data string) string {
	prefix := "data:" + mime + ";base64,"
	if len(u) != len(prefix)+len(data) || !strings.HasPrefix(u, prefix) || u[len(prefix):] != data {
		return ""
	}
	return u
}

// parseDataURL splits "data:{mime};base64,{data}".
func parseDataURL(u string) (mime, data string, ok bool) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return "", "", false
	}
	head, data, ok := strings.Cut(rest, ",")
	if !ok {
		return "", "", false
	}
	mime, ok = strings.CutSuffix(head, ";base64")
	if !ok || data == "" {
		return "", "", false
	}
	return normalizeMIME(mime), data, true
}
