package historyimage

import (
	"bytes"
	"encoding/json"
)

// rawJSON walks a JSON document that json.Valid has already accepted, by byte offsets, without
// copying or decoding it. It only has to find where values begin and end, so it tracks strings
// and nesting and nothing else; it must never be used on input that was not validated.
type rawJSON []byte

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func (b rawJSON) skipSpace(i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// end returns the index just past the value that starts at i.
func (b rawJSON) end(i int) int {
	switch b[i] {
	case '"':
		return b.endString(i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = b.endString(i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	default: // number, true, false, null
		for i < len(b) && !isSpace(b[i]) && b[i] != ',' && b[i] != ']' && b[i] != '}' {
			i++
		}
		return i
	}
}

// endString returns the index just past the string that starts at i (b[i] == '"'). It jumps from
// quote to quote (bytes.IndexByte is vectorized: base64 strings are megabytes long); a quote preceded
// by an odd run of backslashes is escaped.
func (b rawJSON) endString(i int) int {
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

// elems calls fn with the index and the [start, end) span of every element of the array at i.
func (b rawJSON) elems(i int, fn func(n, start, end int) error) error {
	i = b.skipSpace(i + 1)
	for n := 0; i < len(b) && b[i] != ']'; n++ {
		e := b.end(i)
		if err := fn(n, i, e); err != nil {
			return err
		}
		i = b.skipSpace(e)
		if i < len(b) && b[i] == ',' {
			i = b.skipSpace(i + 1)
		}
	}
	return nil
}

// fields calls fn with the raw key (quotes included) and the [start, end) span of the value of every
// member of the object at i.
func (b rawJSON) fields(i int, fn func(key []byte, start, end int) error) error {
	i = b.skipSpace(i + 1)
	for i < len(b) && b[i] != '}' {
		ke := b.endString(i)
		key := b[i:ke]
		i = b.skipSpace(ke)
		i = b.skipSpace(i + 1) // ':'
		e := b.end(i)
		if err := fn(key, i, e); err != nil {
			return err
		}
		i = b.skipSpace(e)
		if i < len(b) && b[i] == ',' {
			i = b.skipSpace(i + 1)
		}
	}
	return nil
}

// keyIs reports whether the raw key (quotes included) is name.
func keyIs(raw []byte, name string) bool {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1:len(raw)-1]) == name
	}
	var s string
	return json.Unmarshal(raw, &s) == nil && s == name
}

// span is a [start, end) range of a value in the document; a zero span (end == 0) means absent.
type span struct{ start, end int }

func (s span) ok() bool { return s.end > 0 }

// kind returns the first byte of the value: '"', '{', '[', 'n', 't', 'f' or a digit or '-'.
func (b rawJSON) kind(s span) byte { return b[s.start] }

// str decodes the string at s; ok is false when the value is not a string. It allocates, so it is
// used for short values (roles, types, mime types) only.
func (b rawJSON) str(s span) (string, bool) {
	if !s.ok() || b[s.start] != '"' {
		return "", false
	}
	raw := b[s.start:s.end]
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// strBytes returns the contents of the string at s. Without escapes, which is the norm for base64
// and data URLs, it is a sub-slice of the document (no copy); with escapes (e.g. "\/"), a decoded
// copy. ok is false when the value is not a string. The result must not be modified.
func (b rawJSON) strBytes(s span) ([]byte, bool) {
	if !s.ok() || b[s.start] != '"' {
		return nil, false
	}
	raw := b[s.start:s.end]
	if bytes.IndexByte(raw, '\\') < 0 {
		return raw[1 : len(raw)-1], true
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return nil, false
	}
	return []byte(v), true
}
