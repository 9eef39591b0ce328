package imaging_test

import (
	"testing"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testfiles"
)

// FuzzScanners: the header scanners read outside input; they never panic and stay in range.
func FuzzScanners(f *testing.F) {
	f.Add(testfiles.Photo(8, 8, 6))
	f.Add(testfiles.AnimatedGIF(4, 4, 2))
	f.Add(testfiles.GIF(4, 4))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10, 'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 42})
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := imaging.JPEGOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		_ = imaging.GIFAnimated(data)
	})
}

// FuzzPrepare: any bytes, under any declared format, give a result or an error, never a panic.
func FuzzPrepare(f *testing.F) {
	f.Add(testfiles.PNG(4, 4), "png")
	f.Add(testfiles.BMP(4, 4), "bmp")
	f.Add(testfiles.TIFF(4, 4), "tiff")
	f.Add(testfiles.AnimatedGIF(4, 4, 2), "gif")
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		r, err := imaging.Prepare(data, format, imaging.Target{Formats: []string{"png", "jpeg"}, MaxLongEdge: 64, MaxBytes: 1 << 20, StaticOnly: true})
		if err == nil && r.Data != nil && r.Sent.Bytes != int64(len(r.Data)) {
			t.Fatalf("sent bytes %d, data %d", r.Sent.Bytes, len(r.Data))
		}
	})
}
