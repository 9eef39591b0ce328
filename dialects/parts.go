package dialects

import (
	"bytes"
	"encoding/json"
	"path"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// Media is the payload a tool result routes to the model. The zero value (Kind "") is no media.
type Media struct {
	// Kind is contracts.BinaryImage, BinaryDocument (PDF, and the office and text documents
	// Bedrock takes), BinaryAudio or BinaryVideo; "" for none.
	Kind     string
	MIME     string
	Format   string // "png", "pdf", "wav"
	Data     string // standard base64, no data: prefix
	Filename string
	// URL is the data URL the media came from, when there is one: reused rather than built
	// again (it can be tens of MB).
	URL string
}

// DataURL is "data:{MIME};base64,{Data}", the one it came from when there is one.
func (m Media) DataURL() string {
	if m.URL != "" {
		return m.URL
	}
	return "data:" + m.MIME + ";base64," + m.Data
}

// stringContent is a tool message's content of OpenAI Chat: the text as a JSON string (tool
// messages take text only; the media goes in the follow-up).
func stringContent(text string, _ Media) json.RawMessage { return marshal(text) }

// openAIBridge is the assistant message between the tool messages and the follow-up for
// OpenAI-compatible providers that reject a user message right after a tool message.
func openAIBridge(text string) contracts.ChatMessage {
	return contracts.ChatMessage{Role: "assistant", Content: marshal(text)}
}

// openAIFollowUp is the user message carrying media after an OpenAI chat tool message.
func openAIFollowUp(label string, m Media) contracts.ChatMessage {
	parts := make([]any, 0, 2)
	if label != "" {
		parts = append(parts, textPart{Type: "text", Text: label})
	}
	switch m.Kind {
	case contracts.BinaryImage:
		parts = append(parts, contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: m.DataURL()}})
	case contracts.BinaryDocument:
		parts = append(parts, openAIFilePart{Type: "file", File: openAIFile{Filename: m.Filename, FileData: m.DataURL()}})
	case contracts.BinaryAudio:
		parts = append(parts, openAIAudioPart{Type: "input_audio", InputAudio: openAIAudio{Data: m.Data, Format: m.Format}})
	}
	return contracts.ChatMessage{Role: "user", Content: marshal(parts)}
}

// responsesOutput is function_call_output.output of OpenAI Responses.
func responsesOutput(text string, m Media) json.RawMessage {
	if m.Kind == "" {
		return marshal(text)
	}
	parts := make([]any, 0, 2)
	if text != "" {
		parts = append(parts, textPart{Type: "input_text", Text: text})
	}
	switch m.Kind {
	case contracts.BinaryImage:
		parts = append(parts, responsesImage{Type: "input_image", ImageURL: m.DataURL(), Detail: "auto"})
	case contracts.BinaryDocument:
		parts = append(parts, responsesFile{Type: "input_file", Filename: m.Filename, FileData: m.DataURL()})
	}
	return marshal(parts)
}

// anthropicContent is tool_result.content of Anthropic Messages.
func anthropicContent(text string, m Media) json.RawMessage {
	blocks := make([]any, 0, 2)
	if text != "" {
		blocks = append(blocks, textPart{Type: "text", Text: text})
	}
	switch m.Kind {
	case contracts.BinaryImage:
		blocks = append(blocks, anthropicBlock{Type: "image", Source: anthropicSource{Type: "base64", MediaType: m.MIME, Data: m.Data}})
	case contracts.BinaryDocument:
		blocks = append(blocks, anthropicBlock{Type: "document", Source: anthropicSource{Type: "base64", MediaType: m.MIME, Data: m.Data}})
	}
	return marshal(blocks)
}

// geminiResponse is a Gemini functionResponse without its name and id.
func geminiResponse(text string, m Media) json.RawMessage {
	r := geminiFunctionResponse{Response: geminiOutput{Output: text}}
	if m.Kind != "" {
		r.Parts = []geminiPart{{InlineData: &geminiBlob{MimeType: m.MIME, Data: m.Data}}}
	}
	return marshal(r)
}

// geminiFollowUp is the user content carrying media after a turn's function responses, for models
// that take no media inside a functionResponse.
func geminiFollowUp(label string, m Media) contracts.ChatMessage {
	parts := make([]geminiPart, 0, 2)
	if label != "" {
		parts = append(parts, geminiPart{Text: label})
	}
	parts = append(parts, geminiPart{InlineData: &geminiBlob{MimeType: m.MIME, Data: m.Data}})
	return contracts.ChatMessage{Role: "user", Parts: marshal(parts)}
}

// bedrockContent is toolResult.content of Bedrock Converse.
func bedrockContent(text string, m Media) json.RawMessage {
	blocks := make([]any, 0, 2)
	if text != "" || m.Kind == "" {
		if text == "" {
			text = bedrockEmpty // Converse requires at least one content block, and a text one not blank
		}
		blocks = append(blocks, bedrockText{Text: text})
	}
	src := bedrockSource{Bytes: m.Data}
	switch m.Kind {
	case contracts.BinaryImage:
		blocks = append(blocks, bedrockImage{Image: bedrockMedia{Format: m.Format, Source: src}})
	case contracts.BinaryDocument:
		blocks = append(blocks, bedrockDocument{Document: bedrockMedia{Format: m.Format, Name: bedrockDocumentName(m.Filename), Source: src}})
	case contracts.BinaryVideo:
		format := m.Format
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
func langchainContent(text string, m Media) json.RawMessage {
	blocks := make([]any, 0, 2)
	if text != "" {
		blocks = append(blocks, textPart{Type: "text", Text: text})
	}
	switch m.Kind {
	case contracts.BinaryImage:
		blocks = append(blocks, langchainBlock{Type: "image", Base64: m.Data, MimeType: m.MIME})
	case contracts.BinaryDocument:
		blocks = append(blocks, langchainBlock{Type: "file", Base64: m.Data, MimeType: m.MIME, Extras: &langchainExtras{Filename: m.Filename}})
	case contracts.BinaryAudio:
		blocks = append(blocks, langchainBlock{Type: "audio", Base64: m.Data, MimeType: m.MIME})
	case contracts.BinaryVideo:
		blocks = append(blocks, langchainBlock{Type: "video", Base64: m.Data, MimeType: m.MIME})
	}
	return marshal(blocks)
}

// langchainJSContent is a LangChain.js ToolMessage's content in standard content blocks: text,
// then an image, file, audio or video block with data (base64) and mimeType; a file's name in
// metadata.filename, where LangChain.js's provider converters read it.
func langchainJSContent(text string, m Media) json.RawMessage {
	blocks := make([]any, 0, 2)
	if text != "" {
		blocks = append(blocks, textPart{Type: "text", Text: text})
	}
	b := langchainJSBlock{Data: m.Data, MimeType: m.MIME}
	switch m.Kind {
	case contracts.BinaryImage:
		b.Type = "image"
	case contracts.BinaryDocument:
		b.Type = "file"
		if m.Filename != "" {
			b.Metadata = &langchainJSMetadata{Filename: m.Filename}
		}
	case contracts.BinaryAudio:
		b.Type = "audio"
	case contracts.BinaryVideo:
		b.Type = "video"
	}
	if b.Type != "" {
		blocks = append(blocks, b)
	}
	return marshal(blocks)
}

type langchainJSBlock struct {
	Type     string               `json:"type"`
	Data     string               `json:"data"`
	MimeType string               `json:"mimeType"`
	Metadata *langchainJSMetadata `json:"metadata,omitempty"`
}

type langchainJSMetadata struct {
	Filename string `json:"filename"`
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
