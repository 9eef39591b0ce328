package routing

import (
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/mediaformat"
	"github.com/agentworks/artifact-worker/messages"
)

// routedMedia extracts the payload a result routes to the model. It returns no media (Kind "")
// when the result routes nothing (routing text), and also sets unsupported when the result routes
// something the dialect cannot carry (a ZIP, a video for OpenAI, a malformed part).
func routedMedia(r contracts.ContentRouteResult, d *dialects.Dialect) (m dialects.Media, unsupported bool) {
	switch {
	case r.Routing == contracts.RouteImageURL && r.ImageURL != nil:
		mime, data, ok := parseDataURL(r.ImageURL.ImageURL.URL)
		if !ok || !mediaformat.SendableImage(mediaformat.Name(mime)) {
			return dialects.Media{}, true
		}
		m = dialects.Media{Kind: contracts.BinaryImage, MIME: mime, Format: mediaformat.Name(mime), Data: data}
		m.URL = sameDataURL(r.ImageURL.ImageURL.URL, mime, data)
	case r.Routing == contracts.RouteFile && r.File != nil:
		f := r.File.File
		m = dialects.Media{MIME: mediaformat.NormalizeMIME(f.MimeType), Data: f.Data, Filename: f.Filename}
		m.Format = mediaformat.Name(m.MIME)
		m.URL = sameDataURL(f.DataURL, m.MIME, m.Data)
		switch {
		case m.MIME == "" || m.Data == "":
			return dialects.Media{}, true
		case strings.HasPrefix(m.MIME, "audio/"):
			m.Kind = contracts.BinaryAudio
		case strings.HasPrefix(m.MIME, "video/"):
			m.Kind = contracts.BinaryVideo
		case strings.HasPrefix(m.MIME, "image/"):
			return dialects.Media{}, true // images travel as image_url
		default:
			m.Kind = contracts.BinaryDocument // PDF, and the office and text documents Bedrock takes
		}
	case r.Routing == contracts.RouteImageURL, r.Routing == contracts.RouteFile:
		return dialects.Media{}, true // routing says media, but the part is missing
	default:
		return dialects.Media{}, false
	}
	if !d.Carries(m.Kind, m.Format) {
		return dialects.Media{}, true
	}
	return m, false
}

// Assemble turns a ContentRouteResult into the tool-result parts of a dialect (one of
// contracts.Dialects; anything else is openai-chat), as the dialect's entry in package dialects
// builds them. ToolContent is what goes where the API puts a tool's result; FollowUp holds the
// message that carries media where the dialect (or, for gemini, the model: f.ToolResultMedia)
// takes none in a tool result.
//
//   - openai-chat: tool messages take text only, so ToolContent is a JSON string — the text, the
//     description, or for routed media the summary line and a note that the content follows — and
//     FollowUp holds one user message with a text part and the media part: image_url for images,
//     file (file_data data URL) for PDFs, input_audio for WAV and MP3. For a provider that
//     rejects a user message right after a tool message (f.StrictToolOrdering), FollowUp starts
//     with an assistant message saying the content follows (docs/design.md, "Ordering-strict
//     providers").
//   - openai-responses: ToolContent is function_call_output.output: a string for text, else a list
//     of input_text plus input_image (data URL, detail auto) or input_file (PDF data URL).
//   - anthropic: ToolContent is the tool_result content list: a text block, plus an image block
//     or a document block (PDF). Empty text gives an empty list (Anthropic rejects empty text).
//   - gemini: ToolContent is a functionResponse without name and id (the caller's to set):
//     {"response":{"output":text}}. Media goes where f.ToolResultMedia says: ToolResultMediaInline
//     (Gemini 3) adds "parts":[{"inlineData":{mimeType,data}}] to it; ToolResultMediaFollowUp (the
//     default, for every other value too: Gemini 2.x) puts the summary line and a note that the
//     content follows in output, and FollowUp holds one user content
//     {"role":"user","parts":[{"text":label},{"inlineData":{mimeType,data}}]}, to send after
//     every functionResponse of the turn.
//   - bedrock-converse: ToolContent is toolResult.content: a text block, plus an image, document
//     (format and a sanitised name) or video block with the bytes as base64. Empty text is sent
//     as "(empty)": Converse requires a content block.
//   - langchain: ToolContent is a ToolMessage's content: v1 standard blocks, text plus an image,
//     file (with extras.filename), audio or video block with base64 and mime_type (the Python
//     shape); langchain-js the same blocks with data and mimeType (LangChain.js).
//
// A routing pages result (a PDF's pages as images) is assembled as several parts: the
// introduction, then each page's text part and image part, in order; where the media follows up,
// the tool result holds the introduction and the follow-up message the pages (WithPages).
//
// An assembly that carries media has RequestLimits, the provider's per-request limits (f.Request),
// when it sets any. Media a dialect cannot carry is not sent: the text says so. Base64 only ever appears in media
// parts, never in a text field or a string ToolContent. The notes added here are in locale (the
// request's; nothing is inferred from the text). Assemble is pure and safe for concurrent use.
func Assemble(r contracts.ContentRouteResult, dialect, locale string, f Formats) contracts.Assembly {
	d := dialects.Get(dialect)
	if r.Routing == contracts.RoutePages && r.Pages != nil {
		return assemblePages(r, d, locale, f)
	}
	m, unsupported := routedMedia(r, d)
	text := r.Content
	if unsupported {
		text += "\n" + messages.Text(locale, messages.DialectCannot)
	}
	if m.Kind == "" {
		return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(text, m)}
	}
	if !d.FollowsUp(f.ToolResultMedia) {
		return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(text, m), RequestLimits: requestLimits(f)}
	}
	return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(r.Content+"\n"+messages.Text(locale, messages.FollowsNext), dialects.Media{}),
		FollowUp: followUp(d, r.Content, m, locale, f), RequestLimits: requestLimits(f)}
}

// requestLimits is f.Request for an assembly that carries media, nil when the provider sets none.
func requestLimits(f Formats) *contracts.RequestLimits {
	if f.Request == (contracts.RequestLimits{}) {
		return nil
	}
	l := f.Request
	return &l
}

// followUp is the follow-up that carries m, after a bridge for an ordering-strict provider.
func followUp(d *dialects.Dialect, label string, m dialects.Media, locale string, f Formats) []contracts.ChatMessage {
	if f.StrictToolOrdering && d.Bridge != nil {
		return []contracts.ChatMessage{d.Bridge(messages.Text(locale, messages.Bridge)), d.FollowUp(label, m)}
	}
	return []contracts.ChatMessage{d.FollowUp(label, m)}
}

// AssembleText assembles a text-only tool result (a description, an error message) in a dialect:
// what Assemble does with a result that routes text. Error replies are assembled with it, so every
// dialect Assemble knows carries them too.
func AssembleText(text, dialect string) contracts.Assembly {
	d := dialects.Get(dialect)
	return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(text, dialects.Media{})}
}

// AssembleImage assembles one plain image, given as standard base64 (no data: prefix), with a
// text that goes with it (which must not hold the base64). A MIME type that no API accepts as an
// image, one the dialect cannot carry, or empty data gives the text alone. dialect, locale and f
// are Assemble's; where the media follows up, the text is its label (no "follows" note).
func AssembleImage(mime, base64Data, text, dialect, locale string, f Formats) contracts.Assembly {
	d := dialects.Get(dialect)
	m := dialects.Media{Kind: contracts.BinaryImage, MIME: mediaformat.NormalizeMIME(mime), Data: base64Data}
	m.Format = mediaformat.Name(m.MIME)
	if base64Data == "" || !mediaformat.SendableImage(m.Format) || !d.Carries(contracts.BinaryImage, m.Format) {
		m = dialects.Media{}
	}
	if m.Kind == "" {
		return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(text, m)}
	}
	if !d.FollowsUp(f.ToolResultMedia) {
		return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(text, m), RequestLimits: requestLimits(f)}
	}
	return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(text, dialects.Media{}), FollowUp: followUp(d, text, m, locale, f), RequestLimits: requestLimits(f)}
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

// parseDataURL splits "data:{mime};base64,{data}" (mediaformat.CutDataURL) and normalizes the
// media type.
func parseDataURL(u string) (mime, data string, ok bool) {
	mime, data, err := mediaformat.CutDataURL(u)
	if err != nil {
		return "", "", false
	}
	return mediaformat.NormalizeMIME(mime), data, true
}
