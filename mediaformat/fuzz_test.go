package mediaformat_test

import (
	"bytes"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/mediaformat"
)

// FuzzScanners: the header scanners read outside input; they never panic and stay in range.
func FuzzScanners(f *testing.F) {
	f.Add(testfiles.Photo(8, 8, 6))
	f.Add(testfiles.AnimatedGIF(4, 4, 2))
	f.Add(testfiles.GIF(4, 4))
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x10, 'E', 'x', 'i', 'f', 0, 0, 'M', 'M', 0, 42})
	f.Fuzz(func(t *testing.T, data []byte) {
		if o := mediaformat.JPEGOrientation(data); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
		if mediaformat.GIFAnimated(data) && !bytes.HasPrefix(data, []byte("GIF8")) {
			t.Fatalf("bytes without a GIF header taken as an animated GIF: %q", data[:min(len(data), 16)])
		}
	})
}
