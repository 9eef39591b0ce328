package historyimage

import (
	"bytes"
	"encoding/json"

	"github.com/agentworks/artifact-worker/internal/rawjson"
)

// rawJSON walks a JSON document that rawjson.Valid has already accepted, by byte offsets, without
// copying or decoding it. It only has to find where values begin and end, so it tracks strings
// and nesting and nothing else; it must never be used on input that was not validated.
type rawJSON []byte

// skipSpace returns the index of the first non-space byte at or after i.
func (b rawJSON) skipSpace(i int) int { return rawjson.SkipSpace(b, i) }

// end returns the index just past the value that starts at i.
func (b rawJSON) end(i int) int { return rawjson.ValueEnd(b, i) }

// endString returns the index just past the string that starts at i (b[i] == '"').
func (b rawJSON) endString(i int) int { return rawjson.StringEnd(b, i) }

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

// member names a member of an object and the span pick records its value in.
type member struct {
	name string
	v    *span
}

// pick sets *m.v, for each m of ms, to the span of the value of the member named m.name of the
// object at i (of the last such member when the name repeats); a name the object lacks leaves its
// span as it was.
func (b rawJSON) pick(i int, ms ...member) {
	_ = b.fields(i, func(key []byte, start, end int) error {
		for _, m := range ms {
			if keyIs(key, m.name) {
				*m.v = span{start, end}
				break
			}
		}
		return nil
	})
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
