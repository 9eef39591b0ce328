package extract

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Errors of Text. Both are wrapped with the cause; test with errors.Is.
var (
	// ErrUnsupported: Supports(mime) is false.
	ErrUnsupported = errors.New("extract: unsupported document type")
	// ErrUnreadable: the document is corrupt, truncated, too large inside, or not what its type
	// says.
	ErrUnreadable = errors.New("extract: unreadable document")
	// ErrEncrypted wraps ErrUnreadable: the document needs a password.
	ErrEncrypted = fmt.Errorf("%w: encrypted", ErrUnreadable)
)

// DefaultMaxChars is Limits.MaxChars when it is zero.
const DefaultMaxChars = 100_000

// Limits bound one extraction. The time limit is the context's deadline.
type Limits struct {
	// MaxChars is the most characters (runes) of text kept across all parts; 0 means
	// DefaultMaxChars.
	MaxChars int
}

// Unit is what a document's parts are.
type Unit int

const (
	// UnitNone: the document is one flowing text (DOCX, ODT); it has one part.
	UnitNone Unit = iota
	UnitPage
	UnitSheet
	UnitSlide
	UnitChapter
)

// Part is the text of one page, sheet, slide or chapter.
type Part struct {
	// Number counts from 1 in document order.
	Number int
	// Name is the sheet's name; empty for other units.
	Name string
	Text string
}

// Document is the text of one document.
type Document struct {
	Unit Unit
	// Parts holds the text kept, in document order. Parts that are empty are left out, so Number
	// may skip.
	Parts []Part
	// Total is the number of pages, sheets, slides or chapters in the document (1 for UnitNone).
	Total int
	// Chars is the number of characters kept in Parts.
	Chars int
	// Remaining counts the characters found but not kept because of Limits.MaxChars. When
	// TimedOut, the document held at least that many more.
	Remaining int
	// TimedOut: the context ended before the whole document was read.
	TimedOut bool
	// Read is the number of parts read (all of them unless TimedOut).
	Read int
	// NoText: a PDF whose pages carry no text layer (a scan); Parts is empty.
	NoText bool
}

// Truncated reports whether text was left out because of Limits.MaxChars.
func (d Document) Truncated() bool { return d.Remaining > 0 }

// extractor reads one format into a collector.
type extractor func(ctx context.Context, data []byte, c *collector) error

var extractors = map[string]extractor{
	"application/pdf": extractPDF,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document":   extractDOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":         extractXLSX,
	"application/vnd.openxmlformats-officedocument.presentationml.presentation": extractPPTX,
	"application/vnd.oasis.opendocument.text":                                   extractODT,
	"application/vnd.oasis.opendocument.spreadsheet":                            extractODS,
	"application/vnd.oasis.opendocument.presentation":                           extractODP,
	"application/epub+zip": extractEPUB,
}

// Supports reports whether Text reads documents of the MIME type (bare and lower case, as
// routing detects it).
func Supports(mime string) bool {
	_, ok := extractors[mime]
	return ok
}

// Text extracts the text of data, a document of the given MIME type. It returns ErrUnsupported,
// ErrUnreadable or ErrEncrypted (wrapped), or a Document; when ctx ends first, the Document holds
// what was read, with TimedOut set, and no error.
func Text(ctx context.Context, mime string, data []byte, lim Limits) (doc Document, err error) {
	ex, ok := extractors[mime]
	if !ok {
		return Document{}, fmt.Errorf("%w: %q", ErrUnsupported, mime)
	}
	max := lim.MaxChars
	if max <= 0 {
		max = DefaultMaxChars
	}
	c := &collector{max: max}
	defer func() {
		if r := recover(); r != nil { // the PDF parser reports some malformed input by panicking
			doc, err = Document{}, fmt.Errorf("%w: %v", ErrUnreadable, r)
		}
	}()
	err = ex(ctx, data, c)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		c.doc.TimedOut, err = true, nil
	}
	if err != nil {
		return Document{}, err
	}
	if c.doc.Total == 0 && c.doc.Unit == UnitNone {
		c.doc.Total = 1
	}
	return c.doc, nil
}

// collector keeps parts within the character limit and counts the rest.
type collector struct {
	max int
	doc Document
}

// add appends a part; the text is trimmed of surrounding blank lines, and cut to what the limit
// still allows. Read counts every part added, empty or not.
func (c *collector) add(number int, name, text string) {
	c.doc.Read++
	text = strings.Trim(text, "\n\r\t ")
	if text == "" {
		return
	}
	n := utf8.RuneCountInString(text)
	left := c.max - c.doc.Chars
	switch {
	case left <= 0:
		c.doc.Remaining += n
		return
	case n > left:
		text = cutRunes(text, left)
		c.doc.Remaining += n - left
		n = left
	}
	c.doc.Chars += n
	c.doc.Parts = append(c.doc.Parts, Part{Number: number, Name: name, Text: text})
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// unreadable wraps a parse error in ErrUnreadable, leaving context errors as they are.
func unreadable(err error) error {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return err
	}
	if errors.Is(err, ErrUnreadable) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrUnreadable, err)
}
