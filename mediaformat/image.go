package mediaformat

import (
	"bytes"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"

	"golang.org/x/image/bmp"
	"golang.org/x/image/tiff"
	"golang.org/x/image/webp"
)

// imageFormat is what the worker knows of one image format, by its name ("png").
type imageFormat struct {
	// sendable: some supported model API takes the format as an image, as it is (docs/providers.md:
	// OpenAI, Anthropic and Gemini take PNG, JPEG and WebP; OpenAI and Anthropic GIF; Gemini HEIC
	// and HEIF). Which of them a model takes is its registry entry; this is the upper bound.
	sendable bool
	// magic reports whether the first bytes are of this format, for the formats whose header
	// ReadHeader reads unnamed; nil for the others.
	magic func(head []byte) bool
	// config and decode read the header and the pixels (a GIF's first frame); nil when the format
	// is not decoded here (HEIC).
	config func(io.Reader) (image.Config, error)
	decode func(io.Reader) (image.Image, error)
	// intact reports whether a file of the format is whole (Intact); nil: not checked.
	intact func([]byte) bool
}

// imageFormats is every image format the worker treats specially. Adding one: its entry here, its
// MIME type and extension in names.go when they are new, a fixture in internal/testing/testfiles.
var imageFormats = map[string]imageFormat{
	"png": {sendable: true, magic: prefix("\x89PNG\r\n\x1a\n"), config: png.DecodeConfig, decode: png.Decode,
		intact: func(b []byte) bool { return configOK(png.DecodeConfig, b) && pngReachesIEND(b) }},
	"jpeg": {sendable: true, magic: prefix("\xff\xd8"), config: jpeg.DecodeConfig, decode: jpeg.Decode,
		intact: func(b []byte) bool { return configOK(jpeg.DecodeConfig, b) && jpegReachesEOI(b) }},
	"gif": {sendable: true, magic: prefix("GIF8"), config: gif.DecodeConfig, decode: gif.Decode,
		intact: func(b []byte) bool { return configOK(gif.DecodeConfig, b) && gifReachesTrailer(b) }},
	"webp": {sendable: true, magic: isWebP, config: webp.DecodeConfig, decode: webp.Decode, intact: webpWhole},
	"bmp":  {config: bmp.DecodeConfig, decode: bmp.Decode},
	"tiff": {config: tiff.DecodeConfig, decode: tiff.Decode},
	"heic": {sendable: true},
	"heif": {sendable: true},
}

// headerOrder is the order ReadHeader tries the formats with a magic.
var headerOrder = []string{"png", "jpeg", "gif", "webp"}

// SendableImage reports whether some supported model API takes images of the format named format
// as they are (png, jpeg, gif, webp, heic, heif): no other image is ever sent as an image, whatever a
// registry says.
func SendableImage(format string) bool { return imageFormats[format].sendable }

// Decodable reports whether images of the format named format are decoded here (png, jpeg, gif,
// webp, bmp, tiff).
func Decodable(format string) bool { return imageFormats[format].decode != nil }

// DecodeConfig reads the header of an image of the named format: its dimensions and colour model.
func DecodeConfig(format string, r io.Reader) (image.Config, error) {
	f := imageFormats[format]
	if f.config == nil {
		return image.Config{}, fmt.Errorf("no decoder for %q", format)
	}
	return f.config(r)
}

// Decode reads an image of the named format; of a GIF, its first frame.
func Decode(format string, r io.Reader) (image.Image, error) {
	f := imageFormats[format]
	if f.decode == nil {
		return nil, fmt.Errorf("no decoder for %q", format)
	}
	return f.decode(r)
}

// ReadHeader recognises a PNG, JPEG, GIF or WebP from head, its first bytes, and reads its
// dimensions from r, which reads the image from its start (head again, then what follows: a JPEG's
// frame header may stand after a large EXIF segment). ok is false for other bytes and for a header
// that does not parse or gives no positive size.
func ReadHeader(head []byte, r io.Reader) (format string, width, height int, ok bool) {
	for _, name := range headerOrder {
		f := imageFormats[name]
		if !f.magic(head) {
			continue
		}
		cfg, err := f.config(r)
		if err != nil || cfg.Width <= 0 || cfg.Height <= 0 {
			return name, 0, 0, false
		}
		return name, cfg.Width, cfg.Height, true
	}
	return "", 0, 0, false
}

func prefix(p string) func([]byte) bool {
	return func(b []byte) bool { return bytes.HasPrefix(b, []byte(p)) }
}

// isWebP: a RIFF container ("RIFF", size, "WEBP").
func isWebP(b []byte) bool {
	return len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP"
}

func configOK(config func(io.Reader) (image.Config, error), b []byte) bool {
	_, err := config(bytes.NewReader(b))
	return err == nil
}
