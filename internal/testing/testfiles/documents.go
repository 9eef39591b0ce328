package testfiles

import (
	"archive/zip"
	"bytes"
	"fmt"
)

// PDF returns a minimal one-page PDF 1.4 with the text "Hello" and a correct xref table. Its second
// line is the customary binary comment, so, like real PDFs, it is not valid UTF-8.
func PDF() []byte { return PDFPage("BT /F1 24 Tf 20 40 Td (Hello) Tj ET") }

// PDFPage returns a one-page PDF 1.4 whose page draws content (a content stream using the font
// /F1, Helvetica), with a correct xref table and the customary binary comment on its second line.
func PDFPage(content string) []byte {
	objects := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
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

// ZIP returns a ZIP archive holding one file, hello.txt.
func ZIP() []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("hello.txt")
	if err != nil {
		panic("testfiles: zip: " + err.Error()) // in-memory writes cannot fail
	}
	if _, err := w.Write([]byte("hello, zip\n")); err != nil {
		panic("testfiles: zip: " + err.Error())
	}
	if err := zw.Close(); err != nil {
		panic("testfiles: zip: " + err.Error())
	}
	return buf.Bytes()
}
