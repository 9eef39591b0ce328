package pdfpages

import (
	"image"
	"image/color"
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

// opaqueCopy: a page with transparency goes over white; one pdfium drew on opaque white is copied
// as it is; one said to have no transparency that has some all the same still goes over white.
func TestOpaqueCopy(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 2, 1))
	src.Set(0, 0, color.RGBA{R: 10, G: 20, B: 30, A: 255})
	src.Set(1, 0, color.RGBA{}) // transparent
	for _, transparent := range []bool{true, false} {
		got := opaqueCopy(src, transparent)
		if c := got.RGBAAt(0, 0); c != (color.RGBA{R: 10, G: 20, B: 30, A: 255}) {
			t.Errorf("transparent %v: opaque pixel %v", transparent, c)
		}
		if c := got.RGBAAt(1, 0); c != (color.RGBA{R: 255, G: 255, B: 255, A: 255}) {
			t.Errorf("transparent %v: transparent pixel %v, want white", transparent, c)
		}
	}
	src.Set(1, 0, color.RGBA{R: 1, G: 2, B: 3, A: 255})
	if got := opaqueCopy(src, false); got.RGBAAt(1, 0) != (color.RGBA{R: 1, G: 2, B: 3, A: 255}) || &got.Pix[0] == &src.Pix[0] {
		t.Errorf("opaque page: %v (a copy: %v)", got.RGBAAt(1, 0), &got.Pix[0] != &src.Pix[0])
	}
}
