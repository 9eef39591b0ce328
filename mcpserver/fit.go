package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/messages"
)

// Host profiles: the largest tool result (its JSON, in bytes) each MCP host takes (docs/providers.md,
// "MCP hosts").
const (
	// HostClaudeDesktop refuses a tool result over 1 MB ("Tool result is too large. Maximum size
	// is 1MB.").
	HostClaudeDesktop = "claude-desktop"
	// HostClaudeCode caps a tool result at 25,000 tokens unless the tool declares
	// _meta["anthropic/maxResultSizeChars"], whose ceiling is 500,000 characters.
	HostClaudeCode = "claude-code"
	// HostUnbounded sets no bound: results carry the media as the worker sends it (at the model
	// provider's limits, up to about 5 MB of base64 for Anthropic).
	HostUnbounded = "unbounded"
)

// HostLimits is the largest tool result of each host profile, in bytes of JSON (negative: no bound).
var HostLimits = map[string]int{
	HostClaudeDesktop: 1_000_000,
	HostClaudeCode:    500_000,
	HostUnbounded:     -1,
}

// DefaultMaxResultBytes is Config.MaxResultBytes when it is zero: Claude Desktop's limit.
const DefaultMaxResultBytes = 1_000_000

// MaxResultSizeCharsMeta is the tool _meta key with which Claude Code lets a tool's results exceed
// its default cap of 25,000 tokens (up to 500,000 characters).
const MaxResultSizeCharsMeta = "anthropic/maxResultSizeChars"

// claudeCodeCeiling is the most Claude Code takes from MaxResultSizeCharsMeta.
const claudeCodeCeiling = 500_000

// envelope is room kept for the JSON-RPC response around the result ({"jsonrpc":"2.0","id":...,
// "result":...}), so that the message the host receives, not only the result, is within the bound.
const envelope = 256

// source is the artifact behind a tool result, for the resource link that stands for it when it
// cannot fit. An empty id has no link (history images are not served over HTTP).
type source struct {
	id, name, mime string
	size           int64
}

// fitter bounds tool results to what the host takes.
type fitter struct {
	max        int // bytes of JSON; <= 0: no bound
	locale     string
	contentURL string // base URL of the worker's HTTP server; empty: links are artifact: URIs
	tokenAuth  bool   // the content endpoint requires the worker's HTTP_TOKEN
}

// declaredChars is the value tools declare under MaxResultSizeChars: the bound, within Claude Code's
// ceiling (a host that takes more is bounded by the setting, not by this declaration).
func (f fitter) declaredChars() int {
	if f.max <= 0 {
		return claudeCodeCeiling
	}
	return min(f.max, claudeCodeCeiling)
}

// fit returns res within the bound: an image is fitted further (downscaled, or converted to JPEG
// when opaque), with a line saying so; audio, a file, or an image that still cannot fit becomes a
// resource link with a line the model can act on; text is cut, with a line saying how much was
// left out and where the whole is. Results within the bound, and error results, are unchanged.
func (f fitter) fit(res *mcp.CallToolResult, src source) *mcp.CallToolResult {
	if f.max <= 0 || res.IsError || size(res) <= f.max {
		return res
	}
	for i := 0; i < len(res.Content); i++ {
		switch b := res.Content[i].(type) {
		case *mcp.ImageContent:
			// Its share of the room: what the images from here on may take (the result's size
			// without them), divided among them. One image takes all of it; the pages of a PDF
			// share it, and an image smaller than its share leaves the rest to those after it.
			rest, n := restImages(res.Content[i:])
			room := (f.max - (size(res) - rest)) / n
			if base64.StdEncoding.EncodedLen(len(b.Data))+envelope <= room {
				continue // within its share: unchanged
			}
			if img, note, ok := f.refit(b, room); ok {
				fitted := slices.Clone(res.Content)
				fitted[i] = img
				fitted = slices.Insert(fitted, i+1, mcp.Content(&mcp.TextContent{Text: note}))
				// It fits when the result, without the images after it, leaves them their shares.
				after, _ := restImages(fitted[i+2:])
				if next := (&mcp.CallToolResult{Content: fitted, StructuredContent: res.StructuredContent}); size(next)-after <= f.max-(n-1)*room {
					res.Content = fitted
					i++
					continue
				}
			}
			i = f.linkInstead(res, i, src)
		case *mcp.AudioContent, *mcp.EmbeddedResource:
			i = f.linkInstead(res, i, src)
		}
	}
	if size(res) <= f.max {
		return res
	}
	return f.cutText(res, src)
}

// restImages is the base64 length of the images in cs and how many there are.
func restImages(cs []mcp.Content) (b64, n int) {
	for _, c := range cs {
		if img, ok := c.(*mcp.ImageContent); ok {
			b64 += base64.StdEncoding.EncodedLen(len(img.Data))
			n++
		}
	}
	return b64, n
}

// refit encodes the image within the room left for its block (base64 and JSON), in its own
// format, PNG or JPEG, downscaled as far as needed.
func (f fitter) refit(b *mcp.ImageContent, room int) (*mcp.ImageContent, string, bool) {
	budget := int64(room-envelope-64-256) * 3 / 4 // base64 is 4/3 of the bytes; 256 for the note
	format := strings.TrimPrefix(b.MIMEType, "image/")
	if format == "jpg" {
		format = "jpeg"
	}
	if budget <= 0 || format == "" {
		return nil, "", false
	}
	formats := []string{format}
	for _, x := range []string{"png", "jpeg"} {
		if x != format {
			formats = append(formats, x)
		}
	}
	// Fill: the image comes out at 90% of its room or more when it can (the host's bound used, not
	// half of it: the first size that fits is often 50-70%).
	r, err := imaging.Prepare(b.Data, format, imaging.Target{Formats: formats, MaxBytes: budget, Fill: 0.9, StaticOnly: true})
	if err != nil || r.Data == nil || int64(len(r.Data)) > budget {
		return nil, "", false
	}
	note := fmt.Sprintf(messages.Text(f.locale, messages.HostReduced), r.Original.Width, r.Original.Height, humanBytes(r.Original.Bytes),
		r.Sent.Width, r.Sent.Height, humanBytes(int64(len(r.Data))), humanBytes(int64(f.max)))
	return &mcp.ImageContent{Data: r.Data, MIMEType: r.MIME()}, note, true
}

// linkInstead replaces res.Content[i] by a text line saying why and where to get the artifact, and
// a resource link to it (without an artifact, a history image, by the line alone). It returns the
// index of the last block it put in.
func (f fitter) linkInstead(res *mcp.CallToolResult, i int, src source) int {
	var line string
	name := cmpOr(src.name, src.id)
	switch {
	case src.id == "":
		line = fmt.Sprintf(messages.Text(f.locale, messages.HostNoLink), humanBytes(int64(f.max)))
	default:
		line = fmt.Sprintf(messages.Text(f.locale, messages.HostTooLarge), name, humanBytes(src.size), humanBytes(int64(f.max)), f.where(src))
	}
	put := []mcp.Content{&mcp.TextContent{Text: line}}
	if src.id != "" {
		link := &mcp.ResourceLink{URI: f.uri(src), Name: name, MIMEType: src.mime}
		if src.size > 0 {
			link.Size = &src.size
		}
		put = append(put, link)
	}
	res.Content = slices.Replace(slices.Clone(res.Content), i, i+1, put...)
	return i + len(put) - 1
}

// uri is where the artifact can be read whole: the worker's HTTP content endpoint when one is
// configured, else its artifact: URI.
func (f fitter) uri(src source) string {
	if f.contentURL == "" {
		if strings.Contains(src.id, ":") {
			return src.id
		}
		return "artifact:" + src.id
	}
	return strings.TrimRight(f.contentURL, "/") + "/artifacts/" + url.PathEscape(src.id) + "/content"
}

// where is the part of the line that says how to get the whole artifact.
func (f fitter) where(src source) string {
	switch {
	case f.contentURL == "":
		return fmt.Sprintf(messages.Text(f.locale, messages.HostAskUser), f.uri(src))
	case f.tokenAuth:
		return fmt.Sprintf(messages.Text(f.locale, messages.HostGetToken), f.uri(src))
	default:
		return fmt.Sprintf(messages.Text(f.locale, messages.HostGet), f.uri(src))
	}
}

// cutText shortens the longest text block until the result fits, and says what was left out.
func (f fitter) cutText(res *mcp.CallToolResult, src source) *mcp.CallToolResult {
	longest, at := -1, 0
	for i, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok && len(t.Text) > longest {
			longest, at = len(t.Text), i
		}
	}
	if longest < 0 {
		return res
	}
	full := res.Content[at].(*mcp.TextContent).Text
	// JSON escapes make the text longer than its bytes: the first cut takes that into account, the
	// next ones (if the line added still overshoots) take off what is left over.
	perByte := float64(jsonLen(full)) / float64(max(len(full), 1))
	keep := len(full) - int(float64(size(res)-f.max+len(messages.Text(f.locale, messages.HostCut))+len(f.where(src))+64)/perByte)
	for first := true; keep > 0; first = false {
		if !first {
			keep -= size(res) - f.max + 64
		}
		keep = max(keep, 0)
		for keep > 0 && !utf8.RuneStart(full[keep]) {
			keep--
		}
		cut := full[:keep] + "\n" + fmt.Sprintf(messages.Text(f.locale, messages.HostCut), keep, len(full), humanBytes(int64(f.max)))
		if src.id != "" {
			cut += " " + f.where(src)
		}
		res.Content[at] = &mcp.TextContent{Text: cut}
		if size(res) <= f.max {
			return res
		}
	}
	return res
}

// size is the bytes of res as JSON, with room for the JSON-RPC envelope. Media is counted by the
// length of its base64, not encoded (a 4 MB image would be, several times per result).
func size(res *mcp.CallToolResult) int {
	light := *res
	light.Content = make([]mcp.Content, len(res.Content))
	media := 0
	for i, c := range res.Content {
		switch b := c.(type) {
		case *mcp.ImageContent:
			media += base64.StdEncoding.EncodedLen(len(b.Data))
			light.Content[i] = &mcp.ImageContent{MIMEType: b.MIMEType, Data: []byte{}, Meta: b.Meta, Annotations: b.Annotations}
		case *mcp.AudioContent:
			media += base64.StdEncoding.EncodedLen(len(b.Data))
			light.Content[i] = &mcp.AudioContent{MIMEType: b.MIMEType, Data: []byte{}, Meta: b.Meta, Annotations: b.Annotations}
		case *mcp.EmbeddedResource:
			if b.Resource != nil && b.Resource.Blob != nil {
				media += base64.StdEncoding.EncodedLen(len(b.Resource.Blob))
				r := *b.Resource
				r.Blob = []byte{}
				light.Content[i] = &mcp.EmbeddedResource{Resource: &r, Meta: b.Meta, Annotations: b.Annotations}
				continue
			}
			light.Content[i] = c
		default:
			light.Content[i] = c
		}
	}
	return jsonLen(&light) + media + envelope
}

func jsonLen(v any) int {
	b, err := json.Marshal(v)
	if err != nil {
		return 0
	}
	return len(b)
}

// humanBytes writes n as "3.2 MB", "740 KB" or "512 B" (decimal units, as hosts state their limits).
func humanBytes(n int64) string {
	switch {
	case n >= 1_000_000:
		s := fmt.Sprintf("%.1f", float64(n)/1e6)
		return strings.TrimSuffix(s, ".0") + " MB"
	case n >= 1_000:
		return fmt.Sprintf("%d KB", n/1_000)
	}
	return fmt.Sprintf("%d B", n)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
