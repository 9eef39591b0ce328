package imaging_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// withAPP2 puts a segment of n bytes (an ICC profile's place) between a JPEG's SOI and the rest, so
// its EXIF and frame header sit n bytes further on.
func withAPP2(jpeg []byte, n int) []byte {
	seg := append([]byte{0xFF, 0xE2, byte((n + 2) >> 8), byte(n + 2)}, bytes.Repeat([]byte{'i'}, n)...)
	return append(append(append([]byte{}, jpeg[:2]...), seg...), jpeg[2:]...)
}

// exifAfterFrame moves a JPEG's EXIF segment (APP1) from before its frame header to just before its
// scan, and gives it a JFIF segment (APP0), with which image/jpeg reads the dimensions without going
// on to the scan: legal, and then a head can hold the dimensions without the orientation.
func exifAfterFrame(jpeg []byte) []byte {
	jfif := []byte{0xFF, 0xE0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}
	jpeg = append(append(append([]byte{}, jpeg[:2]...), jfif...), jpeg[2:]...)
	i := bytes.Index(jpeg, []byte{0xFF, 0xE1})
	n := int(jpeg[i+2])<<8 | int(jpeg[i+3])
	app1 := jpeg[i : i+2+n]
	rest := append(append([]byte{}, jpeg[:i]...), jpeg[i+2+n:]...)
	sos := bytes.Index(rest, []byte{0xFF, 0xDA})
	return append(append(append([]byte{}, rest[:sos]...), app1...), rest[sos:]...)
}

// TestPrepareHeadAgreesWithPrepare: whenever PrepareHead says, from any first bytes of an image,
// that it goes as it is, Prepare of the whole image says the same and reports the same; and an image
// Prepare leaves alone is recognised from a head holding its headers.
func TestPrepareHeadAgreesWithPrepare(t *testing.T) {
	images := []struct {
		name, format string
		data         []byte
	}{
		{"png", "png", testfiles.PNG(300, 200)},
		{"big png", "png", testfiles.PNG(3000, 100)},
		{"jpeg", "jpeg", testfiles.JPEG(64, 48)},
		{"photo, orientation 1", "jpeg", testfiles.Photo(40, 30, 1)},
		{"photo, orientation 6", "jpeg", testfiles.Photo(40, 30, 6)},
		{"photo, orientation 6 behind 3000 bytes", "jpeg", withAPP2(testfiles.Photo(40, 30, 6), 3000)},
		{"photo, orientation 1 behind 3000 bytes", "jpeg", withAPP2(testfiles.Photo(40, 30, 1), 3000)},
		{"photo, orientation 6 after the frame header", "jpeg", exifAfterFrame(testfiles.Photo(40, 30, 6))},
		{"gif", "gif", testfiles.GIF(20, 10)},
		{"animated gif", "gif", testfiles.AnimatedGIF(20, 10, 3)},
		{"webp", "webp", testfiles.WebP()},
		{"bmp", "bmp", testfiles.BMP(40, 30)},
		{"tiff", "tiff", testfiles.TIFF(40, 30)},
		{"not an image", "png", []byte("\x89PNG\r\n\x1a\n this is not one")},
	}
	targets := map[string]imaging.Target{
		"web":         {Formats: web},
		"gif static":  {Formats: []string{"png", "jpeg", "gif", "webp"}, StaticOnly: true},
		"gif any":     {Formats: []string{"png", "jpeg", "gif", "webp"}},
		"long edge":   {Formats: web, MaxLongEdge: 1500},
		"small bytes": {Formats: web, MaxBytes: 2000},
		"everything":  {Formats: []string{"png", "jpeg", "gif", "webp", "bmp", "tiff"}},
	}
	for _, img := range images {
		for tname, target := range targets {
			want, werr := imaging.Prepare(img.data, img.format, target)
			unchanged := werr == nil && want.Data == nil
			recognised := false
			for k := 0; k < len(img.data); k += max(1, min(97, len(img.data)/50)) {
				got, ok := imaging.PrepareHead(img.data[:k], int64(len(img.data)), img.format, target)
				if !ok {
					continue
				}
				recognised = true
				if !unchanged || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s/%s: PrepareHead(first %d of %d bytes) = %+v, ok; Prepare = %+v, %v", img.name, tname, k, len(img.data), got, want, werr)
				}
			}
			if got, ok := imaging.PrepareHead(img.data, int64(len(img.data)), img.format, target); ok != unchanged && !(unchanged && want.Original.Width == 0) {
				t.Errorf("%s/%s: PrepareHead(whole image) ok=%v (%+v), Prepare leaves it alone: %v", img.name, tname, ok, got, unchanged)
			}
			// Headers at the start: an image left alone is recognised before its end (not a TIFF,
			// whose directory may be anywhere, nor a GIF under StaticOnly, whose frames all count).
			headerFirst := img.format != "tiff" && !(img.format == "gif" && target.StaticOnly)
			if unchanged && want.Original.Width != 0 && headerFirst && !recognised {
				t.Errorf("%s/%s: Prepare leaves it alone, PrepareHead never saw it", img.name, tname)
			}
		}
	}
}

// A head that ends inside a JPEG's segments says nothing about the orientation behind them.
func TestPrepareHeadJPEGOrientationBeyondHead(t *testing.T) {
	for _, photo := range [][]byte{withAPP2(testfiles.Photo(40, 30, 6), 3000), exifAfterFrame(testfiles.Photo(40, 30, 6))} {
		for k := range bytes.Index(photo, []byte{0xFF, 0xDA}) {
			if r, ok := imaging.PrepareHead(photo[:k], int64(len(photo)), "jpeg", imaging.Target{Formats: web}); ok {
				t.Fatalf("first %d bytes: ok, %+v; the EXIF behind them turns the photo", k, r)
			}
		}
	}
}
