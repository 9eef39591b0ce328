package rawjson_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/internal/rawjson"
)

// FuzzBadText: the raw scanners never panic on JSON encoding/json accepts, and a body of valid
// UTF-8 without surrogate escapes is always good text.
func FuzzBadText(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"\ud83d\ude00"}`, `{"a":["\udc00"]}`, "{\"a\":\"\xff\"}", `{"\ud800":1}`, `[{"a":[1,"b",{"c":"\\ud800"}]}]`, `"x\ud83d"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		path, bad := rawjson.BadText(b, "")
		_ = rawjson.Object(b)
		if bad && utf8.Valid(b) && !strings.Contains(string(b), `\u`) {
			t.Fatalf("valid UTF-8 without escapes reported bad at %q", path)
		}
		if !bad && !utf8.Valid(b) {
			t.Fatalf("invalid UTF-8 not reported: %q", b)
		}
	})
}
