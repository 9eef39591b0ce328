package extract_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/extract"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

const (
	mimePDF  = "application/pdf"
	mimeDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	mimeXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	mimePPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	mimeODT  = "application/vnd.oasis.opendocument.text"
	mimeODS  = "application/vnd.oasis.opendocument.spreadsheet"
	mimeODP  = "application/vnd.oasis.opendocument.presentation"
	mimeEPUB = "application/epub+zip"
)

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// The fixtures are real documents made by testdata/make-fixtures.sh (LibreOffice, ReportLab,
// Ghostscript); the expected text is what a reader sees on the page, word for word.
func TestTextWordForWord(t *testing.T) {
	t.Parallel()
	reportPages := []extract.Part{
		{Number: 1, Text: "Quarterly Report 季度报告\nRevenue grew by 12 percent in the third quarter.\n第三季度收入增长了百分之十二。\nRegion Revenue 地区备注\nNorth 1200 北方"},
		{Number: 2, Text: "Page two: outlook and risks.\n第二页：展望与风险。"},
	}
	flowing := "Quarterly Report 季度报告\nRevenue grew by 12 percent in the third quarter.\n第三季度收入增长了百分之十二。\nRegion | Revenue | 地区备注\nNorth | 1200 | 北方\n"
	// notes.docx and notes.pptx come from pandoc (a second producer of Office files), from the
	// same Markdown: a heading, a link, a table, a list.
	pandocNotes := "Meeting notes 会议记录\nDecisions were made on three topics, see the plan.\n决定：下周发布。\nOwner | Task\nAna | Ship\n李雷 | 测试"
	sheets := []extract.Part{
		{Number: 1, Name: "Sales", Text: "Region,Units,Note\nNorth,1200,\"late, but complete\"\nSouth,2.5"},
		{Number: 2, Name: "备注", Text: "项目,,状态\n迁移,,完成"},
	}
	slides := []extract.Part{
		{Number: 1, Text: "Roadmap 2027\nShip the worker\n发布工作器"},
		{Number: 2, Text: "Risks 风险"},
	}
	tests := []struct {
		file, mime string
		unit       extract.Unit
		want       []extract.Part
	}{
		{"report.pdf", mimePDF, extract.UnitPage, reportPages},
		{"columns.pdf", mimePDF, extract.UnitPage, []extract.Part{{Number: 1, Text: "Left column: the first paragraph explains the plan in\nplain words.\nLeft column: the second paragraph lists the steps.\nRight column: the third paragraph closes the\nargument."}}},
		{"cid.pdf", mimePDF, extract.UnitPage, []extract.Part{{Number: 1, Text: "中文段落：季度收入增长。\nEnglish line after the Chinese one."}}},
		{"table.pdf", mimePDF, extract.UnitPage, []extract.Part{{Number: 1, Text: "Item Qty Price\nApples 3 1.20\nPears 10 0.85"}}},
		{"gs.pdf", mimePDF, extract.UnitPage, []extract.Part{{Number: 1, Text: "Ghostscript line one.\nGhostscript line two, with a comma."}}},
		{"report.docx", mimeDOCX, extract.UnitNone, []extract.Part{{Number: 1, Text: flowing + "\nPage two: outlook and risks.\n第二页：展望与风险。"}}},
		{"report.odt", mimeODT, extract.UnitNone, []extract.Part{{Number: 1, Text: flowing + "Page two: outlook and risks.\n第二页：展望与风险。"}}},
		{"report.epub", mimeEPUB, extract.UnitChapter, []extract.Part{{Number: 1, Text: flowing + "Page two: outlook and risks.\n第二页：展望与风险。"}}},
		{"notes.docx", mimeDOCX, extract.UnitNone, []extract.Part{{Number: 1, Text: pandocNotes + "\nfirst item\n第二项"}}},
		{"notes.pptx", mimePPTX, extract.UnitSlide, []extract.Part{{Number: 1, Text: pandocNotes}, {Number: 2, Text: "first item\n第二项"}}},
		{"sheet.xlsx", mimeXLSX, extract.UnitSheet, sheets},
		{"sheet.ods", mimeODS, extract.UnitSheet, sheets},
		{"slides.pptx", mimePPTX, extract.UnitSlide, slides},
		{"slides.odp", mimeODP, extract.UnitSlide, slides},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			doc, err := extract.Text(context.Background(), tt.mime, fixture(t, tt.file), extract.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Unit != tt.unit || doc.Truncated() || doc.TimedOut || doc.NoText {
				t.Errorf("unit %d truncated %v timed out %v no text %v; want unit %d and none", doc.Unit, doc.Truncated(), doc.TimedOut, doc.NoText, tt.unit)
			}
			if len(doc.Parts) != len(tt.want) {
				t.Fatalf("got %d parts %+v, want %d", len(doc.Parts), doc.Parts, len(tt.want))
			}
			for i, p := range doc.Parts {
				if p != tt.want[i] {
					t.Errorf("part %d:\n got %#v\nwant %#v", i, p, tt.want[i])
				}
			}
			if doc.Total != len(tt.want) || doc.Read != doc.Total {
				t.Errorf("total %d read %d, want %d", doc.Total, doc.Read, len(tt.want))
			}
		})
	}
}

func TestTextTruncatesAndCountsTheRest(t *testing.T) {
	t.Parallel()
	data := fixture(t, "long.pdf")
	full, err := extract.Text(context.Background(), mimePDF, data, extract.Limits{MaxChars: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if full.Total != 50 || len(full.Parts) != 50 || full.Truncated() {
		t.Fatalf("full read: %d pages, %d parts, truncated %v", full.Total, len(full.Parts), full.Truncated())
	}
	const limit = 1000
	cut, err := extract.Text(context.Background(), mimePDF, data, extract.Limits{MaxChars: limit})
	if err != nil {
		t.Fatal(err)
	}
	if cut.Chars != limit || cut.Chars+cut.Remaining != full.Chars {
		t.Errorf("kept %d + remaining %d, want %d + %d", cut.Chars, cut.Remaining, limit, full.Chars-limit)
	}
	var kept strings.Builder
	for _, p := range cut.Parts {
		kept.WriteString(p.Text)
	}
	if !strings.HasPrefix(full.Parts[0].Text, cut.Parts[0].Text) || len([]rune(kept.String())) != limit {
		t.Errorf("kept text is not the first %d characters: %q", limit, kept.String())
	}
	if cut.Read != 50 {
		t.Errorf("read %d pages, want all 50 (the rest is counted)", cut.Read)
	}
}

func TestTextScannedPDFHasNoText(t *testing.T) {
	t.Parallel()
	doc, err := extract.Text(context.Background(), mimePDF, fixture(t, "scanned.pdf"), extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.NoText || len(doc.Parts) != 0 || doc.Total != 1 {
		t.Errorf("got no text %v, parts %+v, total %d; want a one-page PDF with no text", doc.NoText, doc.Parts, doc.Total)
	}
}

func TestTextUnreadableDocuments(t *testing.T) {
	t.Parallel()
	report := fixture(t, "report.pdf")
	docx := fixture(t, "report.docx")
	tests := []struct {
		name, mime string
		data       []byte
		want       error
	}{
		{"encrypted PDF", mimePDF, fixture(t, "locked.pdf"), extract.ErrEncrypted},
		{"truncated PDF", mimePDF, report[:len(report)/2], extract.ErrUnreadable},
		{"not a PDF", mimePDF, []byte("%PDF-1.7\nhello"), extract.ErrUnreadable},
		{"empty", mimePDF, nil, extract.ErrUnreadable},
		{"truncated DOCX", mimeDOCX, docx[:len(docx)/2], extract.ErrUnreadable},
		{"a spreadsheet called DOCX", mimeDOCX, fixture(t, "sheet.xlsx"), extract.ErrUnreadable},
		{"PDF called XLSX", mimeXLSX, report, extract.ErrUnreadable},
		{"unsupported", "application/zip", docx, extract.ErrUnsupported},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc, err := extract.Text(context.Background(), tt.mime, tt.data, extract.Limits{})
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v (document %+v), want %v", err, doc, tt.want)
			}
		})
	}
}

func TestTextStopsAtTheDeadline(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	for _, f := range []struct{ file, mime string }{{"long.pdf", mimePDF}, {"sheet.xlsx", mimeXLSX}, {"slides.pptx", mimePPTX}} {
		doc, err := extract.Text(ctx, f.mime, fixture(t, f.file), extract.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", f.file, err)
		}
		if !doc.TimedOut || doc.Read != 0 || len(doc.Parts) != 0 {
			t.Errorf("%s: timed out %v, read %d, %d parts; want stopped before the first part", f.file, doc.TimedOut, doc.Read, len(doc.Parts))
		}
	}
}

func TestSupports(t *testing.T) {
	t.Parallel()
	for _, m := range []string{mimePDF, mimeDOCX, mimeXLSX, mimePPTX, mimeODT, mimeODS, mimeODP, "application/epub+zip"} {
		if !extract.Supports(m) {
			t.Errorf("Supports(%q) = false", m)
		}
	}
	for _, m := range []string{"", "application/zip", "application/msword", "text/plain", "image/png"} {
		if extract.Supports(m) {
			t.Errorf("Supports(%q) = true", m)
		}
	}
}

// countdown is a context whose deadline passes after a number of looks at Err: it stops
// extraction in the middle of a document, wherever the extractor looks.
type countdown struct {
	context.Context
	left int
}

func (c *countdown) Err() error {
	if c.left--; c.left < 0 {
		return context.DeadlineExceeded
	}
	return nil
}

func TestTextStopsInsideADocument(t *testing.T) {
	t.Parallel()
	// Between pages: long.pdf's pages are short, so ten looks at the deadline end after some
	// pages, and the pages read before stay.
	doc, err := extract.Text(&countdown{Context: context.Background(), left: 10}, mimePDF, fixture(t, "long.pdf"), extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.TimedOut || doc.Read == 0 || doc.Read >= doc.Total || len(doc.Parts) != doc.Read {
		t.Fatalf("timed out %v, read %d of %d, %d parts; want stopped part-way with the pages read kept", doc.TimedOut, doc.Read, doc.Total, len(doc.Parts))
	}
	if !strings.HasPrefix(doc.Parts[0].Text, "Page 1, paragraph 1.") {
		t.Errorf("first page: %q", doc.Parts[0].Text)
	}

	// Inside a page: one page of 5,000 text operators is looked at every 1,024 of them, so the
	// second look (the first is before the page) ends it unread.
	doc, err = extract.Text(&countdown{Context: context.Background(), left: 1}, mimePDF, densePDF(5000), extract.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if !doc.TimedOut || doc.Read != 0 || doc.Total != 1 {
		t.Fatalf("timed out %v, read %d of %d; want stopped inside the only page", doc.TimedOut, doc.Read, doc.Total)
	}
	if doc, err = extract.Text(context.Background(), mimePDF, densePDF(5000), extract.Limits{}); err != nil || doc.Chars != 5000 {
		t.Fatalf("without a deadline: %v, %d characters, want 5000", err, doc.Chars)
	}
}

// densePDF is a one-page PDF whose content shows "x" n times, one Tj each.
func densePDF(n int) []byte {
	return testfiles.PDFPage("BT /F1 1 Tf " + strings.Repeat("(x) Tj ", n) + "ET")
}
