package testfiles

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
)

// pdfFiles are the PDFs of pdf/: report.pdf (two pages of text, a table, Chinese), scanned.pdf (an
// image, no text layer) and locked.pdf (encrypted: a password opens it) are copies of the extraction
// fixtures (extract/testdata/make-fixtures.sh makes them with LibreOffice and ReportLab); the others
// are what the functions below write (TestPDFFilesAreGenerated keeps them equal; -update rewrites).
//
//go:embed pdf/*.pdf
var pdfFiles embed.FS

// PDFFile returns a fresh copy of pdf/name ("report.pdf"); it panics for a name that is not there.
func PDFFile(name string) []byte {
	b, err := pdfFiles.ReadFile("pdf/" + name)
	if err != nil {
		panic("testfiles: " + err.Error())
	}
	return b
}

// GeneratedPDFs names the generated PDFs of pdf/ and their generators.
func GeneratedPDFs() map[string]func() []byte {
	return map[string]func() []byte{
		"chart.pdf":    ChartPDF,
		"rotated.pdf":  RotatedPDF,
		"pages300.pdf": func() []byte { return ManyPagesPDF(300) },
		"bigpage.pdf":  BigPagePDF,
		"selfref.pdf":  SelfRefPDF,
		"zero.pdf":     ZeroPagesPDF,
		"broken.pdf":   BrokenPDF,
	}
}

// BuildPDF writes a PDF 1.4 whose objects are objects (object i+1 is objects[i]; the first is the
// catalog), with a correct cross-reference table.
func BuildPDF(objects []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objects)+1, xref)
	return b.Bytes()
}

// stream is a stream object holding content.
func stream(content string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
}

// ChartPDF is one A4 page with a vector bar chart (axes and four bars) and no text at all.
func ChartPDF() []byte {
	var c strings.Builder
	c.WriteString("2 w 0 0 0 RG 80 120 m 80 720 l S 80 120 m 520 120 l S\n")
	colors := []string{"0.85 0.2 0.2", "0.2 0.6 0.3", "0.2 0.35 0.85", "0.9 0.7 0.1"}
	for i, h := range []int{300, 450, 220, 560} {
		fmt.Fprintf(&c, "%s rg %d 120 70 %d re f\n", colors[i], 110+i*100, h)
	}
	return BuildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << >> >>",
		stream(c.String()),
	})
}

// RotatedPDF is one landscape-drawn page turned by /Rotate 90, with the text "Rotated page".
func RotatedPDF() []byte {
	return BuildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 842 595] /Rotate 90 /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		stream("BT /F1 36 Tf 72 480 Td (Rotated page) Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// ManyPagesPDF is n small pages (200 x 100 points), page i saying "Page i"; a few bytes a page.
func ManyPagesPDF(n int) []byte {
	// 1 catalog, 2 pages, 3 font, then per page: the page and its content.
	objects := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"}
	kids := make([]string, n)
	for i := range n {
		page := len(objects) + 1
		kids[i] = fmt.Sprintf("%d 0 R", page)
		objects = append(objects,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents %d 0 R /Resources << /Font << /F1 3 0 R >> >> >>", page+1),
			stream(fmt.Sprintf("BT /F1 24 Tf 20 40 Td (Page %d) Tj ET", i+1)))
	}
	objects[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n)
	return BuildPDF(objects)
}

// BigPagePDF is one page of 200 x 200 inches (14,400 points, the largest PDF allows) with a circle
// and the text "Big page".
func BigPagePDF() []byte {
	circle := "0 0 1 rg 7200 7200 m 7200 11200 l 11200 11200 l 11200 7200 l f\n"
	return BuildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 14400 14400] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		stream(circle + "BT /F1 1200 Tf 1000 2000 Td (Big page) Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// SelfRefPDF is a page tree whose Pages node lists itself among its kids, next to one real page,
// and a form XObject that draws itself.
func SelfRefPDF() []byte {
	return BuildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> >>",
		stream("BT /F1 24 Tf 20 40 Td (Loop) Tj ET /X Do"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		"<< /Type /XObject /Subtype /Form /BBox [0 0 200 100] /Resources << /XObject << /X 6 0 R >> >> /Length 5 >>\nstream\n/X Do\nendstream",
	})
}

// ZeroPagesPDF is a well-formed document with an empty page tree.
func ZeroPagesPDF() []byte {
	return BuildPDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [] /Count 0 >>",
	})
}

// BrokenPDF is a PDF header followed by bytes that are no PDF objects.
func BrokenPDF() []byte {
	return []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R\nthis is not a PDF any more \x00\x01\x02 endobj trailer <<>>\n")
}
