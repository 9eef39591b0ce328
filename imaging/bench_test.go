package imaging_test

import (
	"sync"
	"testing"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// Anthropic's limits (docs/providers.md): 1568 px long edge, about 1.15 megapixels, 5 MB of base64.
var claude = imaging.Target{Formats: []string{"jpeg", "png", "gif", "webp"}, MaxLongEdge: 1568, MaxPixels: 1_150_000, MaxBytes: 3_932_160}

var (
	photo4000 = sync.OnceValue(func() []byte { return testfiles.Photo(4000, 3000, 0) })
	png20MB   = sync.OnceValue(func() []byte { return testfiles.NoisyPNG(2240, 2240) })
)

// BenchmarkDownscaleJPEG4000x3000 fits a 4000x3000 camera-like JPEG to a Claude model.
func BenchmarkDownscaleJPEG4000x3000(b *testing.B) {
	benchPrepare(b, photo4000(), "jpeg", claude)
}

// BenchmarkDownscalePNG20MB fits a 20 MB PNG (2240x2240 noise with random alpha, the worst case
// for PNG) to a Claude model: not opaque, it stays PNG, and the 5 MB base64 limit, not the pixel
// limit, decides its size (encoded again until it fits).
func BenchmarkDownscalePNG20MB(b *testing.B) {
	benchPrepare(b, png20MB(), "png", claude)
}

// BenchmarkConvertBMP converts a 1000x750 BMP to PNG without resizing.
func BenchmarkConvertBMP(b *testing.B) {
	benchPrepare(b, testfiles.BMP(1000, 750), "bmp", imaging.Target{Formats: []string{"png", "jpeg"}})
}

// BenchmarkUntouched is the cost for an image that already fits: header reads only.
func BenchmarkUntouched(b *testing.B) {
	benchPrepare(b, testfiles.PNG(1000, 750), "png", claude)
}

func benchPrepare(b *testing.B, data []byte, format string, t imaging.Target) {
	b.SetBytes(int64(len(data)))
	var r imaging.Result
	for b.Loop() {
		var err error
		if r, err = imaging.Prepare(data, format, t); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Original.Bytes)/1e6, "orig-MB")
	b.ReportMetric(float64(r.Sent.Bytes)/1e6, "sent-MB")
	b.ReportMetric(float64(r.Sent.Width), "sent-width")
}
