package extract_test

import (
	"context"
	"testing"

	"github.com/agentworks/artifact-worker/extract"
)

// BenchmarkPDF50Pages extracts a 50-page text PDF (testdata/long.pdf, about 3,400 characters a
// page) whole: the time and memory one request with extract_text pays for such a report.
func BenchmarkPDF50Pages(b *testing.B) {
	data := fixture(b, "long.pdf")
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var chars int
	for b.Loop() {
		doc, err := extract.Text(context.Background(), mimePDF, data, extract.Limits{MaxChars: 1 << 30})
		if err != nil || doc.Total != 50 {
			b.Fatalf("%v, %d pages", err, doc.Total)
		}
		chars = doc.Chars
	}
	b.ReportMetric(float64(chars), "chars/op")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/50, "µs/page")
}

// BenchmarkXLSX extracts the two-sheet workbook, for scale against the PDF.
func BenchmarkXLSX(b *testing.B) {
	data := fixture(b, "sheet.xlsx")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := extract.Text(context.Background(), mimeXLSX, data, extract.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}
