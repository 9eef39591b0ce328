package rawjson_test

import (
	"testing"

	"github.com/agentworks/artifact-worker/internal/rawjson"
)

func TestValueEnd(t *testing.T) {
	tests := []struct{ in, value string }{
		{`"a\"b\\" , 1`, `"a\"b\\"`},
		{`{"a":[1,"]}",{"b":"}"}]} x`, `{"a":[1,"]}",{"b":"}"}]}`},
		{`[] ]`, `[]`},
		{`-1.5e3,2`, `-1.5e3`},
		{`true}`, `true`},
		{`null ]`, `null`},
	}
	for _, tt := range tests {
		if got := tt.in[:rawjson.ValueEnd([]byte(tt.in), 0)]; got != tt.value {
			t.Errorf("ValueEnd(%q) gives %q, want %q", tt.in, got, tt.value)
		}
	}
}

func TestUnquote(t *testing.T) {
	for raw, want := range map[string]string{`"plain"`: "plain", `"a\/b\u00e9\n"`: "a/bé\n", `""`: ""} {
		if got := rawjson.Unquote([]byte(raw)); got != want {
			t.Errorf("Unquote(%s) = %q, want %q", raw, got, want)
		}
	}
}
