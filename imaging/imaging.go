// Package imaging fits an image to what a model API accepts: it converts formats the API does not
// take (BMP, TIFF, an animated GIF for APIs that want static images) to PNG or JPEG, applies the
// EXIF orientation of JPEGs, drops metadata, and downscales images over the API's limits (long
// edge, short edge, pixels, bytes) with an area average written straight into the result, so a
// downscale holds no image besides the decoded source and the result (scale.go). It is pure: no
// I/O, safe for concurrent use.
//
// An image that already fits is left alone: Prepare then reads only its header and returns no
// new bytes, so the caller sends the original without another copy. PrepareHead tells the same from
// the image's first bytes alone, for a caller that holds the image encoded (base64) and would
// otherwise decode all of it to learn that.
package imaging

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"math"
	"slices"

	"golang.org/x/image/draw"

	"github.com/agentworks/artifact-worker/mediaformat"
)

// ErrUnsupported means the image's format is neither accepted by the target nor decodable here
// (HEIC, AVIF, a corrupt file), so it cannot be sent.
var ErrUnsupported = errors.New("imaging: image cannot be converted")

// ErrDamaged means the image is of a format decoded here (PNG, JPEG, GIF, WEBP, BMP, TIFF) but does
// not decode where it had to (truncated, corrupt). Errors that match it also match ErrUnsupported.
var ErrDamaged = errors.New("imaging: image does not decode")

// ErrTooLarge means the image has more pixels than Prepare decodes (MaxDecodePixels).
var ErrTooLarge = errors.New("imaging: image too large to decode")

// MaxDecodePixels bounds the pixels Prepare decodes (about 400 MB of RGBA), so that a small file
// claiming a huge canvas cannot exhaust memory.
const MaxDecodePixels = 100_000_000

// Actions Prepare may take, in Result.Actions.
const (
	ActionOriented   = "oriented"    // EXIF orientation applied
	ActionFirstFrame = "first_frame" // animated GIF reduced to its first frame
	ActionConverted  = "converted"   // format changed
	ActionDownscaled = "downscaled"  // made smaller to fit the limits
	ActionReencoded  = "reencoded"   // re-encoded (metadata dropped) with format and size kept
)

// Target is what the receiving API accepts.
type Target struct {
	// Formats the API takes: "png", "jpeg", "gif", "webp" (others are passed through when listed).
	Formats []string
	// MaxLongEdge, MaxShortEdge and MaxPixels bound the sent image; zero is no bound.
	MaxLongEdge, MaxShortEdge, MaxPixels int
	// MaxBytes bounds the encoded image; zero is no bound.
	MaxBytes int64
	// Fill, with MaxBytes, asks an image that has to be shrunk to fit MaxBytes to come out at
	// least Fill x MaxBytes when a size between the one that fits and the one that did not gets
	// there (a few more encodings, halving that gap): a byte bound used, not half of it. Zero: the
	// first size that fits.
	Fill float64
	// StaticOnly: animated GIFs are not accepted.
	StaticOnly bool
}

// Info describes one image.
type Info struct {
	Format        string
	Width, Height int
	Bytes         int64
}

// Result is what Prepare did.
type Result struct {
	// Data holds the new image; nil when the original is sent unchanged.
	Data []byte
	// Format of what is sent ("png", "jpeg", ...).
	Format   string
	Original Info
	Sent     Info
	Actions  []string
}

// MIME is the MIME type of the sent format.
func (r Result) MIME() string { return MIMEOf(r.Format) }

// MIMEOf is the MIME type of an image format name.
func MIMEOf(format string) string {
	if format == "" {
		return ""
	}
	return "image/" + format
}

// Prepare fits data, an image of the given format ("png", "jpeg", "gif", "webp", "bmp", "tiff"),
// to t. It returns ErrUnsupported when the image can neither be sent as it is nor decoded.
func Prepare(data []byte, format string, t Target) (Result, error) {
	res := Result{Format: format, Original: Info{Format: format, Bytes: int64(len(data))}}
	accepted := slices.Contains(t.Formats, format)
	cfg, err := decodeConfig(data, format)
	if err != nil {
		// Not decodable here (HEIC for Gemini, say): it can only go as it is, unchecked.
		if accepted && (t.MaxBytes == 0 || int64(len(data)) <= t.MaxBytes) {
			res.Sent = res.Original
			return res, nil
		}
		return res, unsupported(format, err)
	}
	res.Original.Width, res.Original.Height = cfg.Width, cfg.Height

	orientation := 1
	if format == "jpeg" {
		orientation = mediaformat.JPEGOrientation(data)
	}
	animated := format == "gif" && t.StaticOnly && mediaformat.GIFAnimated(data)
	w, h := cfg.Width, cfg.Height
	if orientation >= 5 { // 5..8 swap width and height
		w, h = h, w
	}
	sw, sh := fit(w, h, t)
	if accepted && !animated && orientation == 1 && sw == w && sh == h && (t.MaxBytes == 0 || int64(len(data)) <= t.MaxBytes) {
		res.Sent = res.Original
		return res, nil
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxDecodePixels {
		return res, fmt.Errorf("%w: %dx%d", ErrTooLarge, cfg.Width, cfg.Height)
	}

	img, err := decode(data, format)
	if err != nil {
		return res, unsupported(format, err)
	}
	img = onCanvas(img, cfg.Width, cfg.Height)
	if animated {
		res.Actions = append(res.Actions, ActionFirstFrame)
	}
	if orientation >= 5 { // scale in the stored orientation, turn the small result
		sw, sh = sh, sw
	}
	out, outFormat, err := encodeFitting(img, format, orientation, sw, sh, t, &res)
	if err != nil {
		return res, err
	}
	if outFormat != format {
		res.Actions = append(res.Actions, ActionConverted)
	}
	if len(res.Actions) == 0 {
		res.Actions = append(res.Actions, ActionReencoded)
	}
	b := out.Bounds()
	res.Data, res.Format = out.data, outFormat
	res.Sent = Info{Format: outFormat, Width: b.Dx(), Height: b.Dy(), Bytes: int64(len(out.data))}
	return res, nil
}

// PrepareHead is Prepare for an image of size bytes of which only head, its first bytes, is at hand
// (say, decoded from the start of a base64 text): ok is true when head shows that Prepare leaves the
// image as it is, and res is then what Prepare returns for the whole image (Data nil, Sent equal
// to Original). Otherwise ok is false: the image needs work, or head does not say enough (its header
// goes on beyond head, a GIF whose animation matters, a format not decoded here); call Prepare with
// the whole image. PrepareHead reads headers only.
func PrepareHead(head []byte, size int64, format string, t Target) (res Result, ok bool) {
	whole := int64(len(head)) == size
	switch {
	case int64(len(head)) > size, !slices.Contains(t.Formats, format), t.MaxBytes != 0 && size > t.MaxBytes:
		return Result{}, false
	case format == "gif" && t.StaticOnly && (!whole || mediaformat.GIFAnimated(head)): // the second frame may lie beyond head
		return Result{}, false
	}
	cfg, err := decodeConfig(head, format) // reads the header only: it succeeds on head as on the whole image
	if err != nil {
		return Result{}, false
	}
	if format == "jpeg" {
		if o, complete := mediaformat.JPEGOrientationHead(head); o != 1 || !complete && !whole {
			return Result{}, false
		}
	}
	if sw, sh := fit(cfg.Width, cfg.Height, t); sw != cfg.Width || sh != cfg.Height {
		return Result{}, false
	}
	info := Info{Format: format, Width: cfg.Width, Height: cfg.Height, Bytes: size}
	return Result{Format: format, Original: info, Sent: info}, true
}

// encoded is an image and its encoding.
type encoded struct {
	image.Image
	data []byte
}

// encodeFitting scales img to sw x sh (in its stored orientation), applies the EXIF orientation and
// encodes it in an accepted format, shrinking further
// (by the square root of the overshoot) while the bytes exceed MaxBytes.
func encodeFitting(img image.Image, format string, orientation, sw, sh int, t Target, res *Result) (encoded, string, error) {
	b := img.Bounds()
	if orientation != 1 {
		res.Actions = append(res.Actions, ActionOriented)
	}
	try := func(sw, sh, sizeHint int) (encoded, string, error) {
		scaled := img
		if sw != b.Dx() || sh != b.Dy() {
			scaled = scale(img, sw, sh)
			if !slices.Contains(res.Actions, ActionDownscaled) {
				res.Actions = append(res.Actions, ActionDownscaled)
			}
		}
		if orientation != 1 {
			scaled = orient(scaled, orientation)
		}
		data, outFormat, err := encode(scaled, format, t.Formats, sizeHint)
		return encoded{Image: scaled, data: data}, outFormat, err
	}
	sizeHint := 0        // bytes to reserve for the encoding: none at first, then what a retry should take
	overW, overH := 0, 0 // the last size that did not fit
	for range 6 {
		e, outFormat, err := try(sw, sh, sizeHint)
		if err != nil {
			return encoded{}, "", err
		}
		if t.MaxBytes == 0 || int64(len(e.data)) <= t.MaxBytes || sw <= 16 && sh <= 16 {
			if overW > 0 && t.Fill > 0 && t.MaxBytes > 0 {
				return fill(try, e, outFormat, sw, sh, overW, overH, t)
			}
			return e, outFormat, nil
		}
		overW, overH = sw, sh
		f := math.Sqrt(float64(t.MaxBytes)/float64(len(e.data))) * 0.95
		sw, sh = max(int(float64(sw)*f), 1), max(int(float64(sh)*f), 1)
		// The next encoding should be about f² of this one (0.9 MaxBytes): reserving that and a tenth
		// spares the encoder's buffer its doublings, each a copy, to up to twice what it holds.
		sizeHint = int(float64(len(e.data)) * f * f * 1.1)
	}
	return encoded{}, "", fmt.Errorf("%w: cannot fit in %d bytes", ErrUnsupported, t.MaxBytes)
}

// fillTries bounds the extra encodings fill makes.
const fillTries = 4

// fill grows an image that fits (fit, at w x h) toward the size that did not (overW x overH) while
// it is under t.Fill x t.MaxBytes. Encoded bytes grow about with the area, so each try aims at the
// middle of [Fill x MaxBytes, MaxBytes] by the square root of the bytes still wanted, kept strictly
// between the largest size that fits and the smallest that does not; at most fillTries tries (one
// or two in practice: each encoding of a large image costs tens of milliseconds). It keeps the
// largest that fits.
func fill(try func(w, h, sizeHint int) (encoded, string, error), fit encoded, format string, w, h, overW, overH int, t Target) (encoded, string, error) {
	want := int64(t.Fill * float64(t.MaxBytes))
	aim := (float64(want) + float64(t.MaxBytes)) / 2
	for range fillTries {
		if int64(len(fit.data)) >= want || overW-w <= 1 {
			break
		}
		f := math.Sqrt(aim / float64(max(len(fit.data), 1)))
		mw := min(max(int(float64(w)*f), w+1), overW-1)
		mh := min(max(int(float64(h)*float64(mw)/float64(w)), h), max(overH-1, h))
		e, f2, err := try(mw, mh, int(t.MaxBytes))
		switch {
		case err != nil:
			return fit, format, nil // the size that fits stands
		case int64(len(e.data)) <= t.MaxBytes:
			fit, format, w, h = e, f2, mw, mh
		default:
			overW, overH = mw, mh
		}
	}
	return fit, format, nil
}

// encode writes img in the best accepted format: JPEG stays JPEG; otherwise PNG, or JPEG when the
// image is opaque, sizeable and JPEG comes out smaller (a photo). sizeHint is the bytes to reserve
// for an encoding (0: let it grow).
func encode(img image.Image, from string, formats []string, sizeHint int) ([]byte, string, error) {
	canPNG, canJPEG := slices.Contains(formats, "png"), slices.Contains(formats, "jpeg")
	if from == "jpeg" && canJPEG || !canPNG && canJPEG {
		data, err := encodeJPEG(img, sizeHint)
		return data, "jpeg", err
	}
	if !canPNG {
		return nil, "", fmt.Errorf("%w: the target takes neither PNG nor JPEG", ErrUnsupported)
	}
	var buf bytes.Buffer
	buf.Grow(sizeHint)
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, "", fmt.Errorf("imaging: encode png: %w", err)
	}
	const photoBytes = 64 << 10 // below this, trying JPEG is not worth its time
	if canJPEG && buf.Len() > photoBytes && opaque(img) {
		if j, err := encodeJPEG(img, min(sizeHint, buf.Len())); err == nil && len(j) < buf.Len() {
			return j, "jpeg", nil
		}
	}
	return buf.Bytes(), "png", nil
}

func encodeJPEG(img image.Image, sizeHint int) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(sizeHint)
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, fmt.Errorf("imaging: encode jpeg: %w", err)
	}
	return buf.Bytes(), nil
}

// fit is the size of a w x h image inside the target's bounds, keeping the aspect ratio.
func fit(w, h int, t Target) (int, int) {
	if w <= 0 || h <= 0 {
		return w, h
	}
	s := 1.0
	long, short := max(w, h), min(w, h)
	if t.MaxLongEdge > 0 && long > t.MaxLongEdge {
		s = min(s, float64(t.MaxLongEdge)/float64(long))
	}
	if t.MaxShortEdge > 0 && short > t.MaxShortEdge {
		s = min(s, float64(t.MaxShortEdge)/float64(short))
	}
	if t.MaxPixels > 0 && w*h > t.MaxPixels {
		s = min(s, math.Sqrt(float64(t.MaxPixels)/float64(w*h)))
	}
	if s >= 1 {
		return w, h
	}
	return max(int(float64(w)*s), 1), max(int(float64(h)*s), 1)
}

func opaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	return false
}

func decodeConfig(data []byte, format string) (image.Config, error) {
	return mediaformat.DecodeConfig(format, bytes.NewReader(data))
}

// unsupported is ErrUnsupported for a decoding failure, also ErrDamaged when format is decoded here.
func unsupported(format string, err error) error {
	if mediaformat.Decodable(format) {
		return fmt.Errorf("%w: %w: %s: %v", ErrUnsupported, ErrDamaged, format, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrUnsupported, format, err)
}

// decode reads the image; for a GIF, its first frame.
func decode(data []byte, format string) (image.Image, error) {
	return mediaformat.Decode(format, bytes.NewReader(data))
}

// orient applies an EXIF orientation (2..8) to img, copying whole pixels of an RGBA buffer.
func orient(img image.Image, o int) image.Image {
	src := toRGBA(img)
	w, h := src.Rect.Dx(), src.Rect.Dy()
	dw, dh := w, h
	if o >= 5 {
		dw, dh = h, w
	}
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range h {
		row := src.Pix[y*src.Stride : y*src.Stride+4*w]
		for x := range w {
			var dx, dy int
			switch o {
			case 2:
				dx, dy = w-1-x, y
			case 3:
				dx, dy = w-1-x, h-1-y
			case 4:
				dx, dy = x, h-1-y
			case 5:
				dx, dy = y, x
			case 6:
				dx, dy = h-1-y, x
			case 7:
				dx, dy = h-1-y, w-1-x
			case 8:
				dx, dy = y, w-1-x
			default:
				dx, dy = x, y
			}
			copy(dst.Pix[dy*dst.Stride+4*dx:dy*dst.Stride+4*dx+4], row[4*x:4*x+4])
		}
	}
	return dst
}

// toRGBA returns img as an *image.RGBA at the origin, converting when it is not one.
func toRGBA(img image.Image) *image.RGBA {
	if r, ok := img.(*image.RGBA); ok && r.Rect.Min == (image.Point{}) {
		return r
	}
	b := img.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
	return dst
}

// onCanvas places img on a transparent canvas of the image's logical size when its bounds are not
// that canvas: a GIF's first frame may cover only part of the logical screen, at an offset, and must
// be sent where it stands on the screen, not stretched over it.
func onCanvas(img image.Image, w, h int) image.Image {
	canvas := image.Rect(0, 0, w, h)
	if img.Bounds() == canvas {
		return img
	}
	dst := image.NewRGBA(canvas)
	draw.Draw(dst, img.Bounds().Intersect(canvas), img, img.Bounds().Min, draw.Src)
	return dst
}

// FitSize is the size a w x h image is scaled to for t (its long edge, short edge and pixel limits),
// keeping the aspect ratio: what Prepare does to an image over the limits. A rendered page is drawn
// at this size straight away, so it is never scaled twice.
func FitSize(w, h int, t Target) (int, int) { return fit(w, h, t) }

// Encode writes img, an image drawn here at its final size (a rendered PDF page), in the format
// Prepare would choose for a PNG of it (PNG, or JPEG when img is opaque, sizeable and JPEG comes out
// smaller: a scan), shrinking it while the bytes exceed t.MaxBytes. Result.Original describes img
// before encoding (format "raw", no bytes). It errs when t takes neither PNG nor JPEG.
func Encode(img image.Image, t Target) (Result, error) {
	b := img.Bounds()
	res := Result{Original: Info{Format: "raw", Width: b.Dx(), Height: b.Dy()}}
	out, format, err := encodeFitting(img, "png", 1, b.Dx(), b.Dy(), t, &res)
	if err != nil {
		return res, err
	}
	ob := out.Bounds()
	res.Data, res.Format = out.data, format
	res.Sent = Info{Format: format, Width: ob.Dx(), Height: ob.Dy(), Bytes: int64(len(out.data))}
	return res, nil
}
