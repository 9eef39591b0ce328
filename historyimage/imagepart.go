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

// inlineImage is an image part whose data is inline base64.
type inlineImage struct {
	// data is the base64 text exactly as it appears in the part (after JSON unescaping); it usually
	// aliases the request and must not be modified.
	data []byte
	mime string
}

// partFields holds the members of a content part that matter here.
type partFields struct {
	typ, imageURL, source, sourceType, data, mimeType, base64, url, fileID, id span
}

// inlineImagePart classifies the content part at s. It returns ok=true with the image for an image
// part carrying inline base64 data in one of the shapes this package rewrites:
//
//	OpenAI     {"type":"image_url","image_url":{"url":"data:image/png;base64,..."}} (or "image_url":"data:...")
//	Anthropic  {"type":"image","source":{"type":"base64","media_type":"image/png","data":"..."}}
//	LangChain  {"type":"image","source_type":"base64","data":"...","mime_type":"image/png"}
//	LangChain  v1 {"type":"image","base64":"...","mime_type":"image/png"}
//
// Image parts that reference their data elsewhere (http(s) and other URLs, file ids, Anthropic url
// and file sources) and parts of any other type give ok=false. An image part that should carry
// data but does not, or whose data URL is not base64, is an *InvalidContextError at path. The base64
// itself is checked by inspect, not here.
func (b rawJSON) inlineImagePart(s span, path string) (img inlineImage, ok bool, err error) {
	if b.kind(s) != '{' {
		return img, false, nil // e.g. a bare string part: not an image
	}
	var f partFields
	b.pick(s.start, member{"type", &f.typ}, member{"image_url", &f.imageURL}, member{"source", &f.source},
		member{"source_type", &f.sourceType}, member{"data", &f.data}, member{"mime_type", &f.mimeType},
		member{"base64", &f.base64}, member{"url", &f.url}, member{"file_id", &f.fileID}, member{"id", &f.id})
	typ, _ := b.str(f.typ)
	switch typ {
	case "image_url":
		return b.openAIImage(f, path)
	case "image":
		switch {
		case f.source.ok():
			return b.anthropicImage(f.source, path+".source")
		case f.sourceType.ok():
			st, _ := b.str(f.sourceType)
			if st != "base64" {
				return img, false, nil // url, id, ...: data lives elsewhere
			}
			return b.base64Field(f.data, f.mimeType, path, "data")
		case f.base64.ok():
			return b.base64Field(f.base64, f.mimeType, path, "base64")
		case f.url.ok() || f.fileID.ok() || f.id.ok():
			return img, false, nil
		default:
			return img, false, invalid(path + ": image part has no data (no source, source_type, base64, url or file_id)")
		}
	}
	return img, false, nil
}

func (b rawJSON) openAIImage(f partFields, path string) (inlineImage, bool, error) {
	u := f.imageURL
	path += ".image_url"
	if u.ok() && b.kind(u) == '{' {
		var url span
		b.pick(u.start, member{"url", &url})
		u, path = url, path+".url"
	}
	raw, isStr := b.strBytes(u)
	if !isStr || len(raw) == 0 {
		return inlineImage{}, false, invalid(path + ": image part has no url")
	}
	if !hasPrefixFold(raw, "data:") {
		return inlineImage{}, false, nil // http(s) or another reference: left alone
	}
	return parseDataURL(raw, path)
}

func (b rawJSON) anthropicImage(src span, path string) (inlineImage, bool, error) {
	if b.kind(src) != '{' {
		return inlineImage{}, false, invalid(path + ": image source is not an object")
	}
	var typ, data, media span
	b.pick(src.start, member{"type", &typ}, member{"data", &data}, member{"media_type", &media})
	if t, _ := b.str(typ); t != "base64" {
		return inlineImage{}, false, nil // url, file, text: not inline base64
	}
	return b.base64Field(data, media, path, "data")
}

// base64Field reads a bare base64 data field and its mime type field.
func (b rawJSON) base64Field(data, mime span, path, name string) (inlineImage, bool, error) {
	raw, isStr := b.strBytes(data)
	if !isStr || len(raw) == 0 {
		return inlineImage{}, false, invalid(path + ": image part has no " + name)
	}
	m, _ := b.str(mime)
	return inlineImage{data: raw, mime: m}, true, nil
}

// parseDataURL splits "data:[<mediatype>][;param]*;base64,<data>". A data URL without the base64
// flag carries percent-encoded text, which is not an image this package can move.
func parseDataURL(u []byte, path string) (inlineImage, bool, error) {
	rest := u[len("data:"):]
	comma := bytes.IndexByte(rest, ',')
	if comma < 0 {
		return inlineImage{}, false, invalid(path + ": data URL has no comma")
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
		return inlineImage{}, false, invalid(path + ": data URL is not base64")
	}
	if len(data) == 0 {
		return inlineImage{}, false, invalid(path + ": data URL has no data")
	}
	return inlineImage{data: data, mime: string(bytes.TrimSpace(params[0]))}, true, nil
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
// encoding/base64) by streaming it through a decoder into small fixed buffers: no decoded copy of
// the image is ever held. On the way it reads the image header (PNG, JPEG, GIF, WebP) for the
// dimensions and detects the type with routing.Detect, the detector tool.get_artifact uses.
func inspect(data []byte) (imageInfo, error) {
	var info imageInfo
	rec := &errRecorder{r: base64.NewDecoder(base64.StdEncoding, bytes.NewReader(data))}
	br := bufio.NewReaderSize(rec, 4096)
	head, _ := br.Peek(sniffLen)
	d := routing.Detect(routing.DetectInput{Head: head, Size: int64(decodedLen(data))})
	info.kind, info.mime = d.Kind, d.MIME
	var cfg image.Config
	var err error = errors.New("unknown format")
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		cfg, err = png.DecodeConfig(br)
	case bytes.HasPrefix(head, []byte("\xff\xd8")):
		cfg, err = jpeg.DecodeConfig(br)
	case bytes.HasPrefix(head, []byte("GIF8")):
		cfg, err = gif.DecodeConfig(br)
	case len(head) >= 30 && string(head[0:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		cfg, err = webpConfig(head)
	}
	if err == nil && cfg.Width > 0 && cfg.Height > 0 {
		info.width, info.height = cfg.Width, cfg.Height
	}
	if _, err := io.Copy(io.Discard, br); err != nil && rec.err == nil {
		rec.err = err
	}
	if rec.err != nil {
		return info, fmt.Errorf("%w: %v", errBase64, rec.err)
	}
	return info, nil
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
