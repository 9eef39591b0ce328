package routing_test

import (
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/routing"
)

// TestPageBudget: the pages and image bytes one answer may hold follow the provider's per-request
// limits (images, PDF pages, request and image bytes counted on base64 with a tenth kept for the
// rest), and a request of more images than the provider's "many images" count is drawn at that
// count's smaller long edge.
//
//	go test -run TestPageBudget ./routing/
func TestPageBudget(t *testing.T) {
	claude := imaging.Target{Formats: []string{"png", "jpeg"}, MaxLongEdge: 8000, MaxPixels: 1_150_000}
	anthropic := contracts.RequestLimits{MaxImages: 100, MaxBytes: 32 << 20, ManyImages: 20, ManyImagesMaxEdge: 2000}
	tests := []struct {
		name      string
		limits    contracts.RequestLimits
		maxPages  int // PDF_MAX_PAGES
		pages     int
		bytes     int64
		longEdge  int
		reasoning string
	}{
		{"no limits of its own", contracts.RequestLimits{}, 20, 0, 0, 8000, "PDF_MAX_PAGES alone"},
		{"anthropic, 20 pages", anthropic, 20, 100, (32 << 20) / 4 * 3 * 9 / 10, 8000, "not past 20 images: the edge stays"},
		{"anthropic, 21 pages", anthropic, 21, 100, (32 << 20) / 4 * 3 * 9 / 10, 2000, "past 20 images: 2000 px"},
		{"anthropic, PDF_MAX_PAGES 100", anthropic, 100, 100, (32 << 20) / 4 * 3 * 9 / 10, 2000, ""},
		{"few images", contracts.RequestLimits{MaxImages: 5, ManyImages: 20, ManyImagesMaxEdge: 2000}, 100, 5, 0, 8000, "5 images never reach 20"},
		{"PDF pages below images", contracts.RequestLimits{MaxImages: 100, MaxPDFPages: 10}, 20, 10, 0, 8000, ""},
		{"image bytes below request bytes", contracts.RequestLimits{MaxBytes: 20 << 20, MaxImageBytes: 4 << 20}, 20, 0, (4 << 20) / 4 * 3 * 9 / 10, 8000, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pages, bytes, target := routing.PageBudget(routing.Formats{Request: tt.limits}, claude, tt.maxPages)
			if pages != tt.pages || bytes != tt.bytes || target.MaxLongEdge != tt.longEdge || target.MaxPixels != claude.MaxPixels {
				t.Errorf("pages %d, bytes %d, long edge %d (pixels %d); want %d, %d, %d (%s)", pages, bytes, target.MaxLongEdge, target.MaxPixels, tt.pages, tt.bytes, tt.longEdge, tt.reasoning)
			}
		})
	}
}
