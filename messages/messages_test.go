package messages

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// TestEveryMessageInEveryLocale: no message is missing a locale, and both locales take the same
// arguments in the same order (a Format call fits either).
func TestEveryMessageInEveryLocale(t *testing.T) {
	for id, m := range catalogue {
		if m.zh == "" || m.en == "" {
			t.Errorf("%s: zh %q, en %q: every message needs both", id, m.zh, m.en)
		}
		if zv, ev := verb.FindAllString(m.zh, -1), verb.FindAllString(m.en, -1); !slices.Equal(zv, ev) {
			t.Errorf("%s: verbs zh %v, en %v", id, zv, ev)
		}
	}
}

// TestTypeNamesAreTheDesignTable: the design's friendly-name table has 23 entries.
func TestTypeNamesAreTheDesignTable(t *testing.T) {
	n := 0
	for id := range catalogue {
		if strings.HasPrefix(string(id), "type:") {
			n++
		}
	}
	if n != 23 {
		t.Errorf("%d type names, want the design's 23", n)
	}
}

func TestLocaleIsExplicit(t *testing.T) {
	for _, tt := range []struct{ locale, want string }{
		{"en", "[Cannot read]"}, {" EN ", "[Cannot read]"}, {"zh", "[无法读取]"}, {"", "[无法读取]"}, {"fr", "[无法读取]"},
	} {
		if got := Text(tt.locale, CannotRead); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.locale, got, tt.want)
		}
	}
	if got := Format(contracts.LocaleEN, ToolFailed, "x_code"); got != "The tool call failed (x_code)" {
		t.Errorf("Format = %q", got)
	}
	if _, ok := Lookup("en", ToolError("no_such_code")); ok {
		t.Error("Lookup found a code the catalogue lacks")
	}
	if Text("en", "no.such.id") != "" {
		t.Error("an unknown id gave text")
	}
}
