package handlers

import (
	"context"
	"errors"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messages"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/routing"
)

// PageRenderer draws a PDF's pages (pdfpages.Renderer).
type PageRenderer interface {
	Render(ctx context.Context, data []byte, o pdfpages.Options) (pdfpages.Document, error)
	Config() pdfpages.Config
}

var _ PageRenderer = (*pdfpages.Renderer)(nil)

// pages parses the request's page selection.
func pages(s string) (pdfpages.Selection, error) {
	sel, err := pdfpages.ParsePages(s)
	if err != nil {
		return nil, invalid("pages", "%v", err)
	}
	return sel, nil
}

// wantsPages reports whether a PDF described for in's model goes as page images instead: the
// model reads images but takes no PDF (routing.RendersPages), a renderer is configured, and the
// request did not ask for the text alone (extract_text true).
func (h *GetArtifact) wantsPages(r contracts.GetArtifactRequest, res contracts.ContentRouteResult, in routing.Input) bool {
	return h.Pages != nil && routing.RendersPages(res, in) && (r.ExtractText == nil || !*r.ExtractText)
}

// renderPages answers a PDF with its pages as images (routing pages), within the model's limits;
// a PDF that cannot be drawn gets a description saying why (encrypted, no pages, damaged). ok is
// false when the renderer cannot run: the caller keeps today's answer (description or text).
// The only error is ctx's.
func (h *GetArtifact) renderPages(ctx context.Context, res contracts.ContentRouteResult, in routing.Input, sel pdfpages.Selection) (out contracts.ContentRouteResult, ok bool, err error) {
	return renderPages(ctx, h.Pages, res, in, sel)
}

// renderPages is GetArtifact.renderPages with renderer r; tool.get_history_image shares it.
func renderPages(ctx context.Context, r PageRenderer, res contracts.ContentRouteResult, in routing.Input, sel pdfpages.Selection) (out contracts.ContentRouteResult, ok bool, err error) {
	maxPages, maxBytes, target := routing.PageBudget(in.Formats, routing.PagesTarget(in.Formats, in.Dialect), r.Config().MaxPages)
	doc, err := r.Render(ctx, in.Content, pdfpages.Options{Pages: sel, MaxPages: maxPages, MaxBytes: maxBytes, Target: target})
	switch {
	case err == nil:
		return routing.WithPages(res, renderedPages(doc), in.Locale), true, nil
	case ctx.Err() != nil:
		return res, false, ctx.Err()
	case errors.Is(err, pdfpages.ErrEncrypted):
		return routing.DescribePDF(res, messages.PDFEncrypted, in.Locale), true, nil
	case errors.Is(err, pdfpages.ErrNoPages):
		return routing.DescribePDF(res, messages.PDFNoPages, in.Locale), true, nil
	case errors.Is(err, pdfpages.ErrDamaged), errors.Is(err, pdfpages.ErrNoneRendered):
		return routing.ProcessingFailed(res, in.Locale), true, nil
	}
	return res, false, nil // ErrUnavailable: the module did not compile
}

func renderedPages(doc pdfpages.Document) routing.RenderedPages {
	out := routing.RenderedPages{Total: doc.Total, Left: doc.Left.String(), Failed: routing.CompactPages(doc.Failed), TimedOut: doc.TimedOut, Missing: doc.Missing}
	out.Pages = make([]routing.RenderedPage, len(doc.Pages))
	for i, p := range doc.Pages {
		out.Pages[i] = routing.RenderedPage{Number: p.Number, Image: p.Image, Text: p.Text, TextCut: p.TextCut}
	}
	return out
}
