package imaging_test

import (
	"bytes"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"reflect"
	"slices"
	"testing"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// FuzzPrepare: any bytes, under any declared format, give a result or an error, never a panic; a
// result fits the target: a format it takes, within its edge and byte limits, and new data is an
// image of the format and size the result reports. PrepareHead, from the first half of the bytes,
// says "as it is" only when Prepare does, with the same result.
func FuzzPrepare(f *testing.F) {
	f.Add(testfiles.PNG(4, 4), "png")
	f.Add(testfiles.PNG(100, 30), "png")
	f.Add(testfiles.BMP(4, 4), "bmp")
	f.Add(testfiles.TIFF(4, 4), "tiff")
	f.Add(testfiles.AnimatedGIF(4, 4, 2), "gif")
	target := imaging.Target{Formats: []string{"png", "jpeg"}, MaxLongEdge: 64, MaxBytes: 1 << 20, StaticOnly: true}
	f.Fuzz(func(t *testing.T, data []byte, format string) {
		r, err := imaging.Prepare(data, format, target)
		if h, ok := imaging.PrepareHead(data[:len(data)/2], int64(len(data)), format, target); ok && (err != nil || r.Data != nil || !reflect.DeepEqual(h, r)) {
			t.Fatalf("PrepareHead(first %d of %d bytes) = %+v; Prepare = %+v, %v", len(data)/2, len(data), h, r, err)
		}
		if err != nil {
			return
		}
		if r.Data != nil && r.Sent.Bytes != int64(len(r.Data)) {
			t.Fatalf("sent bytes %d, data %d", r.Sent.Bytes, len(r.Data))
		}
		if !slices.Contains(target.Formats, r.Format) || r.Sent.Format != r.Format {
			t.Fatalf("sends %q (sent info %q), the target takes %v", r.Format, r.Sent.Format, target.Formats)
		}
		if max(r.Sent.Width, r.Sent.Height) > target.MaxLongEdge || r.Sent.Bytes > target.MaxBytes {
			t.Fatalf("sends %dx%d, %d bytes: over the target's 64 px / 1 MiB", r.Sent.Width, r.Sent.Height, r.Sent.Bytes)
		}
		if r.Data != nil {
			cfg, got, err := image.DecodeConfig(bytes.NewReader(r.Data))
			if err != nil || got != r.Format || cfg.Width != r.Sent.Width || cfg.Height != r.Sent.Height {
				t.Fatalf("new data decodes as %s %dx%d (%v), result says %s %dx%d", got, cfg.Width, cfg.Height, err, r.Format, r.Sent.Width, r.Sent.Height)
			}
		}
	})
}
