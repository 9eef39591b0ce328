package handlers

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// withSegment puts an n-byte APP2 segment (an ICC profile's place) after a JPEG's SOI: its frame
// header then lies beyond the first 4 KiB fit looks at.
func withSegment(jpeg []byte, n int) []byte {
	seg := append([]byte{0xFF, 0xE2, byte((n + 2) >> 8), byte(n + 2)}, bytes.Repeat([]byte{'i'}, n)...)
	return append(append(append([]byte{}, jpeg[:2]...), seg...), jpeg[2:]...)
}

// wrapped is base64 in lines of 76 characters ending CR LF, as MIME writes it (Preprocess takes it).
func wrapped(data []byte) string {
	s := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(s) > 76 {
		b.WriteString(s[:76] + "\r\n")
		s = s[76:]
	}
	b.WriteString(s + "\r\n")
	return b.String()
}

// TestFitAsTheWholeImageSays: fit, which looks at the first bytes of an image first, answers exactly
// as decoding the whole image did, for images that go as they are (their headers in the first 4
// KiB, in the first 64 KiB, beyond them) and images that need work, in base64 with and without line
// breaks, for several models.
func TestFitAsTheWholeImageSays(t *testing.T) {
	png := testfiles.NoisyPNG(400, 300)
	images := map[string]historyimage.Image{
		"png":                         {Data: base64.StdEncoding.EncodeToString(png), MimeType: "image/png"},
		"png, wrapped base64":         {Data: wrapped(png), MimeType: "image/png"},
		"png to downscale":            {Data: base64.StdEncoding.EncodeToString(testfiles.NoisyPNG(2100, 60)), MimeType: "image/png"},
		"jpeg, frame after 20 KiB":    {Data: base64.StdEncoding.EncodeToString(withSegment(testfiles.Photo(300, 200, 0), 20<<10)), MimeType: "image/jpeg"},
		"jpeg, frame after 60 KiB":    {Data: base64.StdEncoding.EncodeToString(withSegment(withSegment(testfiles.Photo(300, 200, 0), 60<<10), 30<<10)), MimeType: "image/jpeg"},
		"jpeg to turn, after 20 KiB":  {Data: base64.StdEncoding.EncodeToString(withSegment(testfiles.Photo(300, 200, 6), 20<<10)), MimeType: "image/jpeg"},
		"animated gif":                {Data: base64.StdEncoding.EncodeToString(append(testfiles.AnimatedGIF(200, 100, 3), make([]byte, 8<<10)...)), MimeType: "image/gif"},
		"gif for a static-only model": {Data: base64.StdEncoding.EncodeToString(append(testfiles.GIF(200, 100), make([]byte, 8<<10)...)), MimeType: "image/gif"},
		"small png":                   {Data: base64.StdEncoding.EncodeToString(testfiles.PNG(8, 8)), MimeType: "image/png"},
	}
	models := map[string]struct {
		formats routing.Formats
		dialect string
	}{
		"default":             {routing.Formats{}, contracts.DialectOpenAIChat},
		"anthropic, gif":      {routing.Formats{Image: []string{"png", "jpeg", "gif", "webp"}, Limits: routing.ImageLimits{MaxLongEdge: 1568, MaxPixels: 1_150_000}}, contracts.DialectAnthropic},
		"small bytes":         {routing.Formats{Image: []string{"png", "jpeg"}, Limits: routing.ImageLimits{MaxBytes: 100 << 10}}, contracts.DialectGemini},
		"bedrock, long edge":  {routing.Formats{Image: []string{"png", "jpeg", "gif", "webp"}, Limits: routing.ImageLimits{MaxLongEdge: 250}}, contracts.DialectBedrockConverse},
		"static-only, gif ok": {routing.Formats{Image: []string{"png", "gif"}, Limits: routing.ImageLimits{StaticOnly: true}}, contracts.DialectOpenAIResponses},
	}
	for name, img := range images {
		for mname, m := range models {
			got, gerr := fit(img, m.formats, m.dialect)
			want, werr := fitWhole(img, m.formats, m.dialect)
			if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s/%s: fit = %s %.40q %+v, %v; whole image: %s %.40q %+v, %v", name, mname,
					got.mime, got.data, got.processing, gerr, want.mime, want.data, want.processing, werr)
			}
		}
	}
}

// TestFitLeavesAnUnchangedImageEncoded: an image that goes as it is costs fit its first bytes (4 KiB
// for a PNG, 64 KiB for a JPEG whose frame header comes after 20 KiB of other segments), not a
// decoded copy of the image (before: as many bytes as the image per call).
func TestFitLeavesAnUnchangedImageEncoded(t *testing.T) {
	for _, tt := range []struct {
		name, mime string
		data       []byte
		max        uint64
	}{
		{"png", "image/png", testfiles.NoisyPNG(800, 600), 16 << 10},
		{"jpeg, frame after 20 KiB", "image/jpeg", withSegment(testfiles.Photo(1400, 800, 0), 20<<10), 128 << 10},
	} {
		img := historyimage.Image{Data: base64.StdEncoding.EncodeToString(tt.data), MimeType: tt.mime}
		if f, err := fit(img, routing.Formats{}, contracts.DialectOpenAIChat); err != nil || f.processing.Actions != nil || f.data != img.Data {
			t.Fatalf("%s: fit = %+v, %v; want the image as it is", tt.name, f.processing, err)
		}
		perCall := uint64(1<<64 - 1) // the fewest bytes of 10 calls: nothing else counted in
		for range 10 {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _ = fit(img, routing.Formats{}, contracts.DialectOpenAIChat)
			runtime.ReadMemStats(&after)
			perCall = min(perCall, after.TotalAlloc-before.TotalAlloc)
		}
		t.Logf("%s: fit of an unchanged %d-byte image allocates %d bytes per call", tt.name, len(tt.data), perCall)
		if perCall > tt.max {
			t.Errorf("%s: fit allocates %d bytes per call for a %d-byte image that goes as it is; want at most %d", tt.name, perCall, len(tt.data), tt.max)
		}
	}
}
