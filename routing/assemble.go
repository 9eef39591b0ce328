package routing

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// ValidDialect reports whether name is a dialect Assemble knows: contracts.DialectOpenAIChat,
// contracts.DialectAnthropic, or empty (the default, openai-chat). Case and surrounding spaces
// are ignored. Callers validate request fields with it; Assemble itself treats any unknown name
// as openai-chat.
func ValidDialect(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "", contracts.DialectOpenAIChat, contracts.DialectAnthropic:
		return true
	}
	return false
}

func normalizeDialect(name string) string {
	if strings.EqualFold(strings.TrimSpace(name), contracts.DialectAnthropic) {
		return contracts.DialectAnthropic
	}
	return contracts.DialectOpenAIChat
}

// mediaKind is what a routed part is, as far as the dialects care.
type mediaKind int

const (
	mediaNone mediaKind = iota
	mediaImage
	mediaPDF
	mediaAudio
)

// media is the routed payload of a ContentRouteResult.
type media struct {
	kind     mediaKind
	mime     string
	data     string // standard base64, no data: prefix
	filename string
	url      string // the data URL it came from, reused rather than built again (it can be tens of MB)
}

// routedMedia extracts the payload a result routes to the model. It returns mediaNone when the
// result routes nothing (routing text), and also sets unsupported when the result routes
// something no dialect here can carry (a ZIP, a video, a malformed part).
func routedMedia(r contracts.ContentRouteResult) (m media, unsupported bool) {
	switch {
	case r.Routing == contracts.RouteImageURL && r.ImageURL != nil:
		mime, data, ok := parseDataURL(r.ImageURL.ImageURL.URL)
		if !ok || !acceptedImageFormats[formatOf(mime)] {
			return media{}, true
		}
		m := media{kind: mediaImage, mime: mime, data: data}
		if u, prefix := r.ImageURL.ImageURL.URL, "data:"+mime+";base64,"; strings.HasPrefix(u, prefix) && len(u) == len(prefix)+len(data) {
			m.url = u
		}
		return m, false
	case r.Routing == contracts.RouteFile && r.File != nil:
		f := r.File.File
		m := media{mime: normalizeMIME(f.MimeType), data: f.Data, filename: f.Filename}
		switch m.mime {
		case "application/pdf":
			m.kind = mediaPDF
		case "audio/wav", "audio/mpeg":
			m.kind = mediaAudio
		default:
			return media{}, true
		}
		if m.data == "" {
			return media{}, true
		}
		return m, false
	case r.Routing == contracts.RouteImageURL, r.Routing == contracts.RouteFile:
		return media{}, true // routing says media, but the part is missing
	}
	return media{}, false
}

// Assemble turns a ContentRouteResult into the message parts of a dialect (contracts.DialectOpenAIChat
// or contracts.DialectAnthropic; anything else is openai-chat).
//
// openai-chat: tool messages take text only, so ToolContent is a JSON string — the text, the
// description, or for routed media the summary line and a note that the content follows — and
// FollowUp holds one user message with a text part and the media part: image_url for images,
// file (file_data data URL) for PDFs, input_audio for WAV and MP3. Media OpenAI chat cannot take
// (other files, video) is not sent: ToolContent says so.
//
// anthropic: ToolContent is the tool_result content list: a text block, plus an image block for
// images or a document block for PDFs. Media Anthropic cannot take (audio, video, other files)
// is not sent: the text block says so. Empty text gives an empty list, since Anthropic rejects
// empty text blocks.
//
// Base64 only ever appears in media parts, never in a text field or a string ToolContent. The
// locale of the notes added here follows the markers Route writes at the start of Content.
// Assemble is pure and safe for concurrent use.
func Assemble(r contracts.ContentRouteResult, dialect string) contracts.Assembly {
	msgs := contentLocale(r.Content)
	m, unsupported := routedMedia(r)
	if normalizeDialect(dialect) == contracts.DialectAnthropic {
		if m.kind == mediaAudio { // Anthropic takes images and PDFs only
			m, unsupported = media{}, true
		}
		return assembleAnthropic(r.Content, m, unsupported, msgs)
	}
	return assembleOpenAIChat(r.Content, m, unsupported, msgs)
}

// AssembleImage assembles one plain image, given as standard base64 (no data: prefix), with a
// text that goes with it (which must not hold the base64). A MIME type that no API accepts as an
// image, or empty data, gives the text alone.
func AssembleImage(mime, base64Data, text, dialect string) contracts.Assembly {
	m := media{kind: mediaImage, mime: normalizeMIME(mime), data: base64Data}
	if base64Data == "" || !acceptedImageFormats[formatOf(m.mime)] {
		m = media{}
	}
	if normalizeDialect(dialect) == contracts.DialectAnthropic {
		return assembleAnthropic(text, m, false, &zh)
	}
	a := contracts.Assembly{Dialect: contracts.DialectOpenAIChat, ToolContent: marshal(text)}
	if m.kind != mediaNone {
		a.FollowUp = []contracts.ChatMessage{openAIFollowUp(text, m)}
	}
	return a
}

func assembleOpenAIChat(content string, m media, unsupported bool, msgs *messages) contracts.Assembly {
	a := contracts.Assembly{Dialect: contracts.DialectOpenAIChat}
	switch {
	case m.kind != mediaNone:
		a.ToolContent = marshal(content + "\n" + msgs.followsNext)
		a.FollowUp = []contracts.ChatMessage{openAIFollowUp(content, m)}
	case unsupported:
		a.ToolContent = marshal(content + "\n" + msgs.dialectCannot)
	default:
		a.ToolContent = marshal(content)
	}
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
		url := m.url
		if url == "" {
			url = "data:" + m.mime + ";base64," + m.data
		}
		parts = append(parts, contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: url}})
	case mediaPDF:
		parts = append(parts, openAIFilePart{Type: "file", File: openAIFile{Filename: m.filename, FileData: "data:" + m.mime + ";base64," + m.data}})
	case mediaAudio:
		parts = append(parts, openAIAudioPart{Type: "input_audio", InputAudio: openAIAudio{Data: m.data, Format: formatOf(m.mime)}})
	}
	return contracts.ChatMessage{Role: "user", Content: marshal(parts)}
}

func assembleAnthropic(content string, m media, unsupported bool, msgs *messages) contracts.Assembly {
	blocks := make([]any, 0, 2)
	text := content
	if unsupported {
		text = content + "\n" + msgs.dialectCannot
	}
	if text != "" {
		blocks = append(blocks, textPart{Type: "text", Text: text})
	}
	switch m.kind {
	case mediaImage:
		blocks = append(blocks, anthropicBlock{Type: "image", Source: anthropicSource{Type: "base64", MediaType: m.mime, Data: m.data}})
	case mediaPDF:
		blocks = append(blocks, anthropicBlock{Type: "document", Source: anthropicSource{Type: "base64", MediaType: m.mime, Data: m.data}})
	}
	return contracts.Assembly{Dialect: contracts.DialectAnthropic, ToolContent: marshal(blocks)}
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
