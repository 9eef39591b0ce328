package mediaformat

import (
	"bytes"
	"encoding/binary"
)

// Intact reports whether content in the format named format is whole enough to send to a model
// API: the header parses and the file reaches the end its format marks. A truncated PNG or PDF makes
// the provider reject the whole request; routing describes it as a processing failure instead.
// Formats without a check (zip, bmp, ...) are taken as they are. The checks read headers, chunk or
// segment headers and the last bytes, never decode pixels, and allow data after the end (a motion
// photo's video after the JPEG).
func Intact(format string, content []byte) bool {
	if format == "pdf" {
		// Readers require %%EOF within the last 1024 bytes; allow twice that.
		return bytes.Contains(content[max(len(content)-2048, 0):], []byte("%%EOF"))
	}
	if f := imageFormats[format]; f.intact != nil {
		return f.intact(content)
	}
	return true
}

// webpWhole: the RIFF header ("RIFF", the little-endian size of what follows, "WEBP") and the
// bytes it counts.
func webpWhole(b []byte) bool {
	return len(b) >= 12 && string(b[8:12]) == "WEBP" && int64(binary.LittleEndian.Uint32(b[4:8]))+8 <= int64(len(b))
}

// pngReachesIEND walks the chunks after the signature (length, type, data, CRC) to IEND.
func pngReachesIEND(b []byte) bool {
	for i := 8; i+8 <= len(b); {
		n := int64(binary.BigEndian.Uint32(b[i:]))
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
