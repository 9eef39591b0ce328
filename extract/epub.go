package extract

import (
	"context"
	"encoding/xml"
	"fmt"
	"path"
	"strings"
)

// extractEPUB reads the chapters of an EPUB in spine order (META-INF/container.xml names the
// package document; its spine orders the XHTML files), each as one part.
func extractEPUB(ctx context.Context, data []byte, c *collector) error {
	c.doc.Unit = UnitChapter
	a, err := openArchive(data)
	if err != nil {
		return err
	}
	var opf string
	err = a.walk(ctx, "META-INF/container.xml", func(_ *xml.Decoder, tok xml.Token) error {
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rootfile" && opf == "" {
			opf = attr(se, "full-path")
		}
		return nil
	})
	if err != nil {
		return err
	}
	if opf == "" {
		return fmt.Errorf("%w: EPUB without a package document", ErrUnreadable)
	}
	hrefs := map[string]string{}
	var spine []string
	err = a.walk(ctx, opf, func(_ *xml.Decoder, tok xml.Token) error {
		if se, ok := tok.(xml.StartElement); ok {
			switch se.Name.Local {
			case "item":
				hrefs[attr(se, "id")] = path.Clean(path.Join(path.Dir(opf), attr(se, "href")))
			case "itemref":
				spine = append(spine, attr(se, "idref"))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.doc.Total = len(spine)
	for i, id := range spine {
		part, ok := hrefs[id]
		if !ok {
			continue
		}
		text, err := xhtmlText(ctx, a, part)
		if err != nil {
			return err
		}
		c.add(i+1, "", text)
	}
	return nil
}

// xhtmlBlocks are the elements that end a line of text.
var xhtmlBlocks = map[string]bool{
	"p": true, "div": true, "li": true, "h1": true, "h2": true, "h3": true,
	"h4": true, "h5": true, "h6": true, "blockquote": true, "pre": true, "section": true, "dt": true,
	"dd": true, "figcaption": true, "hr": true,
}

// xhtmlText is the text of an XHTML body: block elements end lines, table rows are lines with
// their cells joined by " | " (as in DOCX), scripts and styles are left out.
func xhtmlText(ctx context.Context, a *archive, part string) (string, error) {
	var f flow
	inBody, skip := false, 0
	err := a.walk(ctx, part, func(_ *xml.Decoder, tok xml.Token) error {
		switch t := tok.(type) {
		case xml.StartElement:
			switch name := strings.ToLower(t.Name.Local); {
			case name == "body":
				inBody = true
			case name == "script" || name == "style":
				skip++
			case name == "table":
				f.tableStart()
			case name == "br":
				f.text("\n")
			}
		case xml.EndElement:
			switch name := strings.ToLower(t.Name.Local); {
			case name == "script" || name == "style":
				skip--
			case name == "td" || name == "th":
				f.cellEnd()
			case name == "tr":
				f.rowEnd()
			case name == "table":
				f.tableEnd()
			case xhtmlBlocks[name]:
				f.paraEnd()
			}
		case xml.CharData:
			if inBody && skip == 0 {
				writeCollapsed(f.w(), string(t))
			}
		}
		return nil
	})
	return f.String(), err
}

// writeCollapsed writes s with every run of white space made one space, and no space at the
// start of a line or after another space.
func writeCollapsed(b *strings.Builder, s string) {
	words := strings.Fields(s)
	if len(words) == 0 {
		if s != "" && b.Len() > 0 && !endsInSpace(b) {
			b.WriteByte(' ')
		}
		return
	}
	if strings.IndexAny(s[:1], " \t\r\n") == 0 && b.Len() > 0 && !endsInSpace(b) {
		b.WriteByte(' ')
	}
	b.WriteString(strings.Join(words, " "))
	if last := s[len(s)-1]; last == ' ' || last == '\t' || last == '\r' || last == '\n' {
		b.WriteByte(' ')
	}
}
