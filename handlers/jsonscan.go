package handlers

import (
	"bytes"
	"strconv"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/internal/rawjson"
)

// The functions in this file walk JSON that encoding/json or rawjson.Valid has already accepted: they
// see what encoding/json hides (it replaces invalid UTF-8 and lone surrogate escapes by U+FFFD
// without a word, and drops members it has no field for). They must never be used on input that
// was not validated.

// member is a top-level member of a JSON object.
type member struct {
	name  string // the key, unescaped
	key   []byte // the raw key, quotes included
	value []byte // the raw value
	at    int    // where value starts in the object
}

// members returns the members of the JSON object b, in order; nil when b is not an object.
func members(b []byte) []member {
	i := rawjson.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil
	}
	var out []member
	for i = rawjson.SkipSpace(b, i+1); i < len(b) && b[i] != '}'; {
		ks := i
		ke := rawjson.StringEnd(b, i)
		i = rawjson.SkipSpace(b, rawjson.SkipSpace(b, ke)+1) // past ':'
		e := rawjson.ValueEnd(b, i)
		out = append(out, member{name: rawjson.Unquote(b[ks:ke]), key: b[ks:ke], value: b[i:e], at: i})
		i = rawjson.SkipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = rawjson.SkipSpace(b, i+1)
		}
	}
	return out
}

// badText reports whether a string of the JSON value b, member names included, is not valid
// UTF-8 or holds a lone UTF-16 surrogate escape, and the path (from root) of the first one. A value
// that is valid UTF-8 and has no surrogate escape at all is checked in one pass.
func badText(b []byte, root string) (path string, bad bool) {
	if utf8.Valid(b) && !hasSurrogateEscape(b) {
		return "", false
	}
	_, path, bad = walkText(b, rawjson.SkipSpace(b, 0), root)
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

func walkText(b []byte, i int, path string) (end int, badPath string, bad bool) {
	switch b[i] {
	case '"':
		e := rawjson.StringEnd(b, i)
		return e, path, !goodText(b[i+1 : e-1])
	case '{':
		for i = rawjson.SkipSpace(b, i+1); b[i] != '}'; {
			ke := rawjson.StringEnd(b, i)
			key := b[i:ke]
			if !goodText(key[1 : len(key)-1]) {
				return ke, joinPath(path, "(a member name)"), true
			}
			i = rawjson.SkipSpace(b, rawjson.SkipSpace(b, ke)+1)
			e, p, bad := walkText(b, i, joinPath(path, rawjson.Unquote(key)))
			if bad {
				return e, p, true
			}
			if i = rawjson.SkipSpace(b, e); b[i] == ',' {
				i = rawjson.SkipSpace(b, i+1)
			}
		}
		return i + 1, "", false
	case '[':
		for n, i := 0, rawjson.SkipSpace(b, i+1); ; n++ {
			if b[i] == ']' {
				return i + 1, "", false
			}
			e, p, bad := walkText(b, i, path+"["+strconv.Itoa(n)+"]")
			if bad {
				return e, p, true
			}
			if i = rawjson.SkipSpace(b, e); b[i] == ',' {
				i = rawjson.SkipSpace(b, i+1)
			}
		}
	}
	return rawjson.ValueEnd(b, i), "", false
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// goodText reports whether the raw contents of a JSON string (between its quotes) are valid UTF-8
// and every \u escape of a surrogate is part of a high-low pair.
func goodText(s []byte) bool {
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

// kindOf names the JSON type of a raw value.
func kindOf(raw []byte) string {
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
