package objectstore

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Metadata keys of the storage contract.
const (
	// MetaFilename is the user metadata key holding an artifact's file name.
	MetaFilename = "filename"
)

// normalizeMeta lower-cases metadata keys and checks that they are HTTP header tokens (S3 sends
// them as "X-Amz-Meta-{key}" headers) and that values are UTF-8.
func normalizeMeta(meta map[string]string) (map[string]string, error) {
	if len(meta) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(meta))
	for k, v := range meta {
		lk := strings.ToLower(k)
		if lk == "" || strings.IndexFunc(lk, func(r rune) bool { return !isTokenChar(r) }) >= 0 {
			return nil, fmt.Errorf("metadata key %q: not an HTTP header token", k)
		}
		if !utf8.ValidString(v) {
			return nil, fmt.Errorf("metadata %q: value is not valid UTF-8", k)
		}
		if _, dup := out[lk]; dup {
			return nil, fmt.Errorf("metadata key %q given twice (keys are case-insensitive)", lk)
		}
		out[lk] = v
	}
	return out, nil
}

func isTokenChar(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || strings.ContainsRune("!#$%&'*+-.^_`|~", r))
}

// encodeMetaValue makes a metadata value safe for an HTTP header: values that are plain
// printable ASCII (without leading or trailing blanks and without "=?") are kept; every other
// value becomes RFC 2047 "B" encoded words of UTF-8, each at most 75 characters, separated by
// spaces. mime.WordDecoder.DecodeHeader (used by minio-go when it reads metadata) inverts it.
func encodeMetaValue(v string) string {
	if !needsEncoding(v) {
		return v
	}
	const maxChunk = 45 // 45 bytes -> 60 base64 characters + 12 of "=?utf-8?b??=" = 72
	var b strings.Builder
	for len(v) > 0 {
		n := 0
		for n < len(v) {
			_, size := utf8.DecodeRuneInString(v[n:])
			if n+size > maxChunk {
				break
			}
			n += size
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("=?utf-8?b?")
		b.WriteString(base64.StdEncoding.EncodeToString([]byte(v[:n])))
		b.WriteString("?=")
		v = v[n:]
	}
	return b.String()
}

func needsEncoding(v string) bool {
	if v == "" {
		return false
	}
	if strings.Contains(v, "=?") || v[0] == ' ' || v[0] == '\t' || v[len(v)-1] == ' ' || v[len(v)-1] == '\t' {
		return true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' || c > '~' {
			return true
		}
	}
	return false
}
