package historyimage

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"strings"

	"github.com/agentworks/artifact-worker/routing"
)

// parseDataURL splits "data:[<mediatype>][;param]*;base64,<data>" into the base64 data and the
// media type. A data URL without the base64 flag carries percent-encoded text, which is not media
// this package can move: why says what is wrong.
func parseDataURL(u []byte) (data []byte, mime, why string) {
	rest := u[len("data:"):]
	comma := bytes.IndexByte(rest, ',')
	if comma < 0 {
		return nil, "", "data URL has no comma"
	}
	header, data := rest[:comma], rest[comma+1:]
	params := bytes.Split(header, []byte(";"))
	isBase64 := false
	for _, p := range params[1:] {
		if bytes.EqualFold(bytes.TrimSpace(p), []byte("base64")) {
			isBase64 = true
		}
	}
	if !isBase64 {
		return nil, "", "data URL is not base64"
	}
	if len(data) == 0 {
		return nil, "", "data URL has no data"
	}
	return data, string(bytes.TrimSpace(params[0])), ""
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && bytes.EqualFold(b[:len(prefix)], []byte(prefix))
}

// imageInfo is what inspect learns from the decoded bytes.
type imageInfo struct {
	width, height int // 0 when the header could not be read
	// kind and mime are routing.Detect's answer for the bytes alone (the label of the part is not
	// asked): contracts.BinaryImage and "image/png" for a PNG, whatever the part claimed.
	kind, mime string
}

// errBase64 wraps the reason base64 data does not decode.
var errBase64 = errors.New("base64 data does not decode")

// inspect checks that data is standard base64 (padding required; CR and LF ignored, as by
// encoding/base64) by decoding it in small fixed buffers: no decoded copy of the image is ever held.
// On the way it reads the image header (PNG, JPEG, GIF, WebP) for the dimensions and detects the
// type with routing.Detect, the detector tool.get_artifact uses.
func inspect(data []byte) (imageInfo, error) {
	if bytes.IndexByte(data, '\n') < 0 && bytes.IndexByte(data, '\r') < 0 {
		return inspectFlat(data)
	}
	var info imageInfo
	rec := &errRecorder{r: base64.NewDecoder(base64.StdEncoding, bytes.NewReader(data))}
	br := bufio.NewReaderSize(rec, 4096)
	head, _ := br.Peek(sniffLen)
	info.kind, info.mime, info.width, info.height = sniff(head, decodedLen(data), br)
	if _, err := io.Copy(io.Discard, br); err != nil && rec.err == nil {
		rec.err = err
	}
	if rec.err != nil {
		return info, fmt.Errorf("%w: %v", errBase64, rec.err)
	}
	return info, nil
}

// inspectFlat is inspect for base64 on one line, the norm: it decodes the head, then checks the
// rest chunk by chunk with base64.Encoding.Decode, a good deal faster than the streaming decoder.
func inspectFlat(data []byte) (imageInfo, error) {
	var info imageInfo
	bad := func(off int, err error) (imageInfo, error) {
		var ce base64.CorruptInputError
		if errors.As(err, &ce) {
			err = base64.CorruptInputError(int64(off) + int64(ce))
		}
		return info, fmt.Errorf("%w: %v", errBase64, err)
	}
	if len(data)%4 != 0 {
		return bad(0, base64.CorruptInputError(len(data)/4*4))
	}
	if i := bytes.IndexByte(data[:max(len(data)-2, 0)], '='); i >= 0 {
		return bad(0, base64.CorruptInputError(i)) // padding only ends the data
	}
	// The head: what the detector reads, more for a JPEG, whose frame header may follow a
	// large EXIF segment.
	headChars := min(len(data), (sniffLen+2)/3*4)
	if len(data) >= 4 && string(data[:4]) == "/9j/" { // base64 of FF D8 FF
		headChars = min(len(data), jpegHeadLen/3*4)
	}
	head := make([]byte, headChars/4*3)
	n, err := base64.StdEncoding.Decode(head, data[:headChars])
	if err != nil {
		return bad(0, err)
	}
	head = head[:n]
	info.kind, info.mime, info.width, info.height = sniff(head, decodedLen(data), bytes.NewReader(head))
	var buf [flatChunk / 4 * 3]byte
	for off := headChars; off < len(data); off += flatChunk {
		if _, err := base64.StdEncoding.Decode(buf[:], data[off:min(off+flatChunk, len(data))]); err != nil {
			return bad(off, err)
		}
	}
	return info, nil
}

const (
	// flatChunk is how many base64 characters inspectFlat decodes at a time.
	flatChunk = 32 << 10
	// jpegHeadLen is how many decoded bytes of a JPEG are read for its frame header.
	jpegHeadLen = 64 << 10
)

// sniff detects the type of the decoded bytes from head and reads the image's dimensions from r
// (which starts with head).
func sniff(head []byte, size int, r io.Reader) (kind, mime string, w, h int) {
	d := routing.Detect(routing.DetectInput{Head: head[:min(len(head), sniffLen)], Size: int64(size)})
	var cfg image.Config
	var err error = errors.New("unknown format")
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		cfg, err = png.DecodeConfig(r)
	case bytes.HasPrefix(head, []byte("\xff\xd8")):
		cfg, err = jpeg.DecodeConfig(r)
	case bytes.HasPrefix(head, []byte("GIF8")):
		cfg, err = gif.DecodeConfig(r)
	case len(head) >= 30 && string(head[0:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		cfg, err = webpConfig(head)
	}
	if err == nil && cfg.Width > 0 && cfg.Height > 0 {
		w, h = cfg.Width, cfg.Height
	}
	return d.Kind, d.MIME, w, h
}

// sniffLen is how much of the decoded data the type is detected from (the content sniffer reads
// 3 KiB).
const sniffLen = 4096

// decodedLen is the length of the bytes the standard base64 data decodes to (CR and LF ignored).
func decodedLen[T string | []byte](data T) int {
	var newlines int
	switch d := any(data).(type) {
	case string:
		newlines = strings.Count(d, "\n") + strings.Count(d, "\r")
	case []byte:
		newlines = bytes.Count(d, []byte("\n")) + bytes.Count(d, []byte("\r"))
	}
	end := len(data)
	for end > 0 && (data[end-1] == '\n' || data[end-1] == '\r') {
		end--
	}
	pad := 0
	for end > 0 && data[end-1] == '=' {
		end, pad = end-1, pad+1
	}
	return max((len(data)-newlines)/4*3-pad, 0)
}

// errRecorder remembers the first error other than io.EOF of the reader it wraps, so that an error
// swallowed by a header decoder is still seen.
type errRecorder struct {
	r   io.Reader
	err error
}

func (e *errRecorder) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// webpConfig reads the canvas size from the first 30 bytes of a WebP file (VP8X, VP8 or VP8L).
func webpConfig(h []byte) (image.Config, error) {
	switch string(h[12:16]) {
	case "VP8X":
		w := int(h[24]) | int(h[25])<<8 | int(h[26])<<16
		ht := int(h[27]) | int(h[28])<<8 | int(h[29])<<16
		return image.Config{Width: w + 1, Height: ht + 1}, nil
	case "VP8 ":
		if h[23] != 0x9d || h[24] != 0x01 || h[25] != 0x2a {
			return image.Config{}, errors.New("bad VP8 start code")
		}
		w := int(binary.LittleEndian.Uint16(h[26:28]) & 0x3fff)
		ht := int(binary.LittleEndian.Uint16(h[28:30]) & 0x3fff)
		return image.Config{Width: w, Height: ht}, nil
	case "VP8L":
		if h[20] != 0x2f {
			return image.Config{}, errors.New("bad VP8L signature")
		}
		bits := binary.LittleEndian.Uint32(h[21:25])
		return image.Config{Width: int(bits&0x3fff) + 1, Height: int(bits>>14&0x3fff) + 1}, nil
	}
	return image.Config{}, errors.New("unknown WebP chunk")
}
