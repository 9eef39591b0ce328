package rawjson

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"
)

// What encoding/json hides: it replaces invalid UTF-8 and lone surrogate escapes by U+FFFD without
// a word. These functions find them, in JSON that Valid (or encoding/json) has already accepted.

// BadText reports whether a string of the JSON value b, member names included, is not valid
// UTF-8 or holds a lone UTF-16 surrogate escape, and the path (from root: "a.b[2]") of the first
// one. A value that is valid UTF-8 and has no surrogate escape at all is checked in one pass.
func BadText(b []byte, root string) (path string, bad bool) {
	if utf8.Valid(b) && !hasSurrogateEscape(b) {
		return "", false
	}
	_, path, bad = walkText(b, SkipSpace(b, 0), root)
	return path, bad
}

// hasSurrogateEscape reports whether b may hold a \u escape of a surrogate (\uD800-\uDFFF); an
// escaped backslash followed by "ud" is a false positive, which only costs a walk.
func hasSurrogateEscape(b []byte) bool {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(`\u`))
		if j < 0 {
			return false
		}
		i += j + 2
		if i < len(b) && (b[i] == 'd' || b[i] == 'D') {
			return true
		}
	}
}

// errStop ends a walk early.
var errStop = errors.New("rawjson: stop")

func walkText(b []byte, i int, path string) (end int, badPath string, bad bool) {
	var err error
	switch b[i] {
	case '"':
		e := StringEnd(b, i)
		return e, path, !GoodText(b[i+1 : e-1])
	case '{':
		end, err = Members(b, i, func(key []byte, start, _ int) error {
			if !GoodText(key[1 : len(key)-1]) {
				badPath, bad = joinPath(path, "(a member name)"), true
				return errStop
			}
			if _, badPath, bad = walkText(b, start, joinPath(path, Unquote(key))); bad {
				return errStop
			}
			return nil
		})
	case '[':
		end, err = Elems(b, i, func(n, start, _ int) error {
			if _, badPath, bad = walkText(b, start, path+"["+strconv.Itoa(n)+"]"); bad {
				return errStop
			}
			return nil
		})
	default:
		return ValueEnd(b, i), "", false
	}
	if err != nil {
		return end, badPath, bad
	}
	return end, "", false
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// GoodText reports whether the raw contents of a JSON string (between its quotes) are valid UTF-8
// and every \u escape of a surrogate is part of a high-low pair.
func GoodText(s []byte) bool {
	if !utf8.Valid(s) {
		return false
	}
	for i := bytes.IndexByte(s, '\\'); i >= 0 && i+1 < len(s); {
		if s[i+1] != 'u' {
			i = nextEscape(s, i+2)
			continue
		}
		r := hex4(s[i+2 : i+6])
		switch {
		case 0xD800 <= r && r < 0xDC00:
			if i+12 > len(s) || s[i+6] != '\\' || s[i+7] != 'u' {
				return false
			}
			if lo := hex4(s[i+8 : i+12]); lo < 0xDC00 || lo >= 0xE000 {
				return false
			}
			i = nextEscape(s, i+12)
		case 0xDC00 <= r && r < 0xE000:
			return false
		default:
			i = nextEscape(s, i+6)
		}
	}
	return true
}

func nextEscape(s []byte, from int) int {
	if from >= len(s) {
		return -1
	}
	if j := bytes.IndexByte(s[from:], '\\'); j >= 0 {
		return from + j
	}
	return -1
}

func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// TypeName names the JSON type of a raw value, for messages: "a string", "an object", "an array",
// "a boolean", "null", "a number"; "nothing" for no value.
func TypeName(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
