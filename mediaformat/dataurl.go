package mediaformat

import (
	"bytes"
	"errors"
	"strings"
)

// Why CutDataURL refuses a URL; the texts are what historyimage reports for a media part.
var (
	ErrNotDataURL  = errors.New("not a data URL")
	ErrNoComma     = errors.New("data URL has no comma")
	ErrNotBase64   = errors.New("data URL is not base64")
	ErrNoDataInURL = errors.New("data URL has no data")
)

// CutDataURL splits a data URL, "data:[<mediatype>][;<param>]*;base64,<data>" ("data:" in any
// case), into its media type, as written (the part before the first ';', surrounding space
// trimmed; "" when absent), and its base64 data, a sub-slice of u: nothing is copied or decoded.
// The base64 flag is any parameter that reads "base64" in any case. A data URL without it carries
// percent-encoded text, not media: ErrNotBase64. The other errors: ErrNotDataURL, ErrNoComma,
// ErrNoDataInURL (the data is empty).
func CutDataURL[T ~string | ~[]byte](u T) (mediaType, data T, err error) {
	const scheme = "data:"
	if len(u) < len(scheme) || !equalFold(u[:len(scheme)], scheme) {
		return mediaType, data, ErrNotDataURL
	}
	rest := u[len(scheme):]
	comma := indexByte(rest, ',')
	if comma < 0 {
		return mediaType, data, ErrNoComma
	}
	header, data := rest[:comma], rest[comma+1:]
	base64 := false
	first := true
	for len(header) > 0 || first {
		param := header
		next := T("")
		if k := indexByte(header, ';'); k >= 0 {
			param, next = header[:k], header[k+1:]
		}
		if first {
			mediaType, first = trimSpace(param), false
		} else if equalFold(trimSpace(param), "base64") {
			base64 = true
		}
		header = next
	}
	if !base64 {
		return T(""), T(""), ErrNotBase64
	}
	if len(data) == 0 {
		return T(""), T(""), ErrNoDataInURL
	}
	return mediaType, data, nil
}

func indexByte[T ~string | ~[]byte](s T, c byte) int {
	switch v := any(s).(type) {
	case string:
		return strings.IndexByte(v, c)
	case []byte:
		return bytes.IndexByte(v, c)
	}
	for i := range len(s) {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// equalFold compares s with the lower-case ASCII word w, ignoring ASCII case.
func equalFold[T ~string | ~[]byte](s T, w string) bool {
	if len(s) != len(w) {
		return false
	}
	for i := range len(w) {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// trimSpace is strings.TrimSpace or bytes.TrimSpace.
func trimSpace[T ~string | ~[]byte](s T) T {
	switch v := any(s).(type) {
	case string:
		return T(strings.TrimSpace(v))
	case []byte:
		return T(bytes.TrimSpace(v))
	}
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}
