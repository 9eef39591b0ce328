package mediaformat

import "testing"

func TestNormalizeMIME(t *testing.T) {
	tests := map[string]string{
		"":                         "",
		"image/png":                "image/png",
		" Image/PNG ; charset=x ":  "image/png",
		"image/jpg":                "image/jpeg",
		"image/png; broken":        "image/png",
		"application/octet-stream": "",
		"binary/octet-stream":      "",
		"not a mime":               "",
		"text/":                    "",
		"a/b c":                    "",
		"image/svg+xml":            "image/svg+xml",
		"audio/x-wav":              "audio/wav",
		"application/x-javascript": "text/javascript",
		"*/*":                      "",
	}
	for in, want := range tests {
		if got := NormalizeMIME(in); got != want {
			t.Errorf("NormalizeMIME(%q) = %q, want %q", in, got, want)
		}
	}
}
