package handlers

import (
	"context"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/extract"
	"github.com/agentworks/artifact-worker/routing"
)

// ExtractionPolicy says which services want the text of documents their model cannot take as
// files (the registry's extractText flag).
type ExtractionPolicy interface {
	ExtractText(serviceID string) bool
}

// Extraction configures text extraction for tool.get_artifact (request field extract_text).
type Extraction struct {
	// Policy is optional: without it, only requests that set extract_text get text.
	Policy ExtractionPolicy
	// MaxChars is the most characters kept per document; 0 means extract.DefaultMaxChars.
	MaxChars int
	// Timeout bounds one document; 0 means no limit beyond the request's own deadline.
	Timeout time.Duration
}

// wanted reports whether the request opts in: its extract_text field, else the registry entry.
func (e Extraction) wanted(r contracts.GetArtifactRequest) bool {
	if r.ExtractText != nil {
		return *r.ExtractText
	}
	return e.Policy != nil && e.Policy.ExtractText(r.ServiceID)
}

// apply replaces the description of a document the model cannot take as a file with its text,
// when the request opts in. A document that cannot be read gets the routing design's
// processing-failure description; it is never an error.
func (e Extraction) apply(ctx context.Context, r contracts.GetArtifactRequest, res contracts.ContentRouteResult, data []byte, locale string) contracts.ContentRouteResult {
	if data == nil || !routing.Extractable(res) || !e.wanted(r) {
		return res
	}
	if e.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, e.Timeout)
		defer cancel()
	}
	doc, err := extract.Text(ctx, res.Metadata.MimeType, data, extract.Limits{MaxChars: e.MaxChars})
	if err != nil {
		return routing.ProcessingFailed(res, locale)
	}
	return routing.WithExtractedText(res, doc, locale)
}
