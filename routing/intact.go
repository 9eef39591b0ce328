package routing

import (
	"bytes"
	le "encoding/binary"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
)

// intact reports whether content in format is whole enough to send to a model API: the header
// parses and the end is where the format puts it. A truncated PNG or PDF makes the provider reject
// the whole request; Route describes it as a processing failure instead. Formats without a check
// here are taken as they are. The checks read the header and the last bytes only.
func intact(format string, content []byte) bool {
	tail := func(n int) []byte { return content[max(len(content)-n, 0):] }
	switch format {
	case "png":
		return decodesConfig(png.DecodeConfig, content) && bytes.Contains(tail(64), []byte("IEND"))
	case "jpeg":
		return decodesConfig(jpeg.DecodeConfig, content) && bytes.Contains(tail(4096), []byte{0xff, 0xd9})
	case "gif":
		return decodesConfig(gif.DecodeConfig, content) && bytes.IndexByte(tail(64), 0x3b) >= 0
	case "webp":
		// RIFF header: "RIFF", little-endian size of what follows, "WEBP".
		return len(content) >= 12 && string(content[8:12]) == "WEBP" &&
			int64(le.LittleEndian.Uint32(content[4:8]))+8 <= int64(len(content))
	case "pdf":
		return bytes.Contains(tail(2048), []byte("%%EOF"))
	}
	return true
}

func decodesConfig(decode func(io.Reader) (image.Config, error), b []byte) bool {
	_, err := decode(bytes.NewReader(b))
	return err == nil
}
