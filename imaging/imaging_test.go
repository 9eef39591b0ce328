package imaging_test

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"slices"
	"testing"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

var web = []string{"png", "jpeg", "webp"}

func TestPrepare(t *testing.T) {
	tests := []struct {
		name, format string
		data         []byte
		target       imaging.Target
		// want: sent format, dimensions and actions; unchanged means Data is nil.
		wantFormat    string
		wantW, wantH  int
		wantActions   []string
		wantUnchanged bool
	}{
		{"png within limits is untouched", "png", testfiles.PNG(300, 200), imaging.Target{Formats: web, MaxLongEdge: 1568}, "png", 300, 200, nil, true},
		{"static gif accepted is untouched", "gif", testfiles.GIF(20, 10), imaging.Target{Formats: []string{"gif", "png"}, StaticOnly: true}, "gif", 20, 10, nil, true},
		{"animated gif where animation is fine", "gif", testfiles.AnimatedGIF(20, 10, 3), imaging.Target{Formats: []string{"gif", "png"}}, "gif", 20, 10, nil, true},
		{"animated gif for a static-only API: first frame as png", "gif", testfiles.AnimatedGIF(20, 10, 3), imaging.Target{Formats: []string{"gif", "png"}, StaticOnly: true}, "png", 20, 10, []string{imaging.ActionFirstFrame, imaging.ActionConverted}, false},
		{"gif the API does not take becomes png", "gif", testfiles.GIF(20, 10), imaging.Target{Formats: web}, "png", 20, 10, []string{imaging.ActionConverted}, false},
		{"bmp becomes png", "bmp", testfiles.BMP(40, 30), imaging.Target{Formats: web}, "png", 40, 30, []string{imaging.ActionConverted}, false},
		{"tiff becomes png", "tiff", testfiles.TIFF(40, 30), imaging.Target{Formats: web}, "png", 40, 30, []string{imaging.ActionConverted}, false},
		{"tiff for a JPEG-only API becomes jpeg", "tiff", testfiles.TIFF(40, 30), imaging.Target{Formats: []string{"jpeg"}}, "jpeg", 40, 30, []string{imaging.ActionConverted}, false},
		{"long edge", "png", testfiles.PNG(3000, 100), imaging.Target{Formats: web, MaxLongEdge: 1500}, "png", 1500, 50, []string{imaging.ActionDownscaled}, false},
		{"short edge", "jpeg", testfiles.JPEG(2000, 1000), imaging.Target{Formats: web, MaxLongEdge: 2048, MaxShortEdge: 768}, "jpeg", 1536, 768, []string{imaging.ActionDownscaled}, false},
		{"pixels", "png", testfiles.PNG(2000, 2000), imaging.Target{Formats: web, MaxPixels: 1_000_000}, "png", 1000, 1000, []string{imaging.ActionDownscaled}, false},
		{"exif orientation 6 turns the photo", "jpeg", testfiles.Photo(40, 30, 6), imaging.Target{Formats: web}, "jpeg", 30, 40, []string{imaging.ActionOriented}, false},
		{"exif orientation 3 keeps the size", "jpeg", testfiles.Photo(40, 30, 3), imaging.Target{Formats: web}, "jpeg", 40, 30, []string{imaging.ActionOriented}, false},
		{"exif orientation 1 is nothing to do", "jpeg", testfiles.Photo(40, 30, 1), imaging.Target{Formats: web}, "jpeg", 40, 30, nil, true},
		{"oriented and downscaled", "jpeg", testfiles.Photo(400, 300, 8), imaging.Target{Formats: web, MaxLongEdge: 200}, "jpeg", 150, 200, []string{imaging.ActionOriented, imaging.ActionDownscaled}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := imaging.Prepare(tt.data, tt.format, tt.target)
			if err != nil {
				t.Fatal(err)
			}
			if r.Format != tt.wantFormat || r.Sent.Width != tt.wantW || r.Sent.Height != tt.wantH || !slices.Equal(r.Actions, tt.wantActions) {
				t.Fatalf("sent %s %dx%d %v, want %s %dx%d %v", r.Format, r.Sent.Width, r.Sent.Height, r.Actions, tt.wantFormat, tt.wantW, tt.wantH, tt.wantActions)
			}
			if r.Original.Bytes != int64(len(tt.data)) || r.Original.Format != tt.format {
				t.Errorf("original %+v", r.Original)
			}
			if tt.wantUnchanged {
				if r.Data != nil || r.Sent != r.Original {
					t.Errorf("untouched image got new bytes or a different sent info: %+v", r.Sent)
				}
				return
			}
			if r.Sent.Bytes != int64(len(r.Data)) {
				t.Errorf("sent bytes %d, data %d", r.Sent.Bytes, len(r.Data))
			}
			cfg, format, err := image.DecodeConfig(bytes.NewReader(r.Data))
			if err != nil || format != tt.wantFormat || cfg.Width != tt.wantW || cfg.Height != tt.wantH {
				t.Errorf("sent data decodes as %s %dx%d (%v)", format, cfg.Width, cfg.Height, err)
			}
		})
	}
}

// TestOrientationTurnsPixels: the Photo's left half is red and its right half blue; orientation 6
// (turn 90° clockwise to display) puts the left half on top.
func TestOrientationTurnsPixels(t *testing.T) {
	r, err := imaging.Prepare(testfiles.Photo(64, 48, 6), "jpeg", imaging.Target{Formats: web})
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatal(err)
	}
	redness := func(x, y int) int {
		cr, _, cb, _ := img.At(x, y).RGBA()
		return int(cr>>8) - int(cb>>8)
	}
	if top, bottom := redness(24, 4), redness(24, 60); top <= 0 || bottom >= 0 {
		t.Errorf("red-minus-blue at top %d, bottom %d: want the red half on top", top, bottom)
	}
}

func TestFirstFrameIsTheFirst(t *testing.T) {
	r, err := imaging.Prepare(testfiles.AnimatedGIF(8, 8, 3), "gif", imaging.Target{Formats: web, StaticOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatal(err)
	}
	if rr, g, b, _ := img.At(4, 4).RGBA(); rr>>8 != 0xff || g != 0 || b != 0 {
		t.Errorf("pixel = %x %x %x, want the first frame's red", rr>>8, g>>8, b>>8)
	}
}

func TestMaxBytes(t *testing.T) {
	noisy := testfiles.NoisyPNG(600, 600) // about 1 MB, and compresses badly
	r, err := imaging.Prepare(noisy, "png", imaging.Target{Formats: []string{"png"}, MaxBytes: 200 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent.Bytes > 200<<10 || r.Format != "png" || !slices.Contains(r.Actions, imaging.ActionDownscaled) {
		t.Errorf("sent %+v %v, want a PNG within 200 KB", r.Sent, r.Actions)
	}
	// An opaque photo kept as PNG goes as JPEG when the API takes it and that is smaller.
	img, err := jpeg.Decode(bytes.NewReader(testfiles.Photo(800, 600, 0)))
	if err != nil {
		t.Fatal(err)
	}
	var photoPNG bytes.Buffer
	if err := png.Encode(&photoPNG, img); err != nil {
		t.Fatal(err)
	}
	r, err = imaging.Prepare(photoPNG.Bytes(), "png", imaging.Target{Formats: web, MaxLongEdge: 400})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format != "jpeg" || r.Sent.Width != 400 || !slices.Equal(r.Actions, []string{imaging.ActionDownscaled, imaging.ActionConverted}) {
		t.Errorf("sent %+v %v, want a 400 px JPEG", r.Sent, r.Actions)
	}
}

func TestPrepareErrors(t *testing.T) {
	heic := []byte("\x00\x00\x00\x18ftypheic\x00\x00\x00\x00heicmif1")
	tests := []struct {
		name, format string
		data         []byte
		target       imaging.Target
		want         error
	}{
		{"heic for an API that does not take it", "heic", heic, imaging.Target{Formats: web}, imaging.ErrUnsupported},
		{"corrupt bmp", "bmp", []byte("BM not really"), imaging.Target{Formats: web}, imaging.ErrUnsupported},
		{"no png or jpeg to convert to", "bmp", testfiles.BMP(4, 4), imaging.Target{Formats: []string{"webp"}}, imaging.ErrUnsupported},
		{"a canvas too large to decode", "gif", hugeGIF(), imaging.Target{Formats: web}, imaging.ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := imaging.Prepare(tt.data, tt.format, tt.target); !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	// HEIC for an API that takes it goes as it is, unchecked.
	r, err := imaging.Prepare(heic, "heic", imaging.Target{Formats: []string{"png", "heic"}})
	if err != nil || r.Data != nil || r.Sent.Bytes != int64(len(heic)) {
		t.Errorf("heic accepted: %+v, %v", r, err)
	}
}

// hugeGIF is a 1x1 GIF whose logical screen claims 65535 x 65535.
func hugeGIF() []byte {
	b := testfiles.GIF(1, 1)
	for _, off := range []int{6, 8} {
		b[off], b[off+1] = 0xff, 0xff
	}
	return b
}

// A GIF whose first frame covers part of the logical screen is sent at the screen's size with the
// frame where it stands, not stretched over the screen (and not reported as downscaled).
func TestGIFFrameSmallerThanTheScreen(t *testing.T) {
	frame := image.NewPaletted(image.Rect(5, 2, 15, 7), color.Palette{color.Transparent, color.Black})
	for i := range frame.Pix {
		frame.Pix[i] = 1
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, &gif.GIF{Image: []*image.Paletted{frame}, Delay: []int{0},
		Config: image.Config{ColorModel: frame.Palette, Width: 20, Height: 10}}); err != nil {
		t.Fatal(err)
	}
	r, err := imaging.Prepare(buf.Bytes(), "gif", imaging.Target{Formats: []string{"png"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent.Width != 20 || r.Sent.Height != 10 || !slices.Equal(r.Actions, []string{imaging.ActionConverted}) {
		t.Fatalf("sent %dx%d, actions %v; want 20x10, [converted]", r.Sent.Width, r.Sent.Height, r.Actions)
	}
	img, err := png.Decode(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x, y   int
		opaque bool
	}{{0, 0, false}, {4, 2, false}, {5, 2, true}, {14, 6, true}, {15, 6, false}, {19, 9, false}} {
		_, _, _, a := img.At(c.x, c.y).RGBA()
		if (a == 0xffff) != c.opaque {
			t.Errorf("pixel (%d,%d) alpha %#x; want opaque %v", c.x, c.y, a, c.opaque)
		}
	}
}
