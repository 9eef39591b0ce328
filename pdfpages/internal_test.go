package pdfpages

import (
	"testing"

	"github.com/agentworks/artifact-worker/imaging"
)

func TestPixelSizeHardBounds(t *testing.T) {
	tests := []struct {
		w, h   float64
		target imaging.Target
		ww, wh int
	}{
		{595, 842, imaging.Target{}, 1239, 1754},                         // A4 at 150 DPI
		{14400, 14400, imaging.Target{}, 4000, 4000},                     // 200 inches: 16 megapixels at most
		{14400, 100, imaging.Target{}, 8192, 56},                         // a strip: 8192 px long edge at most
		{14400, 14400, imaging.Target{MaxLongEdge: 1568}, 1568, 1568},    // the model's fit first
		{0, 842, imaging.Target{}, 1, 1},                                 // a degenerate page
		{1e300, 1e300, imaging.Target{MaxPixels: 1_000_000}, 1000, 1000}, // absurd sizes stay bounded
	}
	for _, tt := range tests {
		w, h := pixelSize(tt.w, tt.h, Options{Target: tt.target})
		if w != tt.ww || h != tt.wh {
			t.Errorf("pixelSize(%v x %v, %+v) = %dx%d, want %dx%d", tt.w, tt.h, tt.target, w, h, tt.ww, tt.wh)
		}
	}
}
