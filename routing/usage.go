package routing

import (
	"encoding/base64"
	byteorder "encoding/binary"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/mediaformat"
)

// base64TokensPerChar is what base64 costs placed in a text field (docs/providers.md, measured: a
// 10 KB PNG is ~216 tokens as an image part and ~9,700 as text).
const base64TokensPerChar = 0.71

// audioTokensPerSecond is Gemini's rate for audio input (docs/providers.md, "Token cost").
const audioTokensPerSecond = 32

// EstimateUsage estimates the input tokens of a routed result as the model's provider counts
// them (docs/providers.md, "Token cost"), and of the same media sent as base64 text instead:
//
//   - text: 4 ASCII characters or 1 other character per token, for both;
//   - images, by the sent dimensions (ImageProcessing.Sent), with the token rule of the model's
//     provider (f.Tokens, from the registry), in every dialect; for a model whose provider is not
//     known, the dialect's rule: OpenAI tiles for openai-chat, openai-responses and the langchain
//     dialects; width x height / 750 (at most 1,600) for anthropic and bedrock-converse; Gemini's
//     768 px tiles for gemini (TokenRule);
//   - audio whose duration the header tells (WAV, FLAC, constant-bitrate MP3): 32 tokens a second;
//   - PDF pages sent as images (routing pages): each page's text and image, as above;
//   - anything else: no formula (basis unknown), and no saving is claimed.
//
// It reads lengths and at most a few KB of the media's header: no copy of the payload.
func EstimateUsage(r contracts.ContentRouteResult, dialect string, f Formats) contracts.Usage {
	if r.Routing == contracts.RoutePages {
		return pagesUsage(r, dialect, f)
	}
	text := textTokens(r.Content)
	u := contracts.Usage{InputTokens: text, Base64TextTokens: text, Basis: contracts.UsageText}
	var b64 string
	switch {
	case r.Routing == contracts.RouteImageURL && r.ImageURL != nil:
		_, data, ok := parseDataURL(r.ImageURL.ImageURL.URL)
		if !ok || r.ImageProcessing == nil {
			return u
		}
		b64 = data
		tokens, basis := imageTokens(r.ImageProcessing.Sent.Width, r.ImageProcessing.Sent.Height, TokenRule(dialect, f))
		u.InputTokens, u.Basis = text+tokens, basis
	case r.Routing == contracts.RouteFile && r.File != nil:
		b64 = r.File.File.Data
		u.Basis = contracts.UsageUnknown
		if secs, ok := audioSeconds(mediaformat.NormalizeMIME(r.File.File.MimeType), b64); ok {
			u.InputTokens, u.Basis = text+int64(math.Ceil(secs*audioTokensPerSecond)), contracts.UsageAudioSeconds
		}
	default:
		return u
	}
	u.Base64TextTokens = text + int64(math.Ceil(float64(len(b64))*base64TokensPerChar))
	if u.Basis != contracts.UsageUnknown {
		u.TokensSaved = u.Base64TextTokens - u.InputTokens
	}
	return u
}

// ImageUsage is EstimateUsage for one image of the given sent dimensions and base64 length with a
// text (get_history_image).
func ImageUsage(width, height, base64Len int, text, dialect string, f Formats) contracts.Usage {
	t := textTokens(text)
	tokens, basis := imageTokens(width, height, TokenRule(dialect, f))
	u := contracts.Usage{
		InputTokens:      t + tokens,
		Base64TextTokens: t + int64(math.Ceil(float64(base64Len)*base64TokensPerChar)),
		Basis:            basis,
	}
	u.TokensSaved = u.Base64TextTokens - u.InputTokens
	return u
}

// TextUsage is the usage of a text-only result.
func TextUsage(text string) contracts.Usage {
	t := textTokens(text)
	return contracts.Usage{InputTokens: t, Base64TextTokens: t, Basis: contracts.UsageText}
}

// textTokens estimates text at 4 ASCII characters or 1 other character (CJK) per token.
func textTokens(s string) int64 {
	ascii := 0
	other := 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			ascii++
			i++
			continue
		}
		_, n := utf8.DecodeRuneInString(s[i:])
		other++
		i += n
	}
	return int64((ascii+3)/4 + other)
}

// TokenRule is the image token rule usage applies: the model's provider's (f.Tokens) when the
// registry knows it, else the dialect's (dialects.Dialect.Tokens).
func TokenRule(dialect string, f Formats) string {
	if f.Tokens != "" {
		return f.Tokens
	}
	return dialects.Get(dialect).Tokens
}

// TokenRules lists the image token rules a provider may name (the registry's "tokens").
var TokenRules = []string{contracts.UsageOpenAITiles, contracts.UsageAnthropicPixels, contracts.UsageGeminiTiles}

// ImageTokens is what a provider whose image token rule is rule (one of TokenRules) charges for
// an image of w x h pixels as sent (0 when a side is not known).
func ImageTokens(w, h int, rule string) int64 {
	t, _ := imageTokens(w, h, rule)
	return t
}

// imageTokens is the provider formula (rule, one of TokenRules) for an image of w x h pixels as
// sent; an unknown rule counts as OpenAI's.
func imageTokens(w, h int, rule string) (int64, string) {
	if w <= 0 || h <= 0 {
		return 0, contracts.UsageUnknown
	}
	switch rule {
	case contracts.UsageAnthropicPixels:
		return min(int64(math.Ceil(float64(w)*float64(h)/750)), 1600), contracts.UsageAnthropicPixels
	case contracts.UsageGeminiTiles:
		if w <= 384 && h <= 384 {
			return 258, contracts.UsageGeminiTiles
		}
		return int64(ceilDiv(w, 768)*ceilDiv(h, 768)) * 258, contracts.UsageGeminiTiles
	}
	// OpenAI, detail auto read as high: fit into 2048 x 2048, then the short side to 768.
	fw, fh := float64(w), float64(h)
	if s := 2048 / max(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	if s := 768 / min(fw, fh); s < 1 {
		fw, fh = fw*s, fh*s
	}
	tiles := ceilDiv(int(math.Round(fw)), 512) * ceilDiv(int(math.Round(fh)), 512)
	return int64(85 + 170*tiles), contracts.UsageOpenAITiles
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// audioSeconds reads the duration of WAV, FLAC or constant-bitrate MP3 audio from its header
// (the first 4 KB of base64, decoded), with the total size taken from the base64 length.
func audioSeconds(mime, b64 string) (float64, bool) {
	head := b64[:min(len(b64), 4096)]
	head = head[:len(head)/4*4]
	h, err := base64.StdEncoding.DecodeString(head)
	if err != nil {
		return 0, false
	}
	size := float64(base64.StdEncoding.DecodedLen(len(b64)) - strings.Count(b64[max(len(b64)-2, 0):], "="))
	switch mime {
	case "audio/wav":
		if len(h) < 44 || string(h[:4]) != "RIFF" || string(h[8:12]) != "WAVE" {
			return 0, false
		}
		if rate := byteorder.LittleEndian.Uint32(h[28:]); rate > 0 {
			return (size - 44) / float64(rate), true
		}
	case "audio/flac":
		if len(h) < 26 || string(h[:4]) != "fLaC" {
			return 0, false
		}
		v := byteorder.BigEndian.Uint64(h[18:26])
		rate, samples := v>>44, v&(1<<36-1)
		if rate > 0 && samples > 0 {
			return float64(samples) / float64(rate), true
		}
	case "audio/mpeg":
		return mp3Seconds(h, size)
	}
	return 0, false
}

// mp3Seconds estimates an MP3's duration from its first frame's bitrate (MPEG-1 Layer III), after
// an ID3v2 tag that fits in the head.
func mp3Seconds(h []byte, size float64) (float64, bool) {
	off := 0
	if len(h) >= 10 && string(h[:3]) == "ID3" {
		off = 10 + (int(h[6]&0x7f)<<21 | int(h[7]&0x7f)<<14 | int(h[8]&0x7f)<<7 | int(h[9]&0x7f))
	}
	if off+4 > len(h) || h[off] != 0xFF || h[off+1]&0xFE != 0xFA { // MPEG-1 Layer III sync
		return 0, false
	}
	kbps := [16]int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 0}[h[off+2]>>4]
	if kbps == 0 {
		return 0, false
	}
	return (size - float64(off)) * 8 / float64(kbps*1000), true
}
