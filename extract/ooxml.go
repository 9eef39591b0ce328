package extract

import (
	"context"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"path"
	"strconv"
	"strings"
)

// extractDOCX reads word/document.xml (the main story: paragraphs and tables; headers,
// footers, comments and deleted text are left out).
func extractDOCX(ctx context.Context, data []byte, c *collector) error {
	a, err := openArchive(data)
	if err != nil {
		return err
	}
	const main = "word/document.xml"
	if !a.has(main) {
		return fmt.Errorf("%w: not a Word document (no %s)", ErrUnreadable, main)
	}
	var f flow
	if err := walkDrawingML(ctx, a, main, "w", &f); err != nil {
		return err
	}
	c.add(1, "", f.String())
	return nil
}

// walkDrawingML reads the paragraphs and tables of a WordprocessingML (prefix "w") or
// DrawingML (prefix "a") part into f: <p> paragraphs, <t> text, <tab>, <br>/<cr>, <tbl>/<tr>/<tc>
// tables. Alternate content is read once (its fallback is skipped), deleted text and field
// instructions not at all.
func walkDrawingML(ctx context.Context, a *archive, part, prefix string, f *flow) error {
	inText, inRun, skip := false, 0, 0
	return a.walk(ctx, part, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || (t.Name.Space == "mc" && t.Name.Local == "Fallback") {
				skip++
				return nil
			}
			if t.Name.Space != prefix {
				return nil
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "r":
				inRun++
			case "tab":
				if inRun > 0 {
					f.text("\t")
				}
			case "br", "cr":
				if inRun > 0 || prefix == "a" {
					f.text("\n")
				}
			case "tbl":
				f.tableStart()
			}
		case xml.EndElement:
			if skip > 0 {
				skip--
				return nil
			}
			if t.Name.Space != prefix {
				return nil
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "r":
				inRun--
			case "p":
				f.paraEnd()
			case "tc":
				f.cellEnd()
			case "tr":
				f.rowEnd()
			case "tbl":
				f.tableEnd()
			}
		case xml.CharData:
			if inText && skip == 0 {
				f.text(string(t))
			}
		}
		return nil
	})
}

// extractPPTX reads the slides in presentation order (ppt/presentation.xml's slide list); each
// slide's text frames and tables in shape order. Notes are left out.
func extractPPTX(ctx context.Context, data []byte, c *collector) error {
	c.doc.Unit = UnitSlide
	a, err := openArchive(data)
	if err != nil {
		return err
	}
	const pres = "ppt/presentation.xml"
	rels, err := a.relationships(ctx, pres)
	if err != nil {
		return err
	}
	var slides []string
	err = a.walk(ctx, pres, func(_ *xml.Decoder, tok xml.Token) error {
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sldId" {
			if target, ok := rels[relID(se)]; ok {
				slides = append(slides, target)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.doc.Total = len(slides)
	for i, s := range slides {
		var f flow
		if err := walkDrawingML(ctx, a, s, "a", &f); err != nil {
			return err
		}
		c.add(i+1, "", f.String())
	}
	return nil
}

// relID is the r:id attribute of an element (the namespaced "id", not a plain one).
func relID(se xml.StartElement) string {
	for _, at := range se.Attr {
		if at.Name.Local == "id" && at.Name.Space != "" {
			return at.Value
		}
	}
	return ""
}

// extractXLSX reads every sheet, in workbook order, as CSV: one line per row that has a value,
// cells at their column (empty ones in between kept), shared and inline strings resolved,
// numbers as stored (dates are serial numbers), booleans TRUE/FALSE.
func extractXLSX(ctx context.Context, data []byte, c *collector) error {
	c.doc.Unit = UnitSheet
	a, err := openArchive(data)
	if err != nil {
		return err
	}
	const book = "xl/workbook.xml"
	rels, err := a.relationships(ctx, book)
	if err != nil {
		return err
	}
	type sheet struct{ name, part string }
	var sheets []sheet
	err = a.walk(ctx, book, func(_ *xml.Decoder, tok xml.Token) error {
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "sheet" {
			if target, ok := rels[relID(se)]; ok {
				sheets = append(sheets, sheet{attr(se, "name"), target})
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var shared []string
	if rel := findRel(rels, "sharedStrings.xml"); rel != "" {
		if shared, err = sharedStrings(ctx, a, rel); err != nil {
			return err
		}
	}
	c.doc.Total = len(sheets)
	for i, s := range sheets {
		text, err := xlsxSheet(ctx, a, s.part, shared)
		if err != nil {
			return err
		}
		c.add(i+1, s.name, text)
	}
	return nil
}

func findRel(rels map[string]string, base string) string {
	for _, target := range rels {
		if path.Base(target) == base {
			return target
		}
	}
	return ""
}

// sharedStrings reads the shared string table: each <si>'s text runs, phonetic runs left out.
func sharedStrings(ctx context.Context, a *archive, part string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inT, inPh := false, false
	err := a.walk(ctx, part, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "si":
				cur.Reset()
			case "t":
				inT = true
			case "rPh":
				inPh = true
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "si":
				out = append(out, cur.String())
			case "t":
				inT = false
			case "rPh":
				inPh = false
			}
		case xml.CharData:
			if inT && !inPh {
				cur.Write(t)
			}
		}
		return nil
	})
	return out, err
}

// maxColumns bounds the columns of one row, so that a cell at XFD1 does not write 16,384 fields.
const maxColumns = 1024

// xlsxSheet reads one worksheet into CSV text.
func xlsxSheet(ctx context.Context, a *archive, part string, shared []string) (string, error) {
	var b strings.Builder
	w := csv.NewWriter(&b)
	var row []string
	var cellRef, cellType string
	var val, inline strings.Builder
	inV, inIs, inT := false, false, false
	col := 0
	err := a.walk(ctx, part, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "row":
				row, col = row[:0], 0
			case "c":
				cellRef, cellType = attr(t, "r"), attr(t, "t")
				val.Reset()
				inline.Reset()
			case "v":
				inV = true
			case "is":
				inIs = true
			case "t":
				inT = inIs
			}
		case xml.EndElement:
			switch t.Name.Local {
			case "v":
				inV = false
			case "is":
				inIs = false
			case "t":
				inT = false
			case "c":
				if i, ok := columnIndex(cellRef); ok {
					col = i
				}
				text := cellText(cellType, val.String(), inline.String(), shared)
				if text != "" && col < maxColumns {
					for len(row) < col {
						row = append(row, "")
					}
					row = append(row, text)
				}
				col++
			case "row":
				if len(row) > 0 {
					_ = w.Write(row) // writes to a strings.Builder cannot fail
				}
			}
		case xml.CharData:
			switch {
			case inV:
				val.Write(t)
			case inT:
				inline.Write(t)
			}
		}
		return nil
	})
	w.Flush()
	return b.String(), err
}

func cellText(typ, v, inline string, shared []string) string {
	switch typ {
	case "s":
		i, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || i < 0 || i >= len(shared) {
			return ""
		}
		return shared[i]
	case "inlineStr":
		return inline
	case "b":
		if strings.TrimSpace(v) == "1" {
			return "TRUE"
		}
		return "FALSE"
	}
	return v
}

// columnIndex turns the letters of a cell reference ("C7") into a 0-based column.
func columnIndex(ref string) (int, bool) {
	n, i := 0, 0
	for ; i < len(ref) && ref[i] >= 'A' && ref[i] <= 'Z'; i++ {
		n = n*26 + int(ref[i]-'A'+1)
		if n > 1<<20 {
			return 0, false
		}
	}
	if i == 0 {
		return 0, false
	}
	return n - 1, true
}
