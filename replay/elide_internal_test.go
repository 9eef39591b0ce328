package replay

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
)

func TestElideMedia(t *testing.T) {
	png := []byte(strings.Repeat("\x89PNG image bytes ", 20))
	b64 := base64.StdEncoding.EncodeToString(png)
	sum := sha256.Sum256(png)
	digest := hex.EncodeToString(sum[:])
	media := `"<media: 340 bytes, sha256 ` + digest + `>"`
	url := `"<media image/png: 340 bytes, sha256 ` + digest + `>"`
	long := strings.Repeat("abcd", 40) // base64 alphabet, but not under a media key
	tests := []struct{ name, in, want string }{
		{"data URL anywhere", `{"image_url":{"url":"data:image/png;base64,` + b64 + `"}}`, `{"image_url":{"url":` + url + `}}`},
		{"escaped slashes", `{"url":"data:image\/png;base64,` + strings.ReplaceAll(b64, "/", `\/`) + `"}`, `{"url":` + url + `}`},
		{"anthropic source.data", `{"source":{"type":"base64","media_type":"image/png","data":"` + b64 + `"}}`, `{"source":{"type":"base64","media_type":"image/png","data":` + media + `}}`},
		{"file_written content_base64, spaced", `{"content_base64" : "` + b64 + `", "path":"a.png"}`, `{"content_base64" : ` + media + `, "path":"a.png"}`},
		{"order and text kept", `{"z":1,"text":"` + long + `","a":[true,null]}`, `{"z":1,"text":"` + long + `","a":[true,null]}`},
		{"short data kept", `{"data":"aGVsbG8="}`, `{"data":"aGVsbG8="}`},
		{"not base64 under a media key", `{"data":"` + strings.Repeat("not base64! ", 10) + `"}`, `{"data":"` + strings.Repeat("not base64! ", 10) + `"}`},
		{"a key named like media is not elided", `{"` + b64[:40] + `":1}`, `{"` + b64[:40] + `":1}`},
		{"array of data URLs", `["data:image/png;base64,` + b64 + `","data:image/png;base64,` + b64 + `"]`, `[` + url + `,` + url + `]`},
		{"unterminated string", `{"data":"` + b64, `{"data":"` + b64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(elideMedia([]byte(tt.in)))
			if got != tt.want {
				t.Fatalf("got  %s\nwant %s", got, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !json.Valid([]byte(got)) {
				t.Fatalf("valid JSON became invalid: %s", got)
			}
		})
	}
}

func FuzzElideMedia(f *testing.F) {
	f.Add([]byte(`{"data":"` + base64.StdEncoding.EncodeToString(make([]byte, 100)) + `","x":"data:a/b;base64,AAAA"}`))
	f.Add([]byte(`["\"", {"a":"\\"}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out := elideMedia(in)
		// Valid JSON stays valid, with the same shape: the same number of top-level tokens' kinds.
		if json.Valid(in) {
			if !json.Valid(out) {
				t.Fatalf("valid JSON became invalid:\n in %q\nout %q", in, out)
			}
			var a, b any
			_ = json.Unmarshal(in, &a)
			_ = json.Unmarshal(out, &b)
			if kind(a) != kind(b) {
				t.Fatalf("shape changed: %T -> %T", a, b)
			}
		}
		// Eliding is idempotent and never grows a value that had nothing to elide.
		if again := elideMedia(out); string(again) != string(out) {
			t.Fatalf("not idempotent:\n%q\n%q", out, again)
		}
		if !strings.Contains(string(out), "<media") && string(out) != string(in) {
			t.Fatalf("changed without eliding:\n in %q\nout %q", in, out)
		}
	})
}

func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	default:
		return "scalar"
	}
}
