package extract

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"
)

// extractPDF reads the text of every page, checking ctx between pages and every checkEvery
// operators inside one. A PDF with pages but no
// text on any of them sets NoText.
func extractPDF(ctx context.Context, data []byte, c *collector) error {
	c.doc.Unit = UnitPage
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "password") || strings.Contains(msg, "encrypt") {
			return fmt.Errorf("%w: %w", ErrEncrypted, err)
		}
		return unreadable(err)
	}
	c.doc.Total = r.NumPage()
	if c.doc.Total <= 0 {
		return fmt.Errorf("%w: no pages", ErrUnreadable)
	}
	for i := 1; i <= c.doc.Total; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := r.Page(i)
		if p.V.IsNull() {
			return fmt.Errorf("%w: page %d missing", ErrUnreadable, i)
		}
		runs, err := pageRuns(ctx, p)
		if err != nil {
			return err
		}
		c.add(i, "", pageText(runs))
	}
	if c.doc.Chars == 0 && c.doc.Remaining == 0 {
		c.doc.NoText = true
	}
	return nil
}

// pageText lays out the runs of a page in content-stream order, which is reading order for
// the producers measured (docs/extraction.md): a run lower or higher than the last by more than
// half its size starts a new line; a horizontal gap wider than a fifth of it is a space.
// Content order keeps columns apart, where sorting by position would interleave them.
func pageText(runs []run) string {
	var b strings.Builder
	var prev run
	have := false
	for _, r := range runs {
		s := strings.Map(printableRune, r.s)
		if strings.TrimSpace(s) == "" && !strings.Contains(s, " ") {
			continue
		}
		size := r.size
		if size <= 0 {
			size = 10
		}
		if have {
			switch dy := math.Abs(r.y - prev.y); {
			case dy > size/2:
				b.WriteByte('\n')
			case r.x > prev.endX+size/5 || r.x < prev.x-size:
				if !endsInSpace(&b) && !strings.HasPrefix(s, " ") {
					b.WriteByte(' ')
				}
			}
		}
		b.WriteString(s)
		prev, have = r, true
	}
	return tidyLines(b.String())
}

func endsInSpace(b *strings.Builder) bool {
	s := b.String()
	return s != "" && (s[len(s)-1] == ' ' || s[len(s)-1] == '\n')
}

// printableRune drops control characters (other than tab and newline) and the replacement
// character some fonts decode to.
func printableRune(r rune) rune {
	if r == '\t' || r == '\n' {
		return r
	}
	if unicode.IsControl(r) || r == unicode.ReplacementChar || r == 0 {
		return -1
	}
	return r
}

// tidyLines trims trailing spaces and collapses runs of blank lines into one.
func tidyLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if l == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}
