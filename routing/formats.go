package routing

import (
	"slices"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// Formats is what a model's API accepts as input, per modality, by format name as Detect gives
// it ("png", "jpeg", "pdf", "wav", "mp4"), and the limits of one image. Route sends an artifact
// as image_url or file only when its format (after image conversion) is listed here and the
// dialect can carry it; everything else is described.
//
// The zero value stands for "no list given": DefaultFormats applies. A Formats is immutable once
// built and safe for concurrent use.
type Formats struct {
	Image, File, Audio, Video []string
	Limits                    ImageLimits
	// ToolResultMedia is where the model takes the media of a tool result in the dialects where
	// that depends on the model (gemini): ToolResultMediaInline or ToolResultMediaFollowUp; empty
	// (or anything else) is ToolResultMediaFollowUp. Assemble takes it.
	ToolResultMedia string
	// Tokens is the image token rule of the model's provider (contracts.UsageOpenAITiles,
	// UsageAnthropicPixels, UsageGeminiTiles): usage counts with it in every dialect. Empty (the
	// provider is not known) falls back to the dialect's rule (dialects.Dialect.Tokens).
	Tokens string
	// StrictToolOrdering marks a provider that rejects a user message right after a tool message
	// (Mistral and other OpenAI-compatible backends): Assemble puts an assistant message before an
	// openai-chat follow-up (docs/design.md, "Ordering-strict providers").
	StrictToolOrdering bool
	// Request holds the provider's limits across one request (docs/design.md, "Per-request
	// limits"). Assemble gives them to an assembly that carries media, for the turn helpers.
	Request contracts.RequestLimits
}

// Where a model takes a tool result's media (Formats.ToolResultMedia, the registry's
// "toolResultMedia"). Only gemini depends on it (docs/providers.md: media inside functionResponse.parts
// from Gemini 3 on; older models: a following user turn); the other dialects have one place,
// fixed by their API.
const (
	// ToolResultMediaInline: inside the tool result (gemini: functionResponse.parts[].inlineData).
	ToolResultMediaInline = "inline"
	// ToolResultMediaFollowUp: in a user turn after every tool result of the turn (gemini:
	// Assembly.FollowUp). Every model takes it, so it is the default.
	ToolResultMediaFollowUp = "followUp"
)

// ImageLimits are the largest image a provider takes or reads at full resolution. Zero fields set
// no limit.
type ImageLimits struct {
	// MaxLongEdge and MaxShortEdge bound the image's sides in pixels, MaxPixels their product.
	MaxLongEdge, MaxShortEdge, MaxPixels int
	// MaxBytes bounds the encoded image (not its base64).
	MaxBytes int64
	// StaticOnly is set when animated images are rejected: an animated GIF goes as its first frame.
	StaticOnly bool
}

// DefaultFormats is what Route assumes when Input.Formats is the zero value: what every provider
// of docs/providers.md takes for a modality (PNG, JPEG, WEBP images; PDF files; WAV and MP3 audio; MP4
// video), with limits every provider reads in full (2048 px long edge, 1.15 megapixels, base64
// under 5 MB, static images only).
func DefaultFormats() Formats {
	return Formats{
		Image: []string{"png", "jpeg", "webp"},
		File:  []string{"pdf"},
		Audio: []string{"wav", "mp3"},
		Video: []string{"mp4"},
		Limits: ImageLimits{
			MaxLongEdge: 2048, MaxPixels: 1_150_000, MaxBytes: 3_932_160, StaticOnly: true,
		},
	}
}

// IsZero reports whether no format list was given.
func (f Formats) IsZero() bool {
	return f.Image == nil && f.File == nil && f.Audio == nil && f.Video == nil && f.Limits == ImageLimits{} && f.ToolResultMedia == "" &&
		f.Tokens == "" && !f.StrictToolOrdering && f.Request == contracts.RequestLimits{}
}

// orDefault is f, or DefaultFormats when f is the zero value.
func (f Formats) orDefault() Formats {
	if f.IsZero() {
		return DefaultFormats()
	}
	return f
}

// list is the accepted formats of a kind of artifact; documents and other binaries go as files.
func (f Formats) list(kind string) []string {
	switch kind {
	case contracts.BinaryImage:
		return f.Image
	case contracts.BinaryAudio:
		return f.Audio
	case contracts.BinaryVideo:
		return f.Video
	default:
		return f.File
	}
}

// Accepts reports whether the model takes this format of this kind and the dialect can carry it.
func (f Formats) Accepts(dialect, kind, format string) bool {
	if format == "" {
		return false
	}
	carryKind := kind
	if kind != contracts.BinaryImage && kind != contracts.BinaryAudio && kind != contracts.BinaryVideo {
		carryKind = contracts.BinaryDocument
	}
	return containsFold(f.list(kind), format) && DialectCarries(dialect, carryKind, format)
}

// accepted lists the formats of a kind that the model takes and the dialect carries.
func (f Formats) accepted(dialect, kind string) []string {
	var out []string
	for _, name := range f.list(kind) {
		if f.Accepts(dialect, kind, strings.ToLower(name)) {
			out = append(out, strings.ToLower(name))
		}
	}
	return out
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(e string) bool { return strings.EqualFold(e, s) })
}
