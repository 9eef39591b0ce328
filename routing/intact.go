package routing

import (
	"bytes"
	byteorder "encoding/binary"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
)

// intact reports whether content in format is whole enough to send to a model API: the header
// parses and the file reaches the end its format marks. A truncated PNG or PDF makes the provider
// reject the whole request; Route describes it as a processing failure instead. Formats without a
// check here are taken as they are. The checks read headers, chunk or segment headers and the last
// bytes, never decode pixels, and allow data after the end (a motion photo's video after the JPEG).
func intact(format string, content []byte) bool {
	switch format {
	case "png":
		return decodesConfig(png.DecodeConfig, content) && pngReachesIEND(content)
	case "jpeg":
		return decodesConfig(jpeg.DecodeConfig, content) && jpegReachesEOI(content)
	case "gif":
		return decodesConfig(gif.DecodeConfig, content) && gifReachesTrailer(content)
	case "webp":
		// RIFF header: "RIFF", little-endian size of what follows, "WEBP".
		return len(content) >= 12 && string(content[8:12]) == "WEBP" &&
			int64(byteorder.LittleEndian.Uint32(content[4:8]))+8 <= int64(len(content))
	case "pdf":
		// Readers require %%EOF within the last 1024 bytes; allow twice that.
		return bytes.Contains(content[max(len(content)-2048, 0):], []byte("%%EOF"))
	}
	return true
}

func decodesConfig(decode func(io.Reader) (image.Config, error), b []byte) bool {
	_, err := decode(bytes.NewReader(b))
	return err == nil
}

// pngReachesIEND walks the chunks after the signature (length, type, data, CRC) to IEND.
func pngReachesIEND(b []byte) bool {
	for i := 8; i+8 <= len(b); {
		n := int64(byteorder.BigEndian.Uint32(b[i:]))
		if string(b[i+4:i+8]) == "IEND" {
			return true
		}
		next := int64(i) + 12 + n
		if next > int64(len(b)) {
			return false
		}
		i = int(next)
	}
	return false
}

// jpegReachesEOI skips the segments before the first scan by their lengths (so an EOI inside an
// EXIF thumbnail does not count), then looks for the EOI marker: in entropy-coded data 0xFF is
// always followed by 0x00 or a marker, so FF D9 is the end of the image.
func jpegReachesEOI(b []byte) bool {
	i := 2 // after SOI
	for i+4 <= len(b) {
		if b[i] != 0xff {
			return false
		}
		switch m := b[i+1]; {
		case m == 0xff: // fill byte
			i++
		case m == 0xda: // start of scan
			return bytes.Contains(b[i:], []byte{0xff, 0xd9})
		case m == 0x01 || m >= 0xd0 && m <= 0xd7: // markers without a length
			i += 2
		default:
			i += 2 + int(byteorder.BigEndian.Uint16(b[i+2:]))
		}
	}
	return false
}

// gifReachesTrailer walks the blocks after the header, logical screen descriptor and global colour
// table (extensions and images, each a run of sub-blocks) to the trailer, 0x3B.
func gifReachesTrailer(b []byte) bool {
	if len(b) < 13 {
		return false
	}
	table := func(flags byte) int {
		if flags&0x80 == 0 {
			return 0
		}
		return 3 << (flags&0x07 + 1)
	}
	i := 13 + table(b[10])
	subBlocks := func(i int) int { // returns the index after the terminating empty sub-block, or -1
		for i < len(b) {
			n := int(b[i])
			i++
			if n == 0 {
				return i
			}
			i += n
		}
		return -1
	}
	for i < len(b) {
		switch b[i] {
		case 0x3b:
			return true
		case 0x21: // extension: introducer, label, sub-blocks
			i = subBlocks(i + 2)
		case 0x2c: // image: descriptor (10 bytes), local colour table, LZW code size, sub-blocks
			if i+10 > len(b) {
				return false
			}
			i = subBlocks(i + 10 + table(b[i+9]) + 1)
		default:
			return false
		}
		if i < 0 {
			return false
		}
	}
	return false
}
