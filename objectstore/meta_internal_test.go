package objectstore

import (
	"mime"
	"strings"
	"testing"
	"testing/quick"
	"unicode/utf8"
)

// decodeLikeMinioGo is what minio-go does to X-Amz-Meta-* values it reads: values starting with
// "=?" are RFC 2047 decoded when they decode, others are kept.
func decodeLikeMinioGo(v string) string {
	if strings.HasPrefix(v, "=?") {
		if d, err := new(mime.WordDecoder).DecodeHeader(v); err == nil {
			return d
		}
	}
	return v
}

func checkEncoding(t *testing.T, v string) bool {
	t.Helper()
	enc := encodeMetaValue(v)
	if got := decodeLikeMinioGo(enc); got != v {
		t.Errorf("encode(%q) = %q decodes to %q", v, enc, got)
		return false
	}
	if needsEncoding(enc) && enc != v {
		// An encoded value is ASCII and safe in a header; only our own form starts with "=?".
		for _, w := range strings.Fields(enc) {
			if len(w) > 75 || !strings.HasPrefix(w, "=?utf-8?b?") {
				t.Errorf("encode(%q): bad encoded word %q", v, w)
				return false
			}
		}
	}
	for i := 0; i < len(enc); i++ {
		if enc[i] < ' ' || enc[i] > '~' {
			t.Errorf("encode(%q) = %q is not printable ASCII", v, enc)
			return false
		}
	}
	return true
}

func TestEncodeMetaValue(t *testing.T) {
	tests := []struct{ in, want string }{
		{"report.pdf", "report.pdf"},
		{"my report (v2).pdf", "my report (v2).pdf"},
		{"", ""},
		{"报告 final.pdf", "=?utf-8?b?5oql5ZGKIGZpbmFsLnBkZg==?="},
		{"=?utf-8?b?Zm9v?=", "=?utf-8?b?PT91dGYtOD9iP1ptOXY/PQ==?="},
		{" lead", "=?utf-8?b?IGxlYWQ=?="},
	}
	for _, tc := range tests {
		if got := encodeMetaValue(tc.in); got != tc.want {
			t.Errorf("encodeMetaValue(%q) = %q, want %q", tc.in, got, tc.want)
		}
		checkEncoding(t, tc.in)
	}
}

func TestEncodeMetaValueRoundTrip(t *testing.T) {
	f := func(s string) bool {
		if !utf8.ValidString(s) {
			return true
		}
		return checkEncoding(t, s)
	}
	if err := quick.Check(f, &quick.Config{MaxCount: 2000}); err != nil {
		t.Error(err)
	}
	for _, s := range []string{strings.Repeat("文", 200), strings.Repeat("a", 300) + "é", "tab\tinside", "line\nbreak", "\x7f"} {
		checkEncoding(t, s)
	}
}

func FuzzEncodeMetaValue(f *testing.F) {
	for _, s := range []string{"report.pdf", "报告 final.pdf", "=?utf-8?q?x?=", " x ", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if utf8.ValidString(s) {
			checkEncoding(t, s)
		}
	})
}
