// Package extract reads the text inside documents that a model cannot take as a file: PDF
// (github.com/ledongthuc/pdf, pure Go), Office Open XML (DOCX, XLSX, PPTX) and OpenDocument
// (ODT, ODS, ODP) through archive/zip and encoding/xml, and EPUB (its XHTML chapters).
//
// It is pure: bytes in, structured text out, no I/O, no logging. Text returns the text per page,
// sheet or slide (Document.Parts); the words around it (markers, the truncation line, the
// locale) are the routing package's. Work is bounded twice: Limits.MaxChars caps the text kept
// (the rest is counted in Document.Remaining, never held), and the context's deadline stops a
// document between pages, sheets, slides and every few thousand XML tokens (Document.TimedOut;
// the parts read so far are kept). ZIP members are read through a size limit, so a
// decompression bomb ends as ErrUnreadable.
//
// Errors: ErrUnsupported for a MIME type Supports refuses; ErrUnreadable (ErrEncrypted for a
// document that needs a password) for a document that cannot be parsed. A scanned PDF is not an
// error: Document.NoText is set. Text is safe for concurrent use and never panics on any input.
package extract
