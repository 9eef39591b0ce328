package historyimage

import (
	"encoding/json"

	"github.com/agentworks/artifact-worker/routing"
)

// Token estimates, from the provider formulas in docs/providers.md ("Token cost").
//
// An image part is billed as image tokens (not as the ~0.7 tokens per character its base64 would
// cost as text), so what replacing it saves on every later turn is the image's token cost minus the
// cost of the placeholder text. The image's cost depends on the provider and the image size:
//
//   - OpenAI (tile models, detail high or auto on a large image): fit into 2048x2048, scale the short
//     side down to 768, then 85 + 170 per 512 px tile;
//   - Anthropic: width x height / 750 after scaling the long edge down to 1568, capped near 1,600.
//
// When the request names its target (a dialect or a service_id), the target provider's formula is
// used (Options.ImageTokens; Gemini's 258 per 768 px tile among them). Without one, the worker does
// not know which model will read the context, so the estimate takes the smaller of the two: it
// never claims more than either provider would have charged. When the dimensions cannot
// be read from the header (not PNG, JPEG, GIF or WebP, or a corrupt header), it falls back to
// fallbackImageTokens, OpenAI's detail-low price and the smallest per-image charge listed. Gemini
// (258 per 768 px tile) is not used for the bound; it is within the same range.
const (
	// fallbackImageTokens is the per-image cost assumed when the dimensions are unknown.
	fallbackImageTokens = 85
	// placeholderTokens is about what "[Picture:history_<32 hex>]" costs as text.
	placeholderTokens = 20
)

// tokensSaved estimates the input tokens saved per later turn by replacing one image of w x h
// pixels (0 when unknown) with text (the JSON string that replaces it): the target provider's
// charge for the image (Options.ImageTokens; tokensSaved's bound without it) less the text's. An
// image described for a target that cannot read it counts as well: its part would have been
// charged (or refused) on every turn.
func (w *walk) tokensSaved(width, height int, described bool, text []byte) int64 {
	if w.opts.ImageTokens == nil || width <= 0 || height <= 0 {
		saved := tokensSaved(width, height)
		if described {
			saved = max(saved+placeholderTokens-textTokens(text), 0)
		}
		return saved
	}
	return max(w.opts.ImageTokens(width, height)-textTokens(text), 0)
}

// textTokens is routing's estimate of the text in the JSON string text.
func textTokens(text []byte) int64 {
	var s string
	_ = json.Unmarshal(text, &s) // w.text wrote it
	return routing.TextUsage(s).InputTokens
}

// tokensSaved estimates the input tokens saved per later turn by replacing one image of w x h
// pixels (0 when unknown) with its placeholder.
func tokensSaved(w, h int) int64 {
	cost := int64(fallbackImageTokens)
	if w > 0 && h > 0 {
		cost = min(openAITokens(w, h), anthropicTokens(w, h))
	}
	return max(cost-placeholderTokens, 0)
}

// openAITokens is the high-detail price of a w x h image on OpenAI's tile models.
func openAITokens(w, h int) int64 {
	fw, fh := float64(w), float64(h)
	if long := max(fw, fh); long > 2048 {
		fw, fh = fw*2048/long, fh*2048/long
	}
	if short := min(fw, fh); short > 768 {
		fw, fh = fw*768/short, fh*768/short
	}
	tiles := ceilDiv(int64(fw+0.5), 512) * ceilDiv(int64(fh+0.5), 512)
	return 85 + 170*tiles
}

// anthropicTokens is Anthropic's approximation for a w x h image.
func anthropicTokens(w, h int) int64 {
	fw, fh := float64(w), float64(h)
	if long := max(fw, fh); long > 1568 {
		fw, fh = fw*1568/long, fh*1568/long
	}
	return min(int64(fw*fh/750), 1600)
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
