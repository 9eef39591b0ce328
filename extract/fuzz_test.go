package extract_test

import (
	"context"
	"errors"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentworks/artifact-worker/extract"
)

// FuzzText feeds arbitrary bytes to every extractor: Text must return a Document or one of its
// documented errors, never panic, and keep within the character limit.
func FuzzText(f *testing.F) {
	for _, name := range []string{"gs.pdf", "table.pdf", "report.docx", "sheet.xlsx"} {
		f.Add(fixture(f, name))
	}
	mimes := []string{mimePDF, mimeDOCX, mimeXLSX, mimePPTX, mimeODT, mimeODS, mimeODP, "application/epub+zip"}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range mimes {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			doc, err := extract.Text(ctx, m, data, extract.Limits{MaxChars: 500})
			cancel()
			if err != nil {
				if !errors.Is(err, extract.ErrUnreadable) {
					t.Fatalf("%s: undocumented error %v", m, err)
				}
				continue
			}
			n := 0
			for _, p := range doc.Parts {
				n += utf8.RuneCountInString(p.Text)
			}
			if n != doc.Chars || n > 500 {
				t.Fatalf("%s: %d characters kept, Chars %d, limit 500", m, n, doc.Chars)
			}
		}
	})
}
