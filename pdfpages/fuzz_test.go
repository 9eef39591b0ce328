package pdfpages_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
)

// FuzzRender feeds the renderer arbitrary bytes and page selections: it answers with pages or one
// of its errors, never panics, and every page it returns is within the target. Its seed inputs include
// the hostile shapes: encrypted (locked.pdf), broken, zero pages, a page of 200 x 200 inches
// (bigpage.pdf), a page tree and a form that reference themselves (selfref.pdf), and objects
// nested thousands deep.
//
// Each run opens a fresh module instance (milliseconds), so go test's default of up to 60 s of
// minimizing per new input looked like a stall: scripts/fuzz.sh passes -fuzzminimizetime.
func FuzzRender(f *testing.F) {
	for _, name := range []string{"chart.pdf", "rotated.pdf", "selfref.pdf", "zero.pdf", "broken.pdf", "locked.pdf", "bigpage.pdf"} {
		f.Add(testfiles.PDFFile(name), "")
	}
	f.Add(testfiles.ManyPagesPDF(3), "2-")
	f.Add(nestedPDF(5000), "")
	target := imaging.Target{Formats: []string{"png", "jpeg"}, MaxLongEdge: 512, MaxPixels: 200_000}
	f.Fuzz(func(t *testing.T, data []byte, pages string) {
		sel, err := pdfpages.ParsePages(pages)
		if err != nil {
			if !errors.Is(err, pdfpages.ErrSelection) {
				t.Fatalf("ParsePages: %v", err)
			}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		doc, err := pdfpagestest.Renderer(t).Render(ctx, data, pdfpages.Options{Pages: sel, Target: target, MaxPages: 3})
		switch {
		case err == nil:
		case errors.Is(err, pdfpages.ErrEncrypted), errors.Is(err, pdfpages.ErrDamaged), errors.Is(err, pdfpages.ErrNoPages), errors.Is(err, pdfpages.ErrNoneRendered):
			return
		default:
			t.Fatalf("Render: %v", err)
		}
		if len(doc.Pages) > 3 {
			t.Errorf("%d pages, at most 3", len(doc.Pages))
		}
		for _, p := range doc.Pages {
			if s := p.Image.Sent; s.Width > 512 || s.Height > 512 || s.Width*s.Height > 200_000 {
				t.Errorf("page %d sent at %dx%d", p.Number, s.Width, s.Height)
			}
		}
	})
}

// nestedPDF is one page whose resources hold an array nested depth deep.
func nestedPDF(depth int) []byte {
	return testfiles.BuildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Resources << /Deep " + strings.Repeat("[", depth) + strings.Repeat("]", depth) + " >> >>",
	})
}
