package handlers

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/mediaformat"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/routing"
)

// HistoryImages is the history image cache.
type HistoryImages interface {
	historyimage.Putter
	Get(ctx context.Context, md5 string) (historyimage.Image, error)
}

// Preprocess handles context.preprocess.
type Preprocess struct {
	Cache historyimage.Putter
	// Capabilities (optional) answers for the request's service_id, as in GetArtifact.
	Capabilities Capabilities
	// Formats (optional) gives the per-request limits (routing.Formats.Request) of the
	// service_id's provider, or of the dialect's provider for a model it does not know.
	Formats ModelFormats
	// KeepTurns is how many of the latest turns keep their media when the request does not say
	// (the HISTORY_KEEP_TURNS setting); 0 means historyimage.DefaultKeepTurns.
	KeepTurns int
	// MaxPartBytes is the largest medium taken out of a context (MAX_ARTIFACT_BYTES); larger parts
	// stay and are reported. 0: no limit.
	MaxPartBytes int64
	// Known (optional) remembers the media earlier requests checked, so that a session's older
	// media, sent again on every turn, is decoded once (historyimage.Known).
	Known *historyimage.Known
	// Pages is optional: with it, a PDF of the kept turns for a target that reads images but takes
	// no PDF goes as its pages, each page's name and text layer then its image, as tool.get_artifact
	// sends them (historyimage.PagesInput says where).
	Pages  PageRenderer
	Logger *slog.Logger
}

// maxKeepTurns bounds a request's keep_turns.
const maxKeepTurns = 10000

// Handle implements handling.Handler.
func (h *Preprocess) Handle(ctx context.Context, req handling.Request) (any, error) {
	var r contracts.PreprocessRequest
	if err := decode(contracts.SubjectPreprocess, req.Body, &r); err != nil {
		return nil, err
	}
	if len(r.Messages) == 0 {
		return nil, invalid("messages", "messages is required")
	}
	loc, err := locale(r.Locale)
	if err != nil {
		return nil, err
	}
	opts := historyimage.Options{KeepTurns: cmp.Or(h.KeepTurns, historyimage.DefaultKeepTurns), MaxPartBytes: h.MaxPartBytes, Known: h.Known, Logger: h.Logger}
	if r.Dialect != "" {
		if opts.Dialect, err = dialect(r.Dialect); err != nil {
			return nil, err
		}
	}
	if r.KeepTurns != nil {
		if *r.KeepTurns < 0 || *r.KeepTurns > maxKeepTurns {
			return nil, invalid("keep_turns", "keep_turns must be 0..%d, got %d", maxKeepTurns, *r.KeepTurns)
		}
		opts.KeepTurns = *r.KeepTurns
	}
	if r.Dialect != "" || r.ServiceID != "" {
		dia := cmp.Or(opts.Dialect, contracts.DefaultDialect)
		formats := formatsFor(h.Formats, r.ServiceID, dia)
		opts.Limits = formats.Request
		// tokens_saved_estimate with the target's provider formula (its rule, else the dialect's).
		rule := routing.TokenRule(dia, formats)
		opts.ImageTokens = func(w, h int) int64 { return routing.ImageTokens(w, h, rule) }
	}
	if caps, ok, err := h.target(r); err != nil {
		return nil, err
	} else if ok {
		opts.Readable = func(kind string) bool { return caps.Has(routing.NeededCapability(kind)) }
		opts.Describe = func(d historyimage.Described) string {
			return routing.DescribeHistoryMedia(loc, d.Placeholder, d.Filename, d.MIME, d.Size)
		}
		if h.Pages != nil {
			opts.Pages = func(ctx context.Context, in historyimage.PagesInput) ([]dialects.Piece, bool) {
				return h.pages(ctx, in, caps, loc, r.ServiceID)
			}
		}
	}
	out, rep, err := historyimage.PreprocessWith(ctx, r.Messages, h.Cache, opts)
	if err != nil {
		var ic *historyimage.InvalidContextError
		if errors.As(err, &ic) {
			return nil, invalid("messages", "%s", ic.Problem)
		}
		return nil, err
	}
	return encodePreprocess(out, rep)
}

// pages renders a kept PDF of a context for a model with caps that reads images but takes no PDF
// (routing.RendersPages), as tool.get_artifact renders one (renderPages: the same budget, fit and
// left-out text), in the dialect the PDF's part was written in. The introduction names the PDF by
// its placeholder, which tool.get_history_image fetches (with pages for those left out). A PDF that
// is encrypted, has no pages or is damaged gets get_artifact's text saying so, with the placeholder.
// ok is false when the PDF keeps its description: the model takes PDFs, or the renderer cannot run.
func (h *Preprocess) pages(ctx context.Context, pdf historyimage.PagesInput, caps routing.Capabilities, loc, serviceID string) ([]dialects.Piece, bool) {
	formats := formatsFor(h.Formats, serviceID, pdf.Dialect)
	id := strings.TrimSuffix(strings.TrimPrefix(pdf.Placeholder, "[File:"), "]")
	in := routing.Input{ID: id, Filename: cmp.Or(pdf.Filename, id), DeclaredMIME: "application/pdf", Content: pdf.Data,
		Capabilities: caps, Locale: loc, Formats: formats, Dialect: pdf.Dialect}
	res := routing.Route(in)
	if !routing.RendersPages(res, in) {
		return nil, false
	}
	res, ok, err := renderPages(ctx, h.Pages, res, in, nil)
	if err != nil || !ok {
		return nil, false
	}
	// WithPages and DescribePDF name an artifact ("report.pdf (artifact:history_...)"); this one is
	// fetched back by its placeholder.
	intro := strings.Replace(res.Content, "(artifact:"+id+")", "("+pdf.Placeholder+")", 1)
	if res.Routing != contracts.RoutePages { // encrypted, no pages, damaged: the text says which
		if !strings.Contains(intro, pdf.Placeholder) {
			intro += "\n" + pdf.Placeholder
		}
		return []dialects.Piece{{Text: intro}}, true
	}
	_, pages := routing.PagePieces(res, pdf.Dialect)
	return append([]dialects.Piece{{Text: intro}}, pages...), true
}

// target is the capabilities of the model the context goes to: the explicit list, else the
// registry's entry for service_id; ok is false when the request names neither.
func (h *Preprocess) target(r contracts.PreprocessRequest) (routing.Capabilities, bool, error) {
	switch {
	case r.Capabilities != nil:
		caps, err := explicitCapabilities(r.Capabilities)
		return caps, err == nil, err
	case r.ServiceID != "" && h.Capabilities != nil:
		return routing.NewCapabilities(h.Capabilities.Capabilities(r.ServiceID)...), true, nil
	}
	return routing.Capabilities{}, false, nil
}

// encodePreprocess writes a contracts.PreprocessResult around messages, the valid JSON Preprocess
// returned: json.Marshal would validate and compact it again, a pass over every byte of the context
// (the last human turn's images included).
func encodePreprocess(messages json.RawMessage, rep historyimage.Report) (handling.Encoded, error) {
	st, err := json.Marshal(struct {
		Stats      contracts.PreprocessStats `json:"stats"`
		LeftAlone  []contracts.LeftAlonePart `json:"left_alone,omitempty"`
		OverLimits []contracts.LeftAlonePart `json:"over_limits,omitempty"`
	}{rep.Stats, rep.LeftAlone, rep.OverLimits})
	if err != nil {
		return nil, fmt.Errorf("encode result: %w", err)
	}
	b := make([]byte, 0, len(messages)+len(st)+24)
	b = append(b, `{"messages":`...)
	b = append(b, messages...)
	b = append(b, ',')
	return append(b, st[1:]...), nil
}

// GetHistoryImage handles tool.get_history_image.
type GetHistoryImage struct {
	Cache HistoryImages
	// Capabilities and Formats (both optional) answer for the request's service_id as in
	// GetArtifact; without Formats, routing.DefaultFormats apply.
	Capabilities Capabilities
	Formats      ModelFormats
	// Tokens is optional: it counts the tokens each result saves (usage.tokensSaved).
	Tokens TokenCounter
	// Pages is optional: with it, a cached PDF for a model that reads images but takes no PDF goes
	// as page images with their text layers (routing pages), as in GetArtifact.
	Pages PageRenderer
}

// Handle implements handling.Handler.
func (h *GetHistoryImage) Handle(ctx context.Context, req handling.Request) (any, error) {
	var r contracts.GetHistoryImageRequest
	if err := decode(contracts.SubjectGetHistoryImage, req.Body, &r); err != nil {
		return nil, err
	}
	loc, dia, med, err := presentation(r.Locale, r.Dialect, r.Media)
	if err != nil {
		return nil, err
	}
	sel, err := pages(r.Pages)
	if err != nil {
		return nil, err
	}
	md5, err := historyimage.NormalizeID(r.ImageMD5)
	if err != nil {
		return nil, &contracts.Error{Code: contracts.CodeInvalidImageID, Message: historyimage.Message(contracts.CodeInvalidImageID, loc), Field: "image_md5"}
	}
	img, err := h.Cache.Get(ctx, md5)
	if errors.Is(err, historyimage.ErrNotFound) {
		return nil, &contracts.Error{Code: contracts.CodeImageNotFound, Message: historyimage.Message(contracts.CodeImageNotFound, loc), Ref: historyimage.Placeholder(md5)}
	}
	if err != nil {
		return nil, err
	}
	formats := formatsFor(h.Formats, r.ServiceID, dia)
	if kind := mediaformat.PartKind(img.MimeType); kind != contracts.BinaryImage {
		return h.file(ctx, r, md5, img, cmp.Or(kind, contracts.BinaryDocument), loc, dia, med, formats, sel)
	}
	caps, err := h.capabilities(r, contracts.CapVision)
	if err != nil {
		return nil, err
	}
	text := historyimage.Placeholder(md5)
	var mime, data string
	var res contracts.GetHistoryImageResult
	var fitted fittedImage
	if caps.Has(contracts.CapVision) {
		fitted, err = fit(img, formats, dia)
	}
	switch {
	case !caps.Has(contracts.CapVision):
		text += "\n" + routing.NotReadableNote(loc)
		mime, data = "", ""
	case err != nil:
		text += "\n" + routing.NotAcceptedNote(loc, img.MimeType, formats, dia)
		mime, data = "", ""
	default:
		mime, data, res.ImageProcessing = fitted.mime, fitted.data, fitted.processing
	}
	if data == "" {
		res.Usage = routing.TextUsage(text)
	} else {
		res.Usage = routing.ImageUsage(res.ImageProcessing.Sent.Width, res.ImageProcessing.Sent.Height, len(data), text, dia, formats)
		if med != contracts.MediaAssembly {
			res.Content = []contracts.HistoryImageBlock{{Type: "image", MimeType: mime, Base64: data}}
		}
	}
	if med != contracts.MediaResult {
		if data == "" {
			res.Assembly = routing.AssembleText(text, dia)
		} else {
			res.Assembly = routing.AssembleImage(mime, data, text, dia, loc, formats)
		}
	}
	countSaved(ctx, h.Tokens, contracts.SubjectGetHistoryImage, dia, res.Usage.TokensSaved)
	return res, nil
}

// fittedImage is a history image as it will be sent.
type fittedImage struct {
	mime, data string // data: standard base64
	processing *contracts.ImageProcessing
}

// fitHeads are the first bytes fit decodes, one after the other, to learn from the headers whether
// an image goes as it is: 4 KiB hold a PNG's, GIF's or WEBP's, 64 KiB a camera JPEG's (EXIF with
// its thumbnail, ICC profile, then the frame header).
var fitHeads = []int{4 << 10, 64 << 10}

// fit fits a cached image to the model with routing.FitImage; the cached base64 is reused when the
// image goes as it is. That is learnt from its first bytes when they tell (routing.FitImageHead):
// the whole base64 is decoded only for an image that needs work or whose headers run on. Sent on
// its first bytes, the rest of the base64 is not checked here: it relies on the cache holding only
// what Preprocess validated.
func fit(img historyimage.Image, formats routing.Formats, dialect string) (fittedImage, error) {
	size := img.Size()
	for _, n := range fitHeads {
		if int64(n) >= size {
			break // decoding it all costs no more
		}
		head, err := img.Head(n)
		if err != nil {
			break // the whole decode says what is wrong
		}
		if mime, p, ok := routing.FitImageHead(head, size, img.MimeType, formats, dialect); ok {
			return fittedImage{mime: mime, data: img.Data, processing: p}, nil
		}
	}
	return fitWhole(img, formats, dialect)
}

// fitWhole fits a cached image by decoding all of its base64 (routing.FitImage); the cached base64 is
// reused when the image goes as it is.
func fitWhole(img historyimage.Image, formats routing.Formats, dialect string) (fittedImage, error) {
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return fittedImage{}, fmt.Errorf("history image %s: %w", img.MimeType, err)
	}
	out, mime, p, err := routing.FitImage(raw, img.MimeType, formats, dialect)
	if err != nil {
		return fittedImage{}, err
	}
	if out == nil {
		return fittedImage{mime: mime, data: img.Data, processing: p}, nil
	}
	return fittedImage{mime: mime, data: base64.StdEncoding.EncodeToString(out), processing: p}, nil
}

// capabilities is the explicit list, else the registry's entry for service_id, else need (the
// runtime asked for the medium: vision for an image).
func (h *GetHistoryImage) capabilities(r contracts.GetHistoryImageRequest, need string) (routing.Capabilities, error) {
	switch {
	case r.Capabilities != nil:
		return explicitCapabilities(r.Capabilities)
	case r.ServiceID != "" && h.Capabilities != nil:
		return routing.NewCapabilities(h.Capabilities.Capabilities(r.ServiceID)...), nil
	}
	return routing.NewCapabilities(need), nil
}

// file answers a cached document, audio or video ([File:history_{md5}]) as tool.get_artifact
// answers an artifact: routed by the model's capabilities and formats (routing.Route), in the
// request's dialect; Content holds one block {"type":"file"|"audio"|"video","mime_type","base64"}
// when the medium is sent. A PDF for a model that reads images but takes no PDF goes as its pages
// (routing.RendersPages, with Pages): Pages holds them as in tool.get_artifact, Content one image
// block per page.
func (h *GetHistoryImage) file(ctx context.Context, r contracts.GetHistoryImageRequest, md5 string, img historyimage.Image, kind, loc, dia, med string, formats routing.Formats, sel pdfpages.Selection) (any, error) {
	caps, err := h.capabilities(r, routing.NeededCapability(kind))
	if err != nil {
		return nil, err
	}
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return nil, fmt.Errorf("history file %s: %w", md5, err)
	}
	name := img.Filename
	if name == "" {
		name = "history_" + md5
	}
	in := routing.Input{ID: "history_" + md5, Filename: name, DeclaredMIME: img.MimeType, Content: raw,
		Capabilities: caps, Locale: loc, Formats: formats, Dialect: dia}
	res := routing.Route(in)
	if h.Pages != nil && routing.RendersPages(res, in) {
		if res, _, err = renderPages(ctx, h.Pages, res, in, sel); err != nil {
			return nil, err
		}
	}
	var out contracts.GetHistoryImageResult
	out.Usage = routing.EstimateUsage(res, dia, formats)
	if res.Routing == contracts.RoutePages && res.Pages != nil {
		pages := *res.Pages
		if med != contracts.MediaAssembly {
			for _, p := range pages.Images {
				if mime, data, ok := strings.Cut(strings.TrimPrefix(p.ImageURL.ImageURL.URL, "data:"), ";base64,"); ok {
					out.Content = append(out.Content, contracts.HistoryImageBlock{Type: "image", MimeType: mime, Base64: data})
				}
			}
		} else {
			pages.Images = nil
		}
		out.Pages = &pages
	}
	if res.Routing == contracts.RouteFile && res.File != nil && med != contracts.MediaAssembly {
		typ := "file"
		if kind == contracts.BinaryAudio || kind == contracts.BinaryVideo {
			typ = kind
		}
		out.Content = []contracts.HistoryImageBlock{{Type: typ, MimeType: res.File.File.MimeType, Base64: res.File.File.Data}}
	}
	if med != contracts.MediaResult {
		out.Assembly = routing.Assemble(res, dia, loc, formats)
	}
	countSaved(ctx, h.Tokens, contracts.SubjectGetHistoryImage, dia, out.Usage.TokensSaved)
	return out, nil
}
