package extract

import (
	"context"
	"encoding/csv"
	"encoding/xml"
	"strconv"
	"strings"
)

// OpenDocument files keep their body in content.xml: text:p and text:h paragraphs, with
// text:s (spaces), text:tab and text:line-break inside; tables as table:table, table:table-row,
// table:table-cell; presentation pages as draw:page.

const odfContent = "content.xml"

// odfSkipped are elements whose text is not part of the document's body text.
var odfSkipped = map[string]bool{
	"office:annotation": true, "text:tracked-changes": true, "text:note-citation": true,
	"presentation:notes": true, "office:forms": true, "text:sequence-decls": true,
}

// odfInline handles the inline elements of a paragraph; it reports whether tok was one.
func odfInline(f *flow, se xml.StartElement) bool {
	switch qname(se.Name) {
	case "text:s":
		n := 1
		if c, err := strconv.Atoi(attr(se, "c")); err == nil && c > 1 {
			n = min(c, 1000)
		}
		f.text(strings.Repeat(" ", n))
	case "text:tab":
		f.text("\t")
	case "text:line-break":
		f.text("\n")
	default:
		return false
	}
	return true
}

func qname(n xml.Name) string { return n.Space + ":" + n.Local }

// odfBody follows the text of an OpenDocument body: elements odfSkipped names (with all they hold)
// are left out, paragraphs and headings are text, tables are rows of cells.
type odfBody struct{ inPara, skip int }

// skipped reports whether tok belongs to a skipped element, keeping count of them.
func (b *odfBody) skipped(tok xml.Token) bool {
	switch t := tok.(type) {
	case xml.StartElement:
		if b.skip > 0 || odfSkipped[qname(t.Name)] {
			b.skip++
			return true
		}
	case xml.EndElement:
		if b.skip > 0 {
			b.skip--
			return true
		}
	case xml.CharData:
		return b.skip > 0
	}
	return false
}

// read applies a token that is not skipped to f; with f nil (outside any slide) it only counts
// paragraphs.
func (b *odfBody) read(f *flow, tok xml.Token) {
	switch t := tok.(type) {
	case xml.StartElement:
		switch qname(t.Name) {
		case "text:p", "text:h":
			b.inPara++
		case "table:table":
			if f != nil {
				f.tableStart()
			}
		default:
			if f != nil {
				odfInline(f, t)
			}
		}
	case xml.EndElement:
		if f == nil {
			return
		}
		switch qname(t.Name) {
		case "text:p", "text:h":
			b.inPara--
			f.paraEnd()
		case "table:table-cell":
			f.cellEnd()
		case "table:table-row":
			f.rowEnd()
		case "table:table":
			f.tableEnd()
		}
	case xml.CharData:
		if f != nil && b.inPara > 0 {
			f.text(string(t))
		}
	}
}

// extractODT reads the body of a text document: paragraphs, headings, lists and tables.
func extractODT(ctx context.Context, data []byte, c *collector) error {
	a, err := openArchive(data)
	if err != nil {
		return err
	}
	var f flow
	var body odfBody
	err = a.walk(ctx, odfContent, func(_ *xml.Decoder, tok xml.Token) error {
		if !body.skipped(tok) {
			body.read(&f, tok)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.add(1, "", f.String())
	return nil
}

// extractODP reads each draw:page as a slide: the paragraphs of its frames and tables in order;
// speaker notes are left out.
func extractODP(ctx context.Context, data []byte, c *collector) error {
	c.doc.Unit = UnitSlide
	a, err := openArchive(data)
	if err != nil {
		return err
	}
	var f *flow
	var body odfBody
	n := 0
	err = a.walk(ctx, odfContent, func(_ *xml.Decoder, tok xml.Token) error {
		if body.skipped(tok) {
			return nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if qname(t.Name) == "draw:page" {
				f = &flow{}
				return nil
			}
		case xml.EndElement:
			if f != nil && qname(t.Name) == "draw:page" {
				n++
				c.add(n, "", f.String())
				f = nil
				return nil
			}
		}
		body.read(f, tok)
		return nil
	})
	c.doc.Total = n
	return err
}

// extractODS reads each table:table as a sheet, as CSV like XLSX. Repeated rows and cells
// (table:number-*-repeated) are written once per repetition only when they hold a value, and a
// row never grows past maxColumns.
func extractODS(ctx context.Context, data []byte, c *collector) error {
	c.doc.Unit = UnitSheet
	a, err := openArchive(data)
	if err != nil {
		return err
	}
	var (
		b         strings.Builder
		w         *csv.Writer
		name      string
		row       []string
		cell      strings.Builder
		cellParas int
		cellRep   int
		rowRep    int
		inPara    int
		skip      int
		depth     int // nested tables inside a cell are read as that cell's text
		n         int
	)
	err = a.walk(ctx, odfContent, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 || odfSkipped[qname(t.Name)] {
				skip++
				return nil
			}
			switch qname(t.Name) {
			case "table:table":
				depth++
				if depth == 1 {
					name = attr(t, "name")
					b.Reset()
					w = csv.NewWriter(&b)
				}
			case "table:table-row":
				if depth == 1 {
					row = row[:0]
					rowRep = repeat(t, "number-rows-repeated")
				}
			case "table:table-cell", "table:covered-table-cell":
				if depth == 1 {
					cell.Reset()
					cellParas = 0
					cellRep = repeat(t, "number-columns-repeated")
				}
			case "text:p", "text:h":
				inPara++
				if cellParas > 0 {
					cell.WriteByte('\n')
				}
				cellParas++
			case "text:s":
				cell.WriteByte(' ')
			case "text:tab":
				cell.WriteByte('\t')
			case "text:line-break":
				cell.WriteByte('\n')
			}
		case xml.EndElement:
			if skip > 0 {
				skip--
				return nil
			}
			switch qname(t.Name) {
			case "text:p", "text:h":
				inPara--
			case "table:table-cell", "table:covered-table-cell":
				if depth != 1 {
					return nil
				}
				v := cell.String()
				for i := 0; i < cellRep && len(row) < maxColumns; i++ {
					row = append(row, v) // trailing empty cells are trimmed at the row's end
				}
			case "table:table-row":
				if depth != 1 {
					return nil
				}
				for len(row) > 0 && row[len(row)-1] == "" {
					row = row[:len(row)-1]
				}
				if len(row) > 0 {
					for i := 0; i < min(rowRep, maxColumns); i++ {
						_ = w.Write(row) // writes to a strings.Builder cannot fail
					}
				}
			case "table:table":
				depth--
				if depth == 0 {
					w.Flush()
					n++
					c.add(n, name, b.String())
				}
			}
		case xml.CharData:
			if inPara > 0 && skip == 0 {
				cell.Write(t)
			}
		}
		return nil
	})
	c.doc.Total = n
	return err
}

// repeat reads a table:number-*-repeated attribute: at least 1.
func repeat(se xml.StartElement, local string) int {
	if v, err := strconv.Atoi(attr(se, local)); err == nil && v > 1 {
		return v
	}
	return 1
}
