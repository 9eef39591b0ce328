package historyimage

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentworks/artifact-worker/mediaformat"
	"github.com/agentworks/artifact-worker/routing"
)

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
// On the way it reads the image header (PNG, JPEG, GIF, WebP: mediaformat.ReadHeader) for the dimensions and detects the
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
	_, w, h, _ = mediaformat.ReadHeader(head, r)
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
