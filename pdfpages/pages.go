package pdfpages

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// MaxSelectionRanges bounds the ranges of one selection ("1,3,5,..."): a request cannot make the
// worker hold an unbounded list.
const MaxSelectionRanges = 100

// ErrSelection is wrapped by ParsePages's errors.
var ErrSelection = errors.New("invalid page selection")

// Range is the pages First..Last (1-based, inclusive).
type Range struct{ First, Last int }

// Selection is a list of page ranges, in the order and with the overlaps the request gave them
// (Pages resolves both). The zero value (nil) selects every page.
type Selection []Range

// ParsePages reads a selection like "1-3,7" or "10-" (page 10 to the end): comma-separated pages
// and ranges, 1-based, spaces ignored. "" selects every page. Errors wrap ErrSelection and say
// what is wrong ("0" is not a page, a range that runs backwards, a word).
func ParsePages(s string) (Selection, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, nil
	}
	bad := func(format string, args ...any) (Selection, error) {
		return nil, fmt.Errorf("%w: %s", ErrSelection, fmt.Sprintf(format, args...))
	}
	parts := strings.Split(s, ",")
	if len(parts) > MaxSelectionRanges {
		return bad("%d ranges, at most %d", len(parts), MaxSelectionRanges)
	}
	sel := make(Selection, 0, len(parts))
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return bad("an empty entry in %q (write pages like \"1-3,7\")", s)
		}
		first, last, isRange := strings.Cut(p, "-")
		a, err := pageNumber(first)
		if err != nil {
			return bad("%q: %v", p, err)
		}
		b := a
		switch {
		case isRange && strings.TrimSpace(last) == "":
			b = 0 // to the end
		case isRange:
			if b, err = pageNumber(last); err != nil {
				return bad("%q: %v", p, err)
			}
			if b < a {
				return bad("%q runs backwards (write %d-%d)", p, b, a)
			}
		}
		sel = append(sel, Range{First: a, Last: b})
	}
	return sel, nil
}

// maxPageNumber is larger than any real document's page count (pdfium's own limit is lower).
const maxPageNumber = 10_000_000

func pageNumber(s string) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a page number", s)
	case n < 1:
		return 0, fmt.Errorf("%d is not a page number (pages start at 1)", n)
	case n > maxPageNumber:
		return 0, fmt.Errorf("%d is past any document's end", n)
	}
	return n, nil
}

// Ranges are the selected pages of a document of total pages: ascending, merged, without repeats,
// pages past the end dropped (Missing tells). A nil selection is every page. It costs the number of
// ranges, not of pages: a document may claim billions.
func (s Selection) Ranges(total int) Ranges {
	if total <= 0 {
		return nil
	}
	var rs Ranges
	for _, r := range s.ranges(total) {
		r.Last = min(r.Last, total)
		if r.First <= r.Last {
			rs = append(rs, r)
		}
	}
	slices.SortFunc(rs, func(a, b Range) int { return cmp.Compare(a.First, b.First) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.First <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// Missing reports whether the selection names pages past a document of total pages.
func (s Selection) Missing(total int) bool {
	for _, r := range s {
		if r.First > total {
			return true
		}
	}
	return false
}

// ranges is s with open ends resolved; nil is the whole document.
func (s Selection) ranges(total int) []Range {
	if s == nil {
		return []Range{{1, total}}
	}
	out := make([]Range, len(s))
	for i, r := range s {
		if r.Last == 0 {
			r.Last = total
		}
		out[i] = r
	}
	return out
}

// Ranges are ascending, disjoint page ranges (Selection.Ranges).
type Ranges []Range

// Count is the number of pages.
func (rs Ranges) Count() int {
	n := 0
	for _, r := range rs {
		n += r.Last - r.First + 1
	}
	return n
}

// From is the part of rs from page p on.
func (rs Ranges) From(p int) Ranges {
	var out Ranges
	for _, r := range rs {
		switch {
		case r.Last < p:
		case r.First >= p:
			out = append(out, r)
		default:
			out = append(out, Range{p, r.Last})
		}
	}
	return out
}

// String writes the ranges as ParsePages reads them: "1-3,7,9-10".
func (rs Ranges) String() string { return Selection(rs).String() }

// String writes the selection as ParsePages reads it.
func (s Selection) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		switch {
		case r.Last == 0:
			parts[i] = strconv.Itoa(r.First) + "-"
		case r.First == r.Last:
			parts[i] = strconv.Itoa(r.First)
		default:
			parts[i] = strconv.Itoa(r.First) + "-" + strconv.Itoa(r.Last)
		}
	}
	return strings.Join(parts, ",")
}
