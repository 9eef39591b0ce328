package imaging

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"runtime"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// TestScaleIntegerFactor: at a whole factor every output pixel is the rounded mean of its block,
// in premultiplied RGBA, wherever the source's bounds start.
func TestScaleIntegerFactor(t *testing.T) {
	// 4x4 RGBA: the 2x2 blocks are red/green/blue/white, a grey ramp, a half-transparent
	// premultiplied pair, and 0/1/1/1 (mean 0.75, rounds to 1).
	rgba := image.NewRGBA(image.Rect(0, 0, 4, 4))
	set := func(x, y int, c color.RGBA) { rgba.SetRGBA(x, y, c) }
	set(0, 0, color.RGBA{255, 0, 0, 255})
	set(1, 0, color.RGBA{0, 255, 0, 255})
	set(0, 1, color.RGBA{0, 0, 255, 255})
	set(1, 1, color.RGBA{255, 255, 255, 255})
	set(2, 0, color.RGBA{10, 10, 10, 255})
	set(3, 0, color.RGBA{20, 20, 20, 255})
	set(2, 1, color.RGBA{30, 30, 30, 255})
	set(3, 1, color.RGBA{41, 41, 41, 255})
	set(0, 2, color.RGBA{100, 0, 0, 100})
	set(1, 2, color.RGBA{100, 0, 0, 100})
	set(0, 3, color.RGBA{0, 0, 0, 0})
	set(1, 3, color.RGBA{0, 0, 0, 0})
	set(3, 2, color.RGBA{1, 1, 1, 1})
	set(2, 3, color.RGBA{1, 1, 1, 1})
	set(3, 3, color.RGBA{1, 1, 1, 1})
	wantRGBA := []color.RGBA{
		{128, 128, 128, 255}, {25, 25, 25, 255}, // (255+255)/4 = 127.5 rounds up; 101/4 = 25.25
		{50, 0, 0, 50}, {1, 1, 1, 1},
	}

	// 4x2 NRGBA: an opaque red beside three fully transparent greens must not turn green, and
	// a half-transparent white with a transparent pixel averages to a quarter-alpha white.
	nrgba := image.NewNRGBA(image.Rect(0, 0, 4, 2))
	nrgba.SetNRGBA(0, 0, color.NRGBA{255, 0, 0, 255})
	nrgba.SetNRGBA(1, 0, color.NRGBA{0, 255, 0, 0})
	nrgba.SetNRGBA(0, 1, color.NRGBA{0, 255, 0, 0})
	nrgba.SetNRGBA(1, 1, color.NRGBA{0, 255, 0, 0})
	nrgba.SetNRGBA(2, 0, color.NRGBA{255, 255, 255, 128})
	nrgba.SetNRGBA(3, 0, color.NRGBA{255, 255, 255, 128})
	nrgba.SetNRGBA(2, 1, color.NRGBA{0, 0, 0, 0})
	nrgba.SetNRGBA(3, 1, color.NRGBA{0, 0, 0, 0})
	wantNRGBA := []color.RGBA{{64, 0, 0, 64}, {64, 64, 64, 64}} // 255/4 = 63.75; 2*128/4

	// The same 4x4 RGBA inside a larger image at (3,5), as SubImage gives it.
	big := image.NewRGBA(image.Rect(0, 0, 9, 11))
	draw.Draw(big, big.Bounds(), image.NewUniform(color.RGBA{200, 100, 50, 255}), image.Point{}, draw.Src)
	draw.Draw(big, image.Rect(3, 5, 7, 9), rgba, image.Point{}, draw.Src)
	sub := big.SubImage(image.Rect(3, 5, 7, 9))

	// 6x3 Gray to 3x1: each output is the mean of a 2x3 block.
	gray := image.NewGray(image.Rect(0, 0, 6, 3))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i * 10) // rows 0..50, 60..110, 120..170
	}
	wantGray := []color.RGBA{{65, 65, 65, 255}, {85, 85, 85, 255}, {105, 105, 105, 255}}

	tests := []struct {
		name string
		img  image.Image
		w, h int
		want []color.RGBA
	}{
		{"rgba 4x4 to 2x2", rgba, 2, 2, wantRGBA},
		{"nrgba 4x2 to 2x1", nrgba, 2, 1, wantNRGBA},
		{"sub-image at (3,5)", sub, 2, 2, wantRGBA},
		{"gray 6x3 to 3x1", gray, 3, 1, wantGray},
		{"rgba 4x4 to 1x1", rgba, 1, 1, []color.RGBA{{51, 38, 38, 140}}}, // sums 814, 614, 614, 2243 over 16
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := scale(tt.img, tt.w, tt.h)
			if got.Rect != image.Rect(0, 0, tt.w, tt.h) {
				t.Fatalf("bounds %v", got.Rect)
			}
			for i, want := range tt.want {
				if c := got.RGBAAt(i%tt.w, i/tt.w); c != want {
					t.Errorf("pixel (%d,%d) = %v, want %v", i%tt.w, i/tt.w, c, want)
				}
			}
		})
	}
}

// TestScaleMatchesReference: at fractional factors (and an axis that grows, as aspect rounding
// can ask), scale is within 1 per channel of a float64 area average of the decoded real images.
func TestScaleMatchesReference(t *testing.T) {
	tests := []struct {
		name string
		img  image.Image
		w, h int
	}{
		{"jpeg photo 4:2:0 120x90 to 50x37", decodeFile(t, testfiles.Photo(120, 90, 0)), 50, 37},
		{"noisy nrgba png 97x61 to 40x25", decodeFile(t, testfiles.NoisyPNG(97, 61)), 40, 25},
		{"noisy nrgba png 97x61 to 96x60", decodeFile(t, testfiles.NoisyPNG(97, 61)), 96, 60},
		{"gradient rgba png 300x7 to 41x3", decodeFile(t, testfiles.PNG(300, 7)), 41, 3},
		{"paletted gif 33x20 to 7x5", decodeFile(t, testfiles.GIF(33, 20)), 7, 5},
		{"noisy nrgba sub-image at (5,3) 50x40 to 13x11", decodeFile(t, testfiles.NoisyPNG(60, 50)).(*image.NRGBA).SubImage(image.Rect(5, 3, 55, 43)), 13, 11},
		{"taller than the source: 30x2 to 9x3", decodeFile(t, testfiles.NoisyPNG(30, 2)), 9, 3},
		{"wider than the source: 12x40 to 20x10", decodeFile(t, testfiles.NoisyPNG(12, 40)), 20, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := scale(tt.img, tt.w, tt.h), referenceScale(tt.img, tt.w, tt.h)
			for i := range want {
				if d := int(got.Pix[i]) - int(want[i]); d < -1 || d > 1 {
					t.Fatalf("pixel (%d,%d) channel %d = %d, reference %d", i/4%tt.w, i/4/tt.w, i%4, got.Pix[i], want[i])
				}
			}
		})
	}
}

// referenceScale is the definition of the area average written plainly: each output pixel's
// footprint in source coordinates, every source pixel weighted by its overlapping area, in float64,
// over premultiplied 8-bit channels.
func referenceScale(img image.Image, w, h int) []uint8 {
	b := img.Bounds()
	fx, fy := float64(b.Dx())/float64(w), float64(b.Dy())/float64(h)
	out := make([]uint8, 0, 4*w*h)
	for oy := range h {
		for ox := range w {
			x0, x1, y0, y1 := float64(ox)*fx, float64(ox+1)*fx, float64(oy)*fy, float64(oy+1)*fy
			var sum [4]float64
			for sy := int(y0); float64(sy) < y1 && sy < b.Dy(); sy++ {
				cy := math.Min(float64(sy+1), y1) - math.Max(float64(sy), y0)
				for sx := int(x0); float64(sx) < x1 && sx < b.Dx(); sx++ {
					cx := math.Min(float64(sx+1), x1) - math.Max(float64(sx), x0)
					r, g, bl, a := img.At(b.Min.X+sx, b.Min.Y+sy).RGBA()
					for c, v := range []uint32{r, g, bl, a} {
						sum[c] += cx * cy * float64(v) / 0x101
					}
				}
			}
			for _, s := range sum {
				out = append(out, uint8(math.Round(s/(fx*fy))))
			}
		}
	}
	return out
}

// atOnly hides an image's type and its RGBA64At: scale reads it through At alone.
type atOnly struct{ image.Image }

// rgba64Only hides an image's type but not its RGBA64At.
type rgba64Only struct{ image.RGBA64Image }

// TestScaleFastPathsEqualGeneric: every type scale reads from its pixel arrays gives the very
// bytes that reading it through At, or RGBA64At, gives. The images are wider than readChunk.
func TestScaleFastPathsEqualGeneric(t *testing.T) {
	const w, h = 517, 67
	photo := decodeFile(t, testfiles.Photo(w, h, 0))
	gray := image.NewGray(photo.Bounds())
	draw.Draw(gray, gray.Bounds(), photo, photo.Bounds().Min, draw.Src)
	nrgba := decodeFile(t, testfiles.NoisyPNG(w, h))
	images := map[string]image.Image{
		"rgba":                   decodeFile(t, testfiles.PNG(w, h)),
		"nrgba":                  nrgba,
		"nrgba odd start":        nrgba.(*image.NRGBA).SubImage(image.Rect(1, 7, w-1, h-2)),
		"ycbcr jpeg":             photo,
		"ycbcr jpeg odd start":   photo.(*image.YCbCr).SubImage(image.Rect(3, 5, w-3, h-1)),
		"ycbcr 4:4:4":            noisyYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio444),
		"ycbcr 4:2:2":            noisyYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio422),
		"ycbcr 4:1:1":            noisyYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio411),
		"ycbcr 4:4:0":            noisyYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio440),
		"ycbcr 4:2:0 below zero": noisyYCbCr(image.Rect(-9, -5, w-9, h-5), image.YCbCrSubsampleRatio420),
		"ycbcr 4:1:0 odd start":  noisyYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio410).SubImage(image.Rect(5, 1, w, h)),
		"gray":                   gray,
		"paletted":               decodeFile(t, testfiles.GIF(w, h)),
	}
	for name, img := range images {
		for _, size := range []image.Point{{200, 30}, {300, 50}, {7, 3}} {
			t.Run(fmt.Sprintf("%s to %v", name, size), func(t *testing.T) {
				got := scale(img, size.X, size.Y)
				if generic := scale(atOnly{img}, size.X, size.Y); !bytes.Equal(got.Pix, generic.Pix) {
					t.Errorf("%T differs from its At", img)
				}
				if r64, ok := img.(image.RGBA64Image); ok {
					if generic := scale(rgba64Only{r64}, size.X, size.Y); !bytes.Equal(got.Pix, generic.Pix) {
						t.Errorf("%T differs from its RGBA64At", img)
					}
				}
			})
		}
	}
}

// TestScaleAllocatesOnlyTheResult: scaling a 1500x1000 image to 300x200 allocates the 240 KB
// result and sums of the output's width, not an image-sized intermediate.
func TestScaleAllocatesOnlyTheResult(t *testing.T) {
	src := decodeFile(t, testfiles.NoisyPNG(1500, 1000))
	const w, h = 300, 200
	allocated := uint64(math.MaxUint64)
	for range 3 { // the least of a few runs, in case something else allocated meanwhile
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		scale(src, w, h)
		runtime.ReadMemStats(&after)
		allocated = min(allocated, after.TotalAlloc-before.TotalAlloc)
	}
	// The result, two rows of sums and the read buffer, plus 5% for the allocator's size classes.
	if limit := uint64(4*w*h+2*4*8*w+4*4*readChunk) * 105 / 100; allocated > limit {
		t.Errorf("scale allocated %d bytes, want at most %d (the result, two rows of sums, a read buffer)", allocated, limit)
	}
}

func decodeFile(t testing.TB, data []byte) image.Image {
	t.Helper()
	var (
		img image.Image
		err error
	)
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG")):
		img, err = png.Decode(bytes.NewReader(data))
	case bytes.HasPrefix(data, []byte("GIF8")):
		img, err = gif.Decode(bytes.NewReader(data))
	default:
		img, err = jpeg.Decode(bytes.NewReader(data))
	}
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// noisyYCbCr is a YCbCr image of the given chroma subsampling with pseudo-random samples
// (the standard JPEG encoder writes only 4:2:0).
func noisyYCbCr(r image.Rectangle, ratio image.YCbCrSubsampleRatio) *image.YCbCr {
	img := image.NewYCbCr(r, ratio)
	x := uint32(2463534242)
	for _, plane := range [][]uint8{img.Y, img.Cb, img.Cr} {
		for i := range plane {
			x ^= x << 13 // xorshift32, as testfiles.NoisyPNG
			x ^= x >> 17
			x ^= x << 5
			plane[i] = uint8(x)
		}
	}
	return img
}

// BenchmarkScale is scale alone on what the decoders give for the Downscale benchmarks' images:
// a 2240x2240 NRGBA PNG and a 4000x3000 4:2:0 JPEG, fitted to 1.15 megapixels.
func BenchmarkScale(b *testing.B) {
	for _, c := range []struct {
		name string
		data []byte
		w, h int
	}{
		{"nrgba-2240x2240", testfiles.NoisyPNG(2240, 2240), 1072, 1072},
		{"ycbcr-4000x3000", testfiles.Photo(4000, 3000, 0), 1238, 928},
	} {
		b.Run(c.name, func(b *testing.B) {
			img := decodeFile(b, c.data)
			b.ReportAllocs()
			for b.Loop() {
				scale(img, c.w, c.h)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(img.Bounds().Dx()*img.Bounds().Dy()), "ns/source-pixel")
		})
	}
}
