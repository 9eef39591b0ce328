package routing

import (
	"github.com/gabriel-vasile/mimetype"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/mediaformat"
)

// KindText is the Detection.Kind of text; binaries have their contracts.Binary* category.
const KindText = "text"

// Sources of a Detection: what decided the type.
const (
	SourceMIME      = "mime"      // the declared MIME type, confirmed by the content when there is any
	SourceExtension = "extension" // the filename's extension
	SourceContent   = "content"   // the bytes themselves (magic numbers, UTF-8 validity)
)

// DetectInput is what is known about an artifact before its type is decided.
type DetectInput struct {
	Filename string
	// DeclaredMIME is what the writer said; it may be empty, wrong or a lie.
	DeclaredMIME string
	// Head holds the first bytes of the content, or all of it. Nil when the content was not
	// downloaded (for instance because it is too large).
	Head []byte
	// Size is the size of the whole content. When it exceeds len(Head), Head is a prefix.
	Size int64
}

// Detection is the decided type of an artifact.
type Detection struct {
	// IsText is set when the content is (or, without content, is declared as) UTF-8 text.
	IsText bool
	// Kind is KindText or a binary's category: contracts.BinaryImage, BinaryAudio, BinaryVideo,
	// BinaryDocument or BinaryOther.
	Kind string
	// MIME is the bare, lower-case, canonical type ("image/jpeg", never "image/jpg; x=y");
	// application/octet-stream when unknown.
	MIME string
	// Format names the format ("png", "pdf", "mp3", "zip", "elf", "txt", "svg"); empty when unknown.
	Format string
	// Confidence is 0..1; 0 means nothing identified the artifact.
	Confidence float64
	// Source is SourceMIME, SourceExtension or SourceContent.
	Source string
}

// claim is a type asserted by the metadata, in order of precedence.
type claim struct {
	mime   string
	source string
}

// Detect decides the type of an artifact. The declared MIME type is considered first, then the
// filename's extension, and the content decides between them or against them: PNG bytes declared
// text/plain are an image, ELF bytes declared image/png are an unknown-to-providers binary, valid
// UTF-8 declared application/octet-stream is text. A claimed format that the content should show
// (mimetype knows its signature) but does not is not believed: the artifact is unknown binary.
// An empty file (a non-nil, empty Head and no Size) is empty text. SVG is text (XML), since no model API accepts it as an image.
//
// Detect is pure, safe for concurrent use, and never panics: a failure of the content sniffer is
// reported as unknown binary.
func Detect(in DetectInput) (d Detection) {
	defer func() {
		if recover() != nil {
			d = unknownBinary(0)
		}
	}()
	return detect(in)
}

func detect(in DetectInput) Detection {
	claims := make([]claim, 0, 2)
	if m := mediaformat.NormalizeMIME(in.DeclaredMIME); m != "" {
		claims = append(claims, claim{m, SourceMIME})
	}
	if m := mediaformat.MIMEByExtension(in.Filename); m != "" {
		claims = append(claims, claim{m, SourceExtension})
	}

	if len(in.Head) == 0 {
		if in.Head != nil && in.Size <= 0 {
			return emptyText(claims)
		}
		return fromClaims(claims) // not downloaded: only the metadata can tell
	}

	truncated := int64(len(in.Head)) < in.Size
	textual := looksText(in.Head, truncated)
	sniffed := mimetype.Detect(in.Head)
	known := sniffed.Parent() != nil // the root means "no signature matched"
	textTree := isTextNode(sniffed)

	switch {
	case textual && (textTree || !known):
		return textDetection(claims, sniffed, in.Filename)
	case textual:
		// Valid text that starts like a binary format ("%PDF-", "%!PS", "#EXTM3U").
		if d, ok := confirmed(claims, sniffed); ok {
			return d
		}
		if len(claims) > 0 && mediaformat.IsTextMIME(claims[0].mime) {
			d := textDetection(claims, sniffed, in.Filename)
			d.Confidence = 0.85
			return d
		}
		return binary(mediaformat.BaseMIME(sniffed.String()), 0.7, SourceContent)
	case known && !textTree:
		if d, ok := confirmed(claims, sniffed); ok {
			return d
		}
		return binary(mediaformat.BaseMIME(sniffed.String()), 0.9, SourceContent)
	default:
		// Binary bytes with no known signature. Believe a binary claim only when its signature is
		// unknown to the sniffer; a text claim is refuted by the bytes.
		for _, c := range claims {
			if !mediaformat.IsTextMIME(c.mime) && mimetype.Lookup(c.mime) == nil {
				return binary(c.mime, 0.5, c.source)
			}
		}
		return unknownBinary(0.5)
	}
}

// confirmed returns the detection for the first claim the sniffed signature agrees with: the same
// type, or one of them a more specific kind of the other (a DOCX is a ZIP). The more specific of
// the two is kept.
func confirmed(claims []claim, sniffed *mimetype.MIME) (Detection, bool) {
	for _, c := range claims {
		conf := 1.0
		if c.source == SourceExtension {
			conf = 0.95
		}
		switch {
		case sniffed.Is(c.mime) || isAncestor(mimetype.Lookup(c.mime), sniffed):
			return binary(mediaformat.BaseMIME(sniffed.String()), conf, c.source), true
		case isAncestor(sniffed, mimetype.Lookup(c.mime)):
			return binary(c.mime, conf, c.source), true
		}
	}
	return Detection{}, false
}

// textDetection types valid text: the first textual claim names it, else the sniffer does.
func textDetection(claims []claim, sniffed *mimetype.MIME, filename string) Detection {
	for _, c := range claims {
		if mediaformat.IsTextMIME(c.mime) {
			conf := 0.95
			if c.source == SourceExtension {
				conf = 0.9
			}
			return text(c.mime, conf, c.source, filename)
		}
	}
	m := mediaformat.BaseMIME(sniffed.String())
	if !mediaformat.IsTextMIME(m) {
		m = "text/plain" // text-tree formats named image/x-portable-bitmap and the like
	}
	return text(m, 0.8, SourceContent, filename)
}

func emptyText(claims []claim) Detection {
	for _, c := range claims {
		if mediaformat.IsTextMIME(c.mime) {
			return text(c.mime, 1, SourceContent, "")
		}
	}
	return text("text/plain", 1, SourceContent, "")
}

// fromClaims decides without content: the first claim, a little more trusted when the
// declaration and the extension agree.
func fromClaims(claims []claim) Detection {
	if len(claims) == 0 {
		return unknownBinary(0)
	}
	c := claims[0]
	conf := 0.6
	if c.source == SourceExtension {
		conf = 0.5
	}
	if len(claims) > 1 && mediaformat.Name(claims[1].mime) == mediaformat.Name(c.mime) {
		conf += 0.1
	}
	if mediaformat.IsTextMIME(c.mime) {
		return text(c.mime, conf, c.source, "")
	}
	return binary(c.mime, conf, c.source)
}

func text(m string, conf float64, source, filename string) Detection {
	f := mediaformat.Name(m)
	if f == "txt" || f == "plain" {
		// text/plain says little; a source file's extension says more ("go", "py").
		f = "txt"
		if m := mediaformat.MIMEByExtension(filename); mediaformat.IsTextMIME(m) {
			f = mediaformat.Name(m)
		}
	}
	return Detection{IsText: true, Kind: KindText, MIME: m, Format: f, Confidence: conf, Source: source}
}

// binary types non-text content. A textual name on binary bytes stays (a Visio file is
// "…drawing.main+xml" inside a ZIP): the bytes, not the name, made it binary.
func binary(m string, conf float64, source string) Detection {
	m = mediaformat.BaseMIME(m)
	if m == "" || mediaformat.IsGeneric(m) {
		return unknownBinary(conf)
	}
	return Detection{Kind: mediaformat.Kind(m), MIME: m, Format: mediaformat.Name(m), Confidence: conf, Source: source}
}

func unknownBinary(conf float64) Detection {
	return Detection{Kind: contracts.BinaryOther, MIME: mediaformat.OctetStream, Confidence: conf, Source: SourceContent}
}

// isTextNode reports whether m is text/plain or one of its descendants in mimetype's tree.
func isTextNode(m *mimetype.MIME) bool {
	for p := m; p != nil; p = p.Parent() {
		if p.Is("text/plain") {
			return true
		}
	}
	return false
}

// isAncestor reports whether a is a proper ancestor of b, below the root, in mimetype's tree.
func isAncestor(a, b *mimetype.MIME) bool {
	if a == nil || b == nil {
		return false
	}
	for p := b.Parent(); p != nil && p.Parent() != nil; p = p.Parent() {
		if p.Is(a.String()) {
			return true
		}
	}
	return false
}
