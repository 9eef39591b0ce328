package replay

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/mediaformat"
)

// mediaKeys are the object keys whose string values carry base64 media in the wire formats the
// worker reads and writes: file_written's content_base64, Anthropic's source.data, Gemini's
// inline_data.data, Bedrock's bytes, image generations' b64_json. Data URLs are media under any key.
var mediaKeys = map[string]bool{"content_base64": true, "data": true, "bytes": true, "b64_json": true}

// minMedia is the shortest base64 value under a media key that is elided.
const minMedia = 64

// elideMedia returns raw JSON with every media string replaced by a description: data URLs become
// "<media image/png: 1234 bytes, sha256 ...>", base64 under a media key "<media: 1234 bytes, sha256
// ...>" (the decoded bytes' length and SHA-256). Everything else is kept byte for byte, in order.
// raw is returned as is when it holds no media or is not well-formed JSON text.
func elideMedia(raw []byte) []byte {
	var out []byte
	last := 0
	key, afterColon := "", false
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case '"':
			end := stringEnd(raw, i)
			if end < 0 {
				return raw
			}
			j := end
			for j < len(raw) && isSpace(raw[j]) {
				j++
			}
			if j < len(raw) && raw[j] == ':' {
				key = ""
				if end-i < 64 {
					key = string(raw[i+1 : end-1])
				}
				afterColon = false
				i = end
				continue
			}
			k := ""
			if afterColon {
				k = key
			}
			if desc, ok := describeMedia(raw[i:end], k); ok {
				out = append(out, raw[last:i]...)
				out = append(out, desc...)
				last = end
			}
			afterColon = false
			i = end
		case ':':
			afterColon = true
			i++
		case ' ', '\t', '\r', '\n':
			i++
		default:
			afterColon = false
			i++
		}
	}
	if out == nil {
		return raw
	}
	return append(out, raw[last:]...)
}

// stringEnd returns the index after the closing quote of the JSON string starting at raw[start], or
// -1 when it does not end.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// describeMedia returns the quoted description of the JSON string quoted (quotes included) when it
// is media, the value of key ("" for none).
func describeMedia(quoted []byte, key string) ([]byte, bool) {
	if len(quoted) < minMedia {
		return nil, false
	}
	s := string(quoted[1 : len(quoted)-1])
	if strings.IndexByte(s, '\\') >= 0 {
		if err := json.Unmarshal(quoted, &s); err != nil {
			return nil, false
		}
	}
	mime, payload := "", s
	switch m, p, err := mediaformat.CutDataURL(s); {
	case err == nil:
		mime, payload = m, p
	case !errors.Is(err, mediaformat.ErrNotDataURL) || !mediaKeys[key]:
		return nil, false
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err != nil {
		if data, err = base64.RawStdEncoding.DecodeString(payload); err != nil {
			return nil, false
		}
	}
	sum := sha256.Sum256(data)
	if mime != "" && !plainMIME(mime) {
		mime = "?"
	}
	if mime != "" {
		mime = " " + mime
	}
	return fmt.Appendf(nil, `"<media%s: %d bytes, sha256 %s>"`, mime, len(data), hex.EncodeToString(sum[:])), true
}

// plainMIME reports whether m needs no escaping in JSON (a MIME type's characters).
func plainMIME(m string) bool {
	for i := range len(m) {
		c := m[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("/+.-_=; ", c) >= 0) {
			return false
		}
	}
	return true
}
