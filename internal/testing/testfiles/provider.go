package testfiles

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"

	"golang.org/x/image/tiff"
)

// AnimatedGIF returns a w x h GIF of the given number of frames (at least 2), each a different
// colour.
func AnimatedGIF(w, h, frames int) []byte {
	w, h, frames = max(w, 1), max(h, 1), max(frames, 2)
	pal := []color.Color{color.RGBA{R: 0xff, A: 0xff}, color.RGBA{G: 0xff, A: 0xff}, color.RGBA{B: 0xff, A: 0xff}}
	anim := &gif.GIF{}
	for f := range frames {
		img := image.NewPaletted(image.Rect(0, 0, w, h), pal)
		for i := range img.Pix {
			img.Pix[i] = uint8(f % len(pal))
		}
		anim.Image = append(anim.Image, img)
		anim.Delay = append(anim.Delay, 10)
	}
	var buf bytes.Buffer
	if err := gif.EncodeAll(&buf, anim); err != nil {
		panic("testfiles: gif: " + err.Error())
	}
	return buf.Bytes()
}

// TIFF returns a w x h uncompressed TIFF, a format no model API accepts as an image.
func TIFF(w, h int) []byte {
	var buf bytes.Buffer
	if err := tiff.Encode(&buf, gradient(w, h), nil); err != nil {
		panic("testfiles: tiff: " + err.Error())
	}
	return buf.Bytes()
}

// Photo returns a w x h JPEG (quality 92) with the texture of a photograph (smooth gradients
// plus fine noise), so that its size is of the order of a camera's: a 4000 x 3000 Photo is a few
// MB. orientation 2..8 adds an EXIF APP1 segment with that orientation tag; 0 or 1 adds none.
// The left half is red-tinted and the right half blue-tinted, so a rotation can be seen.
func Photo(w, h, orientation int) []byte {
	w, h = max(w, 1), max(h, 1)
	img := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	x := uint32(2463534242)
	for py := range h {
		for px := range w {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			img.Y[py*img.YStride+px] = uint8(float64(px+py)/float64(w+h)*200) + uint8(x%48)
		}
	}
	for cy := range (h + 1) / 2 {
		for cx := range (w + 1) / 2 {
			cr, cb := uint8(200), uint8(60)
			if cx*2 >= w/2 {
				cr, cb = 60, 200
			}
			img.Cr[cy*img.CStride+cx], img.Cb[cy*img.CStride+cx] = cr, cb
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92}); err != nil {
		panic("testfiles: jpeg: " + err.Error())
	}
	b := buf.Bytes()
	if orientation < 2 || orientation > 8 {
		return b
	}
	// APP1: "Exif\0\0" + little-endian TIFF header + IFD0 with one entry, Orientation (SHORT).
	tiffBlock := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, byte(orientation), 0, 0, 0, 0, 0, 0, 0, 0, 0}
	seg := append([]byte("Exif\x00\x00"), tiffBlock...)
	app1 := []byte{0xFF, 0xE1, 0, 0}
	binary.BigEndian.PutUint16(app1[2:], uint16(len(seg)+2))
	out := append([]byte{0xFF, 0xD8}, app1...)
	out = append(out, seg...)
	return append(out, b[2:]...)
}

// DOCX returns a minimal Word document: a ZIP with [Content_Types].xml, the relationships and
// word/document.xml holding one paragraph.
func DOCX() []byte {
	files := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>hello, docx</w:t></w:r></w:p></w:body></w:document>`},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		w, err := zw.Create(f.name)
		if err != nil {
			panic("testfiles: docx: " + err.Error())
		}
		if _, err := w.Write([]byte(f.body)); err != nil {
			panic("testfiles: docx: " + err.Error())
		}
	}
	if err := zw.Close(); err != nil {
		panic("testfiles: docx: " + err.Error())
	}
	return buf.Bytes()
}

// OGG returns one Ogg page holding a Vorbis identification header (44.1 kHz mono): what
// detection reads to call a file Ogg Vorbis audio.
func OGG() []byte {
	ident := make([]byte, 30)
	ident[0] = 1
	copy(ident[1:], "vorbis")
	le := binary.LittleEndian
	ident[11] = 1                   // channels
	le.PutUint32(ident[12:], 44100) // sample rate
	ident[28] = 0xB8                // block sizes
	ident[29] = 1                   // framing
	page := make([]byte, 27, 28+len(ident))
	copy(page, "OggS")
	page[5] = 0x02 // beginning of stream
	le.PutUint32(page[14:], 1)
	page[26] = 1 // one segment
	page = append(page, byte(len(ident)))
	page = append(page, ident...)
	le.PutUint32(page[22:], oggCRC(page))
	return page
}

func oggCRC(b []byte) uint32 {
	var crc uint32
	for _, c := range b {
		crc ^= uint32(c) << 24
		for range 8 {
			if crc&0x80000000 != 0 {
				crc = crc<<1 ^ 0x04C11DB7
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// FLAC returns a FLAC stream header: "fLaC", a STREAMINFO block (44.1 kHz, mono, 16 bit, one
// second of samples) and an empty PADDING block, without audio frames.
func FLAC() []byte {
	info := make([]byte, 34)
	binary.BigEndian.PutUint16(info[0:], 4096) // min block size
	binary.BigEndian.PutUint16(info[2:], 4096) // max block size
	// 20 bits sample rate, 3 bits channels-1, 5 bits bits-per-sample-1, 36 bits total samples.
	const rate, channels, bits, samples = 44100, 1, 16, 44100
	v := uint64(rate)<<44 | uint64(channels-1)<<41 | uint64(bits-1)<<36 | uint64(samples)
	binary.BigEndian.PutUint64(info[10:], v)
	out := []byte("fLaC")
	out = append(out, 0, 0, 0, 34) // type 0 STREAMINFO, length 34
	out = append(out, info...)
	return append(out, 0x81, 0, 0, 0) // last block: empty PADDING
}
