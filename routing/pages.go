package routing

import (
	"math"
	"strconv"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/messages"
)

// RendersPages reports whether res, Route's result for in, is a PDF to send as page images: Route
// described it (the model takes no PDF file: no file capability, or its formats exclude PDF, or
// it was sent as a file nowhere) while the model reads images (vision) in a format the dialect
// carries and pages can be drawn in (PNG or JPEG), and its bytes are at hand. A too-large or
// damaged PDF keeps its description; a model that takes PDFs keeps the file.
func RendersPages(res contracts.ContentRouteResult, in Input) bool {
	if res.Routing != contracts.RouteText || res.Metadata.Format != "pdf" || res.Metadata.TooLarge ||
		res.ContentType != contracts.ContentBinary || in.Content == nil || in.Unreadable {
		return false
	}
	// Only where a file cannot go (PDFRoute): a model that takes PDFs keeps Route's answer, the
	// processing-failed description of a damaged PDF included. For the others the renderer is the
	// judge of damage (a PDF it can open is drawn; one it cannot is described as damaged).
	return PDFRoute(in.Capabilities, in.Formats, in.Dialect) == contracts.RoutePages
}

// PagesTarget is what each page image is fitted to for a model (f) in a dialect: the image fit of
// Route (the provider's long edge, pixels and bytes), in PNG or JPEG only.
func PagesTarget(f Formats, dialect string) imaging.Target {
	t := fitTarget(f.orDefault(), normalizeDialect(dialect))
	var formats []string
	for _, name := range t.Formats {
		if name == "png" || name == "jpeg" {
			formats = append(formats, name)
		}
	}
	t.Formats = formats
	return t
}

// PageBudget is what one answer may hold of page images for a model: the most pages (the
// provider's images per request; 0: no limit of its own) and the most bytes of images, decoded
// (the provider's request bytes, counted on base64, with a tenth kept for the rest of the
// request; 0: no limit). When more pages than the provider's "many images" count may go, the
// target's long edge is lowered to what such a request takes (Anthropic: 2000 px past 20).
func PageBudget(f Formats, t imaging.Target, maxPages int) (pages int, bytes int64, target imaging.Target) {
	l := f.Request
	pages = l.MaxImages
	if l.MaxPDFPages > 0 && (pages == 0 || l.MaxPDFPages < pages) {
		pages = l.MaxPDFPages
	}
	var b64 int64
	for _, v := range []int64{l.MaxBytes, l.MaxImageBytes} {
		if v > 0 && (b64 == 0 || v < b64) {
			b64 = v
		}
	}
	if b64 > 0 {
		bytes = b64 / 4 * 3 * 9 / 10
	}
	many := maxPages
	if pages > 0 && pages < many {
		many = pages
	}
	if l.ManyImages > 0 && l.ManyImagesMaxEdge > 0 && many > l.ManyImages && (t.MaxLongEdge == 0 || t.MaxLongEdge > l.ManyImagesMaxEdge) {
		t.MaxLongEdge = l.ManyImagesMaxEdge
	}
	return pages, bytes, t
}

// RenderedPage is one page drawn for the model.
type RenderedPage struct {
	Number int
	Image  imaging.Result
	// Text is the page's text layer; TextCut the characters of it left out.
	Text    string
	TextCut int
}

// RenderedPages is what was drawn of a PDF. Page lists are written as the pages field reads them.
type RenderedPages struct {
	Total  int
	Pages  []RenderedPage
	Left   string
	Failed string
	// TimedOut: rendering stopped at its time limit; Missing: pages were asked past the end.
	TimedOut, Missing bool
}

// WithPages turns res, a PDF's description (RendersPages), into routing pages: content introduces
// the pages and names those left out, pages holds each page's text part (its name and text layer)
// and image. In English:
//
//	report.pdf (artifact:a1): a PDF of 9 pages. Pages 1-3 follow in order: each page's name and text layer, then its image.
//	Pages 4-9 not included; ask with pages (for example pages "4-9").
//
// and before each image "report.pdf, page 2 of 9", then "Text layer:" and the page's text when it
// has one. contentType stays binary; metadata is unchanged.
func WithPages(res contracts.ContentRouteResult, doc RenderedPages, locale string) contracts.ContentRouteResult {
	filename, id := names(locale, res.Metadata.Filename, res.Metadata.ID)
	sent := make([]int, len(doc.Pages))
	images := make([]contracts.PageImage, len(doc.Pages))
	for i, p := range doc.Pages {
		sent[i] = p.Number
		text := messages.Format(locale, messages.PageLabel, filename, p.Number, doc.Total)
		if p.Text != "" {
			text += "\n" + messages.Text(locale, messages.PageTextLayer) + "\n" + p.Text
			if p.TextCut > 0 {
				text += "\n" + messages.Format(locale, messages.PageTextCut, p.TextCut)
			}
		}
		images[i] = contracts.PageImage{
			Page: p.Number, Text: text,
			ImageURL:        contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: dataURL(p.Image.MIME(), p.Image.Data)}},
			ImageProcessing: *imageProcessing(p.Image),
		}
	}
	sentList := CompactPages(sent)
	lines := []string{messages.Format(locale, messages.PagesIntro, filename, id, doc.Total, sentList)}
	if doc.Left != "" {
		lines = append(lines, messages.Format(locale, messages.PagesLeft, doc.Left, doc.Left))
	}
	if doc.Failed != "" {
		lines = append(lines, messages.Format(locale, messages.PagesFailed, doc.Failed))
	}
	if doc.TimedOut {
		lines = append(lines, messages.Text(locale, messages.PagesTimedOut))
	}
	if doc.Missing {
		lines = append(lines, messages.Format(locale, messages.PagesMissing, doc.Total))
	}
	res.Routing, res.ImageURL, res.File, res.ImageProcessing = contracts.RoutePages, nil, nil, nil
	res.Content = strings.Join(lines, "\n")
	res.Pages = &contracts.PagesResult{Total: doc.Total, Sent: sentList, Left: doc.Left, Failed: doc.Failed, TimedOut: doc.TimedOut, Images: images}
	return res
}

// DescribePDF replaces res's content with the description of a PDF whose pages cannot be shown:
// encrypted (messages.PDFEncrypted) or without pages (messages.PDFNoPages), after the first two
// lines of the routing design's description. Routing stays text.
func DescribePDF(res contracts.ContentRouteResult, why messages.ID, locale string) contracts.ContentRouteResult {
	filename, id := names(locale, res.Metadata.Filename, res.Metadata.ID)
	res.Routing, res.ImageURL, res.File = contracts.RouteText, nil, nil
	res.Content = messages.Text(locale, messages.CannotRead) + " " + filename + " (artifact:" + id + ")\n" + messages.Text(locale, why)
	return res
}

// CompactPages writes ascending page numbers as ranges: [1 2 3 7 9 10] is "1-3,7,9-10" (what
// pdfpages.ParsePages reads back).
func CompactPages(pages []int) string {
	var b strings.Builder
	for i := 0; i < len(pages); {
		j := i
		for j+1 < len(pages) && pages[j+1] == pages[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(pages[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(pages[j]))
		}
		i = j + 1
	}
	return b.String()
}

// PagePieces are the pieces a routing pages result (WithPages) sends in a dialect: the
// introduction, then each page's text and image (an image the dialect does not carry is left out,
// its text kept). context.preprocess writes a kept PDF's pages from them.
func PagePieces(r contracts.ContentRouteResult, dialect string) (intro string, pages []dialects.Piece) {
	return pagePieces(r, dialects.Get(dialect))
}

// pagePieces are the pieces a routing pages result sends: the introduction, then each page's text
// and image.
func pagePieces(r contracts.ContentRouteResult, d *dialects.Dialect) (intro string, pages []dialects.Piece) {
	for _, p := range r.Pages.Images {
		mime, data, ok := parseDataURL(p.ImageURL.ImageURL.URL)
		piece := dialects.Piece{Text: p.Text}
		if ok && d.Carries(contracts.BinaryImage, mediaFormat(mime)) {
			piece.Media = dialects.Media{Kind: contracts.BinaryImage, MIME: mime, Format: mediaFormat(mime), Data: data, URL: sameDataURL(p.ImageURL.ImageURL.URL, mime, data)}
		}
		pages = append(pages, piece)
	}
	return r.Content, pages
}

func mediaFormat(mime string) string { return strings.TrimPrefix(mime, "image/") }

// assemblePages is Assemble for routing pages: where the tool result takes media, the
// introduction and then each page's text and image in it; elsewhere the introduction and a note
// that the content follows, and one follow-up message holding each page's text and image.
func assemblePages(r contracts.ContentRouteResult, d *dialects.Dialect, locale string, f Formats) contracts.Assembly {
	intro, pages := pagePieces(r, d)
	if r.Pages == nil || len(r.Pages.Images) == 0 || !hasPieceMedia(pages) {
		// media "assembly" left the images out of the result before assembly, or none: text only
		return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContentOf(append([]dialects.Piece{{Text: intro}}, pages...))}
	}
	if !d.FollowsUp(f.ToolResultMedia) {
		return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContentOf(append([]dialects.Piece{{Text: intro}}, pages...)), RequestLimits: requestLimits(f)}
	}
	follow := d.FollowUpOf(pages)
	msgs := []contracts.ChatMessage{follow}
	if f.StrictToolOrdering && d.Bridge != nil {
		msgs = []contracts.ChatMessage{d.Bridge(messages.Text(locale, messages.Bridge)), follow}
	}
	return contracts.Assembly{Dialect: d.Name, ToolContent: d.ToolContent(intro+"\n"+messages.Text(locale, messages.FollowsNext), dialects.Media{}),
		FollowUp: msgs, RequestLimits: requestLimits(f)}
}

func hasPieceMedia(ps []dialects.Piece) bool {
	for _, p := range ps {
		if p.Media.Kind != "" {
			return true
		}
	}
	return false
}

// pagesUsage is EstimateUsage for routing pages: every text, and each page image by the provider's
// formula.
func pagesUsage(r contracts.ContentRouteResult, dialect string, f Formats) contracts.Usage {
	text := textTokens(r.Content)
	u := contracts.Usage{InputTokens: text, Base64TextTokens: text, Basis: TokenRule(dialect, f)}
	if r.Pages == nil {
		return u
	}
	rule := TokenRule(dialect, f)
	for _, p := range r.Pages.Images {
		t := textTokens(p.Text)
		tokens, basis := imageTokens(p.ImageProcessing.Sent.Width, p.ImageProcessing.Sent.Height, rule)
		u.Basis = basis
		u.InputTokens += t + tokens
		b64 := (p.ImageProcessing.Sent.Bytes + 2) / 3 * 4
		u.Base64TextTokens += t + int64(math.Ceil(float64(b64)*base64TokensPerChar))
	}
	u.TokensSaved = u.Base64TextTokens - u.InputTokens
	return u
}

// PDFRoute is how a PDF that fits the size limit reaches a model with caps and formats f in a
// dialect: contracts.RouteFile (the model takes PDFs), RoutePages (it reads images: its pages as
// images) or RouteText (a description, or the text with extract_text). It is what Route and
// RendersPages decide for a sound PDF; `worker models explain` shows it.
func PDFRoute(caps Capabilities, f Formats, dialect string) string {
	f, dialect = f.orDefault(), normalizeDialect(dialect)
	switch {
	case caps.Has(contracts.CapFile) && f.Accepts(dialect, contracts.BinaryDocument, "pdf"):
		return contracts.RouteFile
	case caps.Has(contracts.CapVision) && len(PagesTarget(f, dialect).Formats) > 0:
		return contracts.RoutePages
	}
	return contracts.RouteText
}
