package pdfpages_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/routing"
)

func TestParsePages(t *testing.T) {
	tests := []struct {
		in    string
		total int
		want  []int
	}{
		{"", 4, []int{1, 2, 3, 4}},
		{"1-3,7", 9, []int{1, 2, 3, 7}},
		{" 7 , 1-2 ", 9, []int{1, 2, 7}},
		{"2-4,3-5", 9, []int{2, 3, 4, 5}},
		{"8-", 10, []int{8, 9, 10}},
		{"3,12-20", 5, []int{3}},
	}
	for _, tt := range tests {
		sel, err := pdfpages.ParsePages(tt.in)
		if err != nil {
			t.Fatalf("ParsePages(%q): %v", tt.in, err)
		}
		if got := pages(sel.Ranges(tt.total)); !slices.Equal(got, tt.want) {
			t.Errorf("ParsePages(%q).Pages(%d) = %v, want %v", tt.in, tt.total, got, tt.want)
		}
	}
}

func TestParsePagesErrors(t *testing.T) {
	tests := []struct{ in, says string }{
		{"0", "pages start at 1"},
		{"3-1", "runs backwards (write 1-3)"},
		{"a", `"a" is not a page number`},
		{"1,,2", "an empty entry"},
		{"-3", `"" is not a page number`},
		{"1-2-3", `"2-3" is not a page number`},
		{strings.Repeat("1,", 100) + "1", "101 ranges, at most 100"},
		{"99999999999", "is past any document's end"},
	}
	for _, tt := range tests {
		_, err := pdfpages.ParsePages(tt.in)
		if !errors.Is(err, pdfpages.ErrSelection) || !strings.Contains(err.Error(), tt.says) {
			t.Errorf("ParsePages(%q) = %v, want ErrSelection saying %q", tt.in, err, tt.says)
		}
	}
}

func TestCompact(t *testing.T) {
	if got := routing.CompactPages([]int{1, 2, 3, 7, 9, 10}); got != "1-3,7,9-10" {
		t.Errorf("CompactPages = %q", got)
	}
	sel, _ := pdfpages.ParsePages("1-3,7,9-10")
	if got := sel.Ranges(12).String(); got != "1-3,7,9-10" {
		t.Errorf("round trip = %q", got)
	}
}

func TestConfigValidate(t *testing.T) {
	c := pdfpages.Config{MaxPages: 5000, Timeout: -1}
	c.SetDefaults()
	err := c.Validate()
	for _, name := range []string{"PDF_MAX_PAGES", "RENDER_TIMEOUT"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("Validate() = %v, want it to name %s", err, name)
		}
	}
	var ok pdfpages.Config
	ok.SetDefaults()
	if err := ok.Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

func pages(rs pdfpages.Ranges) []int {
	var out []int
	for _, r := range rs {
		for p := r.First; p <= r.Last; p++ {
			out = append(out, p)
		}
	}
	return out
}

func TestRangesOfAHugeDocument(t *testing.T) {
	sel, _ := pdfpages.ParsePages("5-,1-2,3")
	rs := sel.Ranges(2_000_000_000)
	if rs.String() != "1-3,5-2000000000" || rs.Count() != 1_999_999_999 || rs.From(21).String() != "21-2000000000" {
		t.Errorf("ranges %s, count %d", rs, rs.Count())
	}
}
