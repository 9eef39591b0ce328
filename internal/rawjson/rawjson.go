// Package rawjson is the one home of the worker's raw JSON walking: it reads request bodies and
// chat contexts that Valid (or encoding/json) has already accepted, by byte offsets, without
// decoding or copying them: where values begin and end (ValueEnd, StringEnd), the members of an
// object and the elements of an array (Members, Elems, Object), the contents of strings (Unquote,
// String, StringBytes, KeyIs), and what encoding/json hides: invalid UTF-8 and lone surrogate
// escapes, which it replaces by U+FFFD without a word (BadText, GoodText). The walkers track
// strings and nesting and nothing else, so they must never be used on input that was not
// validated. Valid is encoding/json's check in one fast pass, for megabyte documents.
//
// historyimage uses it to rewrite the media parts of a context in place; handlers uses it to see
// what encoding/json hides (invalid UTF-8, members it has no field for).
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

// Elems calls fn with the index and the [start, end) span of every element of the array at i
// (b[i] == '['), in order, and returns the index just past the array. An error from fn stops the
// walk: Elems returns it with the index where the walk stopped.
func Elems(b []byte, i int, fn func(n, start, end int) error) (int, error) {
	return walk(b, i, false, func(n int, _ []byte, start, end int) error { return fn(n, start, end) })
}

// Members calls fn with the raw key (quotes included) and the [start, end) span of the value of
// every member of the object at i (b[i] == '{'), in order, and returns the index just past the
// object. An error from fn stops the walk: Members returns it with the index where the walk
// stopped.
func Members(b []byte, i int, fn func(key []byte, start, end int) error) (int, error) {
	return walk(b, i, true, func(_ int, key []byte, start, end int) error { return fn(key, start, end) })
}

// walk is Elems, or Members when object is set (then each value has a key).
func walk(b []byte, i int, object bool, fn func(n int, key []byte, start, end int) error) (int, error) {
	closing := byte(']')
	if object {
		closing = '}'
	}
	i = SkipSpace(b, i+1)
	for n := 0; i < len(b) && b[i] != closing; n++ {
		var key []byte
		if object {
			ke := StringEnd(b, i)
			key = b[i:ke]
			i = SkipSpace(b, SkipSpace(b, ke)+1) // past ':'
		}
		e := ValueEnd(b, i)
		if err := fn(n, key, i, e); err != nil {
			return e, err
		}
		i = SkipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = SkipSpace(b, i+1)
		}
	}
	return min(i+1, len(b)), nil
}

// Member is a member of a JSON object.
type Member struct {
	Name  string // the key, unescaped
	Key   []byte // the raw key, quotes included
	Value []byte // the raw value
	At    int    // where Value starts in the object
}

// Object returns the members of the JSON object b, in order; nil when b is not an object.
func Object(b []byte) []Member {
	i := SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	var out []Member
	_, _ = Members(b, i, func(key []byte, start, end int) error {
		out = append(out, Member{Name: Unquote(key), Key: key, Value: b[start:end], At: start})
		return nil
	})
	return out
}

// KeyIs reports whether the raw key (quotes included) is name, without allocating for a key
// without escapes.
func KeyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:len(raw)-1]) == name
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

// String decodes the raw value raw when it is a string; ok is false for any other value. It
// allocates: for short values (roles, types, MIME types).
func String(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// StringBytes returns the contents of the raw string value raw; ok is false for any other value.
// Without escapes, the norm for base64 and data URLs, it is a sub-slice of raw (no copy); with
// escapes (e.g. "\/"), a decoded copy. The result must not be modified.
func StringBytes(raw []byte) ([]byte, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return nil, false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return []byte(v), true
}
