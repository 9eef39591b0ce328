package historyimage

import "github.com/agentworks/artifact-worker/internal/rawjson"

// rawJSON is a context that rawjson.Valid has already accepted, walked by [start, end) spans with
// rawjson's walkers, without copying or decoding it; it must never hold input that was not
// validated.
type rawJSON []byte

// skipSpace returns the index of the first non-space byte at or after i.
func (b rawJSON) skipSpace(i int) int { return rawjson.SkipSpace(b, i) }

// elems calls fn with the index and the [start, end) span of every element of the array at i.
func (b rawJSON) elems(i int, fn func(n, start, end int) error) error {
	_, err := rawjson.Elems(b, i, fn)
	return err
}

// fields calls fn with the raw key (quotes included) and the [start, end) span of the value of every
// member of the object at i.
func (b rawJSON) fields(i int, fn func(key []byte, start, end int) error) error {
	_, err := rawjson.Members(b, i, fn)
	return err
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
func keyIs(raw []byte, name string) bool { return rawjson.KeyIs(raw, name) }

// span is a [start, end) range of a value in the document; a zero span (end == 0) means absent.
type span struct{ start, end int }

func (s span) ok() bool { return s.end > 0 }

// kind returns the first byte of the value: '"', '{', '[', 'n', 't', 'f' or a digit or '-'.
func (b rawJSON) kind(s span) byte { return b[s.start] }

// str decodes the string at s; ok is false when the value is not a string. It allocates, so it is
// used for short values (roles, types, mime types) only.
func (b rawJSON) str(s span) (string, bool) {
	if !s.ok() {
		return "", false
	}
	return rawjson.String(b[s.start:s.end])
}

// strBytes returns the contents of the string at s. Without escapes, which is the norm for base64
// and data URLs, it is a sub-slice of the document (no copy); with escapes (e.g. "\/"), a decoded
// copy. ok is false when the value is not a string. The result must not be modified.
func (b rawJSON) strBytes(s span) ([]byte, bool) {
	if !s.ok() {
		return nil, false
	}
	return rawjson.StringBytes(b[s.start:s.end])
}
