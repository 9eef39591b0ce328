package rawjson_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/internal/rawjson"
)

// validCases are documents on both sides of every rule of the grammar; TestValid and FuzzValid's seed
// corpus check each against encoding/json.
var validCases = []string{
	``, ` `, `{}`, ` { } `, `[]`, `[ ]`, `{"a":1}`, `{"a" : [1, 2.5, -0, 1e5, -1.5E+3, 2e-2]}`, `"x"`, `0`, `-`, `01`, `1.`,
	`1.e3`, `.5`, `1e`, `1e+`, `+1`, `-a`, `00`, `-01`, `1.5.`, `true`, `false`, `null`, `tru`, `nul`, `falsey`, `True`,
	`{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`, `{1:2}`, `{"a":1 "b":2}`, `[1 2]`, `[1}`, `{"a":1]`, `[[[]]]`, `[[[]]`,
	`{} {}`, `{}x`, `[] ]`, `"a\"b"`, `"a\\"`, `"\/\b\f\n\r\t"`, `"\u00e9\uD83D\uDE00"`, `"\u12"`, `"\u12g4"`, `"\x"`, `"\'"`,
	`"a`, `"a\`, "\"\x00\"", "\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"tab\there\"", "\"é\"", "\t\n\r[1]\r\n",
	"\v[]", "\u00a0[]", `"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"aaaaaaaaaaaaaaaaaa"`, "\"aaaaaaaaaaaaaaaaaa\naaaaaaaa\"",
	`"aaaaaaaaaaaaaaaaaaaaaaaaa"`, `"aaaaaaa`, `[{"a":[{"b":{"c":[null,true,false,"d"]}}]}]`, `{"a":{"b":{}},"c":[[],{}]}`,
}

func TestValid(t *testing.T) {
	cases := append([]string{}, validCases...)
	// encoding/json refuses nesting deeper than 10000.
	for _, depth := range []int{64, 65, 10000, 10001} {
		cases = append(cases, strings.Repeat("[", depth)+strings.Repeat("]", depth))
		cases = append(cases, strings.Repeat(`{"a":`, depth)+"1"+strings.Repeat("}", depth))
	}
	for _, in := range cases {
		if got, want := rawjson.Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("Valid(%.80q) = %v, encoding/json says %v", in, got, want)
		}
	}
}

// FuzzValid: Valid agrees with encoding/json's Valid on every input.
func FuzzValid(f *testing.F) {
	for _, s := range validCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := rawjson.Valid(b), json.Valid(b); got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
	})
}
