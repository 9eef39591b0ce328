package routing

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// ErrUnknownDialect is wrapped by ParseDialect's error for a name that is not a dialect.
var ErrUnknownDialect = fmt.Errorf("unknown dialect (use one of %s)", strings.Join(contracts.Dialects, ", "))

// ParseDialect is the one validator of a request's dialect: it returns the canonical name of one
// of contracts.Dialects (case and surrounding spaces ignored; empty is openai-chat, the default),
// or an error wrapping ErrUnknownDialect. Every handler that takes a dialect calls it.
func ParseDialect(name string) (string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return contracts.DialectOpenAIChat, nil
	}
	if slices.Contains(contracts.Dialects, n) {
		return n, nil
	}
	return "", fmt.Errorf("dialect %q: %w", name, ErrUnknownDialect)
}

// ValidDialect reports whether ParseDialect accepts name.
func ValidDialect(name string) bool {
	_, err := ParseDialect(name)
	return err == nil
}

// normalizeDialect is ParseDialect for Assemble, which never fails: an unknown name is openai-chat.
func normalizeDialect(name string) string {
	if d, err := ParseDialect(name); err == nil {
		return d
	}
	return contracts.DialectOpenAIChat
}

// DialectProvider names the provider whose API a dialect speaks, as the registry names providers
// ("openai", "anthropic", "google", "bedrock"); langchain fronts any provider and gives "".
func DialectProvider(dialect string) string {
	switch normalizeDialect(dialect) {
	case contracts.DialectOpenAIChat, contracts.DialectOpenAIResponses:
		return "openai"
	case contracts.DialectAnthropic:
		return "anthropic"
	case contracts.DialectGemini:
		return "google"
	case contracts.DialectBedrockConverse:
		return "bedrock"
	}
	return ""
}

// carriage is what a dialect's tool-result shape can hold, per kind of media: nil means any
// format of that kind, an empty list none (PROVIDERS.md, "Where a tool's media may go" and "Part
// shapes").
type carriage struct {
	image, document, audio, video []string
	any                           bool
}

var openAIImages = []string{"png", "jpeg", "gif", "webp"}

var dialectCarriage = map[string]carriage{
	// image_url, file (PDF) and input_audio (wav, mp3) parts in the follow-up user message.
	contracts.DialectOpenAIChat: {image: openAIImages, document: []string{"pdf"}, audio: []string{"wav", "mp3"}, video: []string{}},
	// input_image and input_file (PDF) in function_call_output.output; input_audio is not allowed there.
	contracts.DialectOpenAIResponses: {image: openAIImages, document: []string{"pdf"}, audio: []string{}, video: []string{}},
	// image (its source's media_type enum) and document (PDF) blocks in tool_result.content.
	contracts.DialectAnthropic: {image: []string{"jpeg", "png", "gif", "webp"}, document: []string{"pdf"}, audio: []string{}, video: []string{}},
	// inlineData parts of functionResponse: any MIME type the model takes.
	contracts.DialectGemini: {any: true},
	// image, document and video blocks of toolResult.content, each with a closed list of formats.
	contracts.DialectBedrockConverse: {
		image:    []string{"png", "jpeg", "gif", "webp"},
		document: []string{"pdf", "csv", "doc", "docx", "xls", "xlsx", "html", "txt", "md"},
		audio:    []string{},
		video:    []string{"mkv", "mov", "mp4", "webm", "flv", "mpeg", "mpg", "wmv", "3gp"},
	},
	// image, file, audio and video standard blocks: whatever the model behind it takes.
	contracts.DialectLangChain: {any: true},
}

// DialectCarries reports whether a dialect's tool result can hold media of the given kind
// (contracts.BinaryImage, BinaryDocument, BinaryAudio, BinaryVideo) and format ("png", "pdf").
func DialectCarries(dialect, kind, format string) bool {
	c := dialectCarriage[normalizeDialect(dialect)]
	if c.any {
		return true
	}
	var list []string
	switch kind {
	case contracts.BinaryImage:
		list = c.image
	case contracts.BinaryDocument:
		list = c.document
	case contracts.BinaryAudio:
		list = c.audio
	case contracts.BinaryVideo:
		list = c.video
	default:
		return false
	}
	return list == nil || slices.Contains(list, format)
}
