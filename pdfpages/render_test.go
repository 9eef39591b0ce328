package pdfpages_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/jpeg"
	"image/png"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/imaging"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/pdfpages"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
)

// claudeLike is what a model reading images up to 1568 px on the long edge takes.
var claudeLike = imaging.Target{Formats: []string{"png", "jpeg", "gif", "webp"}, MaxLongEdge: 1568, MaxPixels: 1_150_000, MaxBytes: 5 << 20}

func render(t *testing.T, data []byte, o pdfpages.Options) (pdfpages.Document, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a cold compile takes seconds
	defer cancel()
	return pdfpagestest.Renderer(t).Render(ctx, data, o)
}

func decode(t *testing.T, p pdfpages.Page) image.Image {
	t.Helper()
	img, format, err := image.Decode(bytes.NewReader(p.Image.Data))
	if err != nil || format != p.Image.Format {
		t.Fatalf("page %d: decode: %v (format %s, said %s)", p.Number, err, format, p.Image.Format)
	}
	b := img.Bounds()
	if b.Dx() != p.Image.Sent.Width || b.Dy() != p.Image.Sent.Height {
		t.Fatalf("page %d: %dx%d, said %dx%d", p.Number, b.Dx(), b.Dy(), p.Image.Sent.Width, p.Image.Sent.Height)
	}
	return img
}

func TestRenderReport(t *testing.T) {
	doc, err := render(t, testfiles.PDFFile("report.pdf"), pdfpages.Options{Target: claudeLike})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Total != 2 || len(doc.Pages) != 2 || len(doc.Left) != 0 {
		t.Fatalf("total %d, pages %d, left %v", doc.Total, len(doc.Pages), doc.Left)
	}
	for i, p := range doc.Pages {
		img := decode(t, p)
		b := img.Bounds()
		// A4 at 150 DPI is 1240 x 1753; the model's 1.15 megapixels make it about 899 x 1271.
		if b.Dy() <= b.Dx() || b.Dx()*b.Dy() > claudeLike.MaxPixels || max(b.Dx(), b.Dy()) > 1568 || b.Dx() < 800 {
			t.Errorf("page %d: %v, want portrait A4 within the model's limits", p.Number, b)
		}
		if p.Number != i+1 || p.Image.Format != "png" {
			t.Errorf("page %d (#%d): format %s, want png in order", p.Number, i, p.Image.Format)
		}
	}
	if !strings.Contains(doc.Pages[0].Text, "Revenue grew by 12 percent") || !strings.Contains(doc.Pages[0].Text, "季度报告") {
		t.Errorf("page 1 text %q", doc.Pages[0].Text)
	}
	if !strings.Contains(doc.Pages[1].Text, "Page two") || strings.Contains(doc.Pages[1].Text, "\r") {
		t.Errorf("page 2 text %q", doc.Pages[1].Text)
	}
}

func TestRenderChartHasNoTextButInk(t *testing.T) {
	doc, err := render(t, testfiles.PDFFile("chart.pdf"), pdfpages.Options{Target: claudeLike})
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Pages[0]
	if p.Text != "" {
		t.Errorf("text %q, want none", p.Text)
	}
	img := decode(t, p)
	// The fourth bar (yellow, x 410..480 pt, y 120..680 pt from the bottom) is drawn.
	b := img.Bounds()
	x, y := b.Dx()*445/595, b.Dy()-b.Dy()*300/842
	r, g, bl, _ := img.At(x, y).RGBA()
	if r>>8 < 200 || g>>8 < 150 || bl>>8 > 80 {
		t.Errorf("pixel at the yellow bar is %d,%d,%d", r>>8, g>>8, bl>>8)
	}
	if r, g, bl, _ := img.At(2, 2).RGBA(); r>>8 != 255 || g>>8 != 255 || bl>>8 != 255 {
		t.Errorf("background is %d,%d,%d, want white", r>>8, g>>8, bl>>8)
	}
}

func TestRenderScanHasNoText(t *testing.T) {
	doc, err := render(t, testfiles.PDFFile("scanned.pdf"), pdfpages.Options{Target: claudeLike})
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Pages[0]
	decode(t, p)
	if p.Text != "" {
		t.Errorf("text %q, want none", p.Text)
	}
	if p.Image.Format != "jpeg" && p.Image.Format != "png" {
		t.Errorf("format %s", p.Image.Format)
	}
}

func TestRenderRotatedPageIsPortrait(t *testing.T) {
	doc, err := render(t, testfiles.PDFFile("rotated.pdf"), pdfpages.Options{Target: claudeLike})
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Pages[0]
	if p.Image.Sent.Height <= p.Image.Sent.Width {
		t.Errorf("rotated page is %dx%d, want portrait", p.Image.Sent.Width, p.Image.Sent.Height)
	}
	if p.Text != "Rotated page" {
		t.Errorf("text %q", p.Text)
	}
}

func TestRenderSelectionAndBudgets(t *testing.T) {
	data := testfiles.PDFFile("pages300.pdf")
	sel, _ := pdfpages.ParsePages("3,250-")
	doc, err := render(t, data, pdfpages.Options{Pages: sel, Target: claudeLike, MaxPages: 5})
	if err != nil {
		t.Fatal(err)
	}
	var got []int
	for _, p := range doc.Pages {
		got = append(got, p.Number)
		if want := "Page " + strconv.Itoa(p.Number); p.Text != want {
			t.Errorf("page %d text %q, want %q", p.Number, p.Text, want)
		}
	}
	if !slices.Equal(got, []int{3, 250, 251, 252, 253}) || doc.Total != 300 {
		t.Errorf("pages %v of %d", got, doc.Total)
	}
	if doc.Left.String() != "254-300" {
		t.Errorf("left %v", doc.Left.String())
	}

	// The byte budget: the first page always, then what fits.
	one := doc.Pages[0].Image.Sent.Bytes + int64(len(doc.Pages[0].Text))
	doc, err = render(t, data, pdfpages.Options{Target: claudeLike, MaxBytes: one*2 + one/2})
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Pages) < 1 || len(doc.Pages) > 3 || doc.Left.String() != strconv.Itoa(len(doc.Pages)+1)+"-300" {
		t.Errorf("%d pages within %d bytes, left %s", len(doc.Pages), one*2+one/2, doc.Left.String())
	}

	// The renderer's own page limit (20 by default) holds without a selection.
	doc, err = render(t, data, pdfpages.Options{Target: claudeLike})
	if err != nil || len(doc.Pages) != pdfpages.DefaultMaxPages || doc.Left.String() != "21-300" {
		t.Errorf("default limit: %d pages, left %s, %v", len(doc.Pages), doc.Left.String(), err)
	}

	// A selection past the end.
	sel, _ = pdfpages.ParsePages("299-400,500")
	doc, err = render(t, data, pdfpages.Options{Pages: sel, Target: claudeLike})
	if err != nil || !doc.Missing || len(doc.Pages) != 2 {
		t.Errorf("past the end: %d pages, missing %v, %v", len(doc.Pages), doc.Missing, err)
	}
}

func TestRenderHostile(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		want error
	}{
		{"encrypted", testfiles.PDFFile("locked.pdf"), pdfpages.ErrEncrypted},
		{"broken", testfiles.PDFFile("broken.pdf"), pdfpages.ErrDamaged},
		{"not a pdf", []byte("hello"), pdfpages.ErrDamaged},
		{"empty", nil, pdfpages.ErrDamaged},
		{"zero pages", testfiles.PDFFile("zero.pdf"), pdfpages.ErrNoPages},
		{"truncated", testfiles.PDFFile("report.pdf")[:4000], nil}, // pdfium rebuilds what it can
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := render(t, tt.data, pdfpages.Options{Target: claudeLike})
			if tt.want == nil {
				if err != nil && !errors.Is(err, pdfpages.ErrDamaged) && !errors.Is(err, pdfpages.ErrNoneRendered) && !errors.Is(err, pdfpages.ErrNoPages) {
					t.Errorf("err %v", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Errorf("err %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRenderBigPageIsFitted(t *testing.T) {
	doc, err := render(t, testfiles.PDFFile("bigpage.pdf"), pdfpages.Options{Target: claudeLike})
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Pages[0]
	if p.Image.Sent.Width != p.Image.Sent.Height || p.Image.Sent.Width*p.Image.Sent.Height > claudeLike.MaxPixels {
		t.Errorf("200 x 200 inch page sent at %dx%d", p.Image.Sent.Width, p.Image.Sent.Height)
	}
}

func TestRenderSelfReferencing(t *testing.T) {
	doc, err := render(t, testfiles.PDFFile("selfref.pdf"), pdfpages.Options{Target: claudeLike})
	// The tree lists itself and one page: the page renders (drawing a form that draws itself
	// stops), the loop is a page that failed.
	if err != nil || len(doc.Pages) != 1 || doc.Pages[0].Text != "Loop" || !slices.Equal(doc.Failed, []int{2}) {
		t.Fatalf("%d of %d pages rendered, failed %v, err %v", len(doc.Pages), doc.Total, doc.Failed, err)
	}
}

func TestRenderTenThousandPages(t *testing.T) {
	data := testfiles.ManyPagesPDF(10_000)
	doc, err := render(t, data, pdfpages.Options{Target: claudeLike})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Total != 10_000 || len(doc.Pages) != pdfpages.DefaultMaxPages || doc.Left.String() != "21-10000" {
		t.Errorf("total %d, pages %d, left %s", doc.Total, len(doc.Pages), doc.Left.String())
	}
}

func TestRenderCanceled(t *testing.T) {
	pdfpagestest.Renderer(t) // compiled or compiling
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := pdfpagestest.Renderer(t).Render(ctx, testfiles.PDFFile("report.pdf"), pdfpages.Options{Target: claudeLike}); !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
}

func TestRenderTimeoutKillsTheInstance(t *testing.T) {
	r, err := pdfpages.New(pdfpages.Config{CacheDir: pdfpagestest.CacheDir(), Instances: 1, Timeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	doc, err := r.Render(ctx, testfiles.ManyPagesPDF(50), pdfpages.Options{Target: claudeLike})
	if !errors.Is(err, pdfpages.ErrNoneRendered) || !doc.TimedOut {
		t.Fatalf("err %v, timed out %v", err, doc.TimedOut)
	}
	// The killed instance is not reused: the only slot is free again for the next document.
	if _, err := r.Render(ctx, testfiles.PDFFile("chart.pdf"), pdfpages.Options{Target: claudeLike}); !errors.Is(err, pdfpages.ErrNoneRendered) {
		t.Errorf("next document: %v", err)
	}
}

func TestPNGIsOpaque(t *testing.T) {
	doc, err := render(t, testfiles.PDFFile("report.pdf"), pdfpages.Options{Target: imaging.Target{Formats: []string{"png"}, MaxLongEdge: 800}})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(doc.Pages[0].Image.Data))
	if err != nil {
		t.Fatal(err)
	}
	if o, ok := img.(interface{ Opaque() bool }); !ok || !o.Opaque() {
		t.Errorf("page image has transparency")
	}
}
