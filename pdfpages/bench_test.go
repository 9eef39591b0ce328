package pdfpages_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
)

// pngOnly draws a page at 150 DPI with no fitting: the pixel size pdftoppm -r 150 gives.
var pngOnly = imaging.Target{Formats: []string{"png"}}

// longPDF is the extraction fixtures' 50-page ReportLab document (text on every page).
func longPDF(b *testing.B) string {
	b.Helper()
	p, err := filepath.Abs("../extract/testdata/long.pdf")
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkPage: one page drawn at 150 DPI and encoded as PNG, with its text layer, from a fresh
// module instance (what a one-page request costs once the module is compiled).
func BenchmarkPage(b *testing.B) {
	for _, name := range []string{"report.pdf", "scanned.pdf", "chart.pdf"} {
		data := testfiles.PDFFile(name)
		b.Run(name, func(b *testing.B) {
			r := pdfpagestest.Renderer(b)
			if err := r.Wait(context.Background()); err != nil {
				b.Fatal(err)
			}
			sel, _ := pdfpages.ParsePages("1")
			cpu := cpuTime()
			for b.Loop() {
				if _, err := r.Render(context.Background(), data, pdfpages.Options{Pages: sel, Target: pngOnly}); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, cpu)
			drawnSize(b, data, pngOnly)
		})
	}
}

// BenchmarkPdftoppmPage is BenchmarkPage by pdftoppm -png (poppler-utils) at the pixel size
// BenchmarkPage draws (-scale-to-x, -scale-to-y), the anchor the renderer is compared with; skipped
// when pdftoppm is not installed (scripts/install-poppler.sh).
func BenchmarkPdftoppmPage(b *testing.B) {
	for _, name := range []string{"report.pdf", "scanned.pdf", "chart.pdf"} {
		b.Run(name, func(b *testing.B) {
			data := testfiles.PDFFile(name)
			in := filepath.Join(b.TempDir(), name)
			if err := os.WriteFile(in, data, 0o644); err != nil {
				b.Fatal(err)
			}
			w, h := drawnSize(b, data, pngOnly)
			pdftoppm(b, in, 1, 1, w, h)
		})
	}
}

// drawnSize is the pixel size the renderer draws page 1 of data at for target t.
func drawnSize(b *testing.B, data []byte, t imaging.Target) (int, int) {
	b.Helper()
	sel, _ := pdfpages.ParsePages("1")
	doc, err := pdfpagestest.Renderer(b).Render(context.Background(), data, pdfpages.Options{Pages: sel, Target: t})
	if err != nil {
		b.Fatal(err)
	}
	s := doc.Pages[0].Image.Sent
	b.ReportMetric(float64(s.Width*s.Height)/1e6, "MP/page")
	return s.Width, s.Height
}

// Benchmark20Pages: pages 1-20 of a 50-page document fitted to a model reading 1568 px (what a
// get_artifact of it for such a model draws), per document.
func Benchmark20Pages(b *testing.B) {
	data, err := os.ReadFile(longPDF(b))
	if err != nil {
		b.Fatal(err)
	}
	r := pdfpagestest.Renderer(b)
	if err := r.Wait(context.Background()); err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime()
	for b.Loop() {
		doc, err := r.Render(context.Background(), data, pdfpages.Options{Target: claudeLike})
		if err != nil || len(doc.Pages) != 20 {
			b.Fatalf("%d pages, %v", len(doc.Pages), err)
		}
	}
	reportCPU(b, cpu)
	drawnSize(b, data, claudeLike)
}

// BenchmarkPdftoppm20Pages is Benchmark20Pages by pdftoppm -png -f 1 -l 20 at the pixel size
// Benchmark20Pages draws (every page of the document is A4).
func BenchmarkPdftoppm20Pages(b *testing.B) {
	data, err := os.ReadFile(longPDF(b))
	if err != nil {
		b.Fatal(err)
	}
	w, h := drawnSize(b, data, claudeLike)
	pdftoppm(b, longPDF(b), 1, 20, w, h)
}

// pdftoppm runs pdftoppm on pages first..last of in, drawn at w x h pixels, as PNG.
func pdftoppm(b *testing.B, in string, first, last, w, h int) {
	b.Helper()
	cpu := cpuTime()
	defer reportCPU(b, cpu)
	for b.Loop() {
		pdfpagestest.Pdftoppm(b, in, first, last, w, h)
	}
}

// reportCPU reports the CPU milliseconds per operation since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
