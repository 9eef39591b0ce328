package testfiles

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
)

// PNG returns a w x h PNG with a colour gradient. Non-positive sizes are raised to 1.
func PNG(w, h int) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, gradient(w, h)); err != nil {
		panic("testfiles: png: " + err.Error()) // encoding an in-memory RGBA cannot fail
	}
	return buf.Bytes()
}

// NoisyPNG returns a w x h PNG of pseudo-random pixels, which compresses badly: use it to get a
// PNG of a given order of size (a 600 x 600 NoisyPNG is about 1 MB).
func NoisyPNG(w, h int) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
	x := uint32(2463534242)
	for i := range img.Pix {
		x ^= x << 13 // xorshift32: deterministic, no math/rand state
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = byte(x)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("testfiles: png: " + err.Error())
	}
	return buf.Bytes()
}

// OpaqueNoisyPNG is NoisyPNG without transparency: RGB noise at full alpha, about 3 bytes a pixel
// (a 1200 x 900 one is about 3.2 MB), the worst case of a screenshot or photo kept as PNG.
func OpaqueNoisyPNG(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, max(w, 1), max(h, 1)))
	x := uint32(2463534242)
	for i := range img.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = byte(x)
		if i%4 == 3 {
			img.Pix[i] = 0xff
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		panic("testfiles: png: " + err.Error())
	}
	return buf.Bytes()
}

// JPEG returns a w x h baseline JPEG.
func JPEG(w, h int) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, gradient(w, h), &jpeg.Options{Quality: 80}); err != nil {
		panic("testfiles: jpeg: " + err.Error())
	}
	return buf.Bytes()
}

// GIF returns a w x h single-frame (not animated) GIF.
func GIF(w, h int) []byte {
	pal := image.NewPaletted(image.Rect(0, 0, max(w, 1), max(h, 1)), []color.Color{
		color.Black, color.White, color.RGBA{R: 0xcc, A: 0xff},
	})
	for y := range pal.Rect.Dy() {
		for x := range pal.Rect.Dx() {
			pal.SetColorIndex(x, y, uint8((x+y)%3))
		}
	}
	var buf bytes.Buffer
	if err := gif.Encode(&buf, pal, nil); err != nil {
		panic("testfiles: gif: " + err.Error())
	}
	return buf.Bytes()
}

// webpLossless1x1 is the 1x1 lossless (VP8L) WebP that browsers' feature detection (Modernizr)
// loads; the standard library has no WebP encoder.
const webpLossless1x1 = "UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA=="

// WebP returns a valid 1x1 lossless WebP.
func WebP() []byte {
	b, err := base64.StdEncoding.DecodeString(webpLossless1x1)
	if err != nil {
		panic("testfiles: webp constant: " + err.Error())
	}
	return b
}

// BMP returns a w x h 24-bit uncompressed BMP, a format no model API accepts as an image.
func BMP(w, h int) []byte {
	w, h = max(w, 1), max(h, 1)
	row := (w*3 + 3) &^ 3 // rows are padded to 4 bytes
	pixels := row * h
	b := make([]byte, 54+pixels)
	copy(b, "BM")
	le := binary.LittleEndian
	le.PutUint32(b[2:], uint32(len(b))) // file size
	le.PutUint32(b[10:], 54)            // pixel data offset
	le.PutUint32(b[14:], 40)            // BITMAPINFOHEADER size
	le.PutUint32(b[18:], uint32(w))
	le.PutUint32(b[22:], uint32(h))
	le.PutUint16(b[26:], 1)  // planes
	le.PutUint16(b[28:], 24) // bits per pixel
	le.PutUint32(b[34:], uint32(pixels))
	for i := 54; i < len(b); i++ {
		b[i] = 0x80
	}
	return b
}

func gradient(w, h int) *image.RGBA {
	w, h = max(w, 1), max(h, 1)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x * 255 / w), G: uint8(y * 255 / h), B: 0x80, A: 0xff})
		}
	}
	return img
}
