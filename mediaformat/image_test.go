package mediaformat_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/mediaformat"
)

// TestReadHeader: the four formats recognised unnamed give their format and size, WebP in each of
// its three chunk kinds (the testdata files are golang.org/x/image's); other bytes and headers cut
// short give ok false.
func TestReadHeader(t *testing.T) {
	file := func(name string) []byte {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name, format string
		data         []byte
		w, h         int
	}{
		{"png", "png", testfiles.PNG(40, 30), 40, 30},
		{"jpeg", "jpeg", testfiles.JPEG(64, 48), 64, 48},
		{"jpeg behind EXIF", "jpeg", testfiles.Photo(40, 30, 6), 40, 30},
		{"gif", "gif", testfiles.GIF(20, 10), 20, 10},
		{"webp VP8L", "webp", testfiles.WebP(), 1, 1},
		{"webp VP8 (lossy)", "webp", file("blue-purple-pink.lossy.webp"), 150, 100},
		{"webp VP8X (alpha)", "webp", file("yellow_rose.lossy-with-alpha.webp"), 400, 301},
		{"webp VP8L (paletted)", "webp", file("gopher-doc.1bpp.lossless.webp"), 75, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := tt.data[:min(len(tt.data), 64)]
			format, w, h, ok := mediaformat.ReadHeader(head, bytes.NewReader(tt.data))
			if !ok || format != tt.format || w != tt.w || h != tt.h {
				t.Errorf("ReadHeader = %s %dx%d %v, want %s %dx%d", format, w, h, ok, tt.format, tt.w, tt.h)
			}
			cut := tt.data[:min(len(tt.data), 14)]
			if _, _, _, ok := mediaformat.ReadHeader(cut, bytes.NewReader(cut)); ok {
				t.Errorf("a header cut at 14 bytes reads")
			}
		})
	}
	for name, b := range map[string][]byte{"bmp": testfiles.BMP(4, 4), "pdf": testfiles.PDF(), "text": []byte("RIFF is a word"), "empty": nil} {
		if format, _, _, ok := mediaformat.ReadHeader(b, bytes.NewReader(b)); ok {
			t.Errorf("%s read as a %s header", name, format)
		}
	}
}

func TestFormatFacts(t *testing.T) {
	for _, f := range []string{"png", "jpeg", "gif", "webp", "heic", "heif"} {
		if !mediaformat.SendableImage(f) {
			t.Errorf("%s is not sendable", f)
		}
	}
	for _, f := range []string{"bmp", "tiff", "svg", "pdf", ""} {
		if mediaformat.SendableImage(f) {
			t.Errorf("%s is sendable", f)
		}
	}
	for _, f := range []string{"png", "jpeg", "gif", "webp", "bmp", "tiff"} {
		if !mediaformat.Decodable(f) {
			t.Errorf("%s is not decodable", f)
		}
	}
	if mediaformat.Decodable("heic") {
		t.Error("heic decodable")
	}
	if _, err := mediaformat.DecodeConfig("heic", bytes.NewReader(nil)); err == nil {
		t.Error("DecodeConfig of heic: no error")
	}
	if got := mediaformat.Spelling("webp") + " " + mediaformat.Spelling("png"); got != "WebP PNG" {
		t.Errorf("spellings %q", got)
	}
}

// TestWalkers: the GIF block walker counts frames, the JPEG segment walker finds the EXIF
// orientation, and says when a head is too short to tell.
func TestWalkers(t *testing.T) {
	if !mediaformat.GIFAnimated(testfiles.AnimatedGIF(4, 4, 2)) || mediaformat.GIFAnimated(testfiles.GIF(4, 4)) {
		t.Error("GIFAnimated")
	}
	anim := testfiles.AnimatedGIF(4, 4, 3)
	if mediaformat.GIFAnimated(anim[:20]) {
		t.Error("the first 20 bytes of a GIF are animated")
	}
	for o := 1; o <= 8; o++ {
		p := testfiles.Photo(8, 6, o)
		if got := mediaformat.JPEGOrientation(p); got != o {
			t.Errorf("orientation %d read as %d", o, got)
		}
		if got, complete := mediaformat.JPEGOrientationHead(p[:4]); got != 1 || complete {
			t.Errorf("4 bytes of a JPEG: orientation %d, complete %v", got, complete)
		}
	}
	if o, complete := mediaformat.JPEGOrientationHead(testfiles.PNG(4, 4)); o != 1 || !complete {
		t.Errorf("a PNG: %d, %v", o, complete)
	}
}
