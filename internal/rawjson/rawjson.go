// Package rawjson walks JSON that Valid (or encoding/json) has already accepted, by byte offsets,
// without decoding or copying it: where values begin and end, and the contents of strings. The
// walkers track strings and nesting and nothing else, so they must never be used on input that was
// not validated. Valid is encoding/json's check in one fast pass, for megabyte documents.
//
// historyimage uses it to rewrite image parts of a context in place; handlers uses it to see what
// encoding/json hides (invalid UTF-8 it replaces by U+FFFD, members it has no field for).
package rawjson

import (
	"bytes"
	"encoding/json"
)

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// StringEnd returns the index just past the string that starts at i (b[i] == '"'). It jumps from
// quote to quote (bytes.IndexByte is vectorized: base64 strings are megabytes long); a quote preceded
// by an odd run of backslashes is escaped.
func StringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		q := j + k
		n := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// ValueEnd returns the index just past the value that starts at i.
func ValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = StringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(b) && !IsSpace(b[i]) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
			i++
		}
		return i
	}
}

// Unquote decodes the raw JSON string raw (quotes included); without escapes, without decoding.
func Unquote(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	_ = json.Unmarshal(raw, &s)
	return s
}
