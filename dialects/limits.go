package dialects

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// KeepWithin keeps a turn's messages within a provider's per-request limits (docs/design.md,
// "Per-request limits"): walking the messages in order, it keeps each media part while the
// images, image bytes, media bytes and PDF pages so far stay within l, and replaces every later
// part with a text part in the dialect's shape saying that its content was left out (note), so
// the model can ask for it again. A media part inside a Gemini function response, where a text
// part is not allowed, is dropped (the response's output still names the content). Sizes are
// counted on base64. It returns the messages (the same slice when nothing was over) and how many
// parts it left out; a message that is not JSON is left as it is.
func (t *Turn) KeepWithin(msgs []json.RawMessage, l contracts.RequestLimits, note string) ([]json.RawMessage, int) {
	if l == (contracts.RequestLimits{}) || surelyWithin(msgs, l) {
		return msgs, 0
	}
	b := budget{l: l}
	out := msgs
	omitted := 0
	for i, raw := range msgs {
		n, err := parseNode(raw)
		if err != nil {
			continue
		}
		if k := b.walk(n, t.noteNode(note)); k > 0 {
			if omitted == 0 {
				out = append([]json.RawMessage(nil), msgs...)
			}
			out[i] = n.bytes()
			omitted += k
		}
	}
	return out, omitted
}

// payloadMarks are the ways a media payload member starts in the dialects' shapes; counting them
// bounds the number of media parts from above.
var payloadMarks = [][]byte{[]byte(`"data":`), []byte(`"bytes":`), []byte(`"base64":`), []byte(`"url":"data:`), []byte(`"image_url":"data:`), []byte(`"file_data":"data:`)}

// surelyWithin reports, from a scan of the raw bytes that allocates nothing, that msgs cannot pass
// l: all of their bytes fit every size limit, their payload members are no more than the image
// limit, and no PDF is there to count pages of. Most turns are decided here; the others are
// parsed.
func surelyWithin(msgs []json.RawMessage, l contracts.RequestLimits) bool {
	var size int64
	parts := 0
	pdf := false
	for _, m := range msgs {
		size += int64(len(m))
		for _, mark := range payloadMarks {
			parts += bytes.Count(m, mark)
		}
		pdf = pdf || bytes.Contains(m, []byte("application/pdf")) || bytes.Contains(m, []byte(`"format":"pdf"`))
	}
	return (l.MaxBytes == 0 || size <= l.MaxBytes) && (l.MaxImageBytes == 0 || size <= l.MaxImageBytes) &&
		(l.MaxImages == 0 || parts <= l.MaxImages) && (l.MaxPDFPages == 0 || !pdf)
}

// budget is what a turn used so far.
type budget struct {
	l                   contracts.RequestLimits
	images, pages       int
	imageBytes, allSize int64
}

// fits reports whether m fits what is left, and takes it when it does.
func (b *budget) fits(m mediaInfo) bool {
	size := int64(len(m.base64))
	images, imageBytes, pages := b.images, b.imageBytes, b.pages
	if m.image {
		images++
		imageBytes += size
	}
	if m.pdf && b.l.MaxPDFPages > 0 {
		pages += pdfPages(m.base64)
	}
	switch {
	case b.l.MaxImages > 0 && images > b.l.MaxImages,
		b.l.MaxImageBytes > 0 && imageBytes > b.l.MaxImageBytes,
		b.l.MaxBytes > 0 && b.allSize+size > b.l.MaxBytes,
		b.l.MaxPDFPages > 0 && pages > b.l.MaxPDFPages:
		return false
	}
	b.images, b.imageBytes, b.pages, b.allSize = images, imageBytes, pages, b.allSize+size
	return true
}

// walk visits the arrays under n, keeping or replacing their media parts; it returns how many it
// replaced or dropped.
func (b *budget) walk(n *node, note *node) int {
	omitted := 0
	switch {
	case n.isObj:
		fields := n.obj[:0:0]
		for _, f := range n.obj {
			if f.key == "parts" && f.val.isArr && n.get("response") != nil { // a Gemini functionResponse: media only
				kept := f.val.arr[:0:0]
				for _, c := range f.val.arr {
					if m := mediaOf(c); c.isObj && m.hasMedia && !b.fits(m) {
						omitted++
						continue
					}
					kept = append(kept, c)
				}
				if f.val.arr = kept; len(kept) == 0 {
					continue // no parts left: the member goes
				}
			} else {
				omitted += b.walk(f.val, note)
			}
			fields = append(fields, f)
		}
		n.obj = fields
	case n.isArr:
		for i, c := range n.arr {
			if !c.isObj {
				continue
			}
			if m := mediaOf(c); m.hasMedia {
				if !b.fits(m) {
					n.arr[i] = note
					omitted++
				}
				continue
			}
			omitted += b.walk(c, note)
		}
	}
	return omitted
}

// noteNode is the dialect's text part holding note.
func (t *Turn) noteNode(note string) *node {
	n, _ := nodeOf(json.RawMessage(strings.Replace(t.Note, `"$text"`, string(marshal(note)), 1)))
	return n
}

var pdfPage = regexp.MustCompile(`/Type\s*/Page\b`)

// pdfPages counts the page objects of a PDF given as base64 (0 when it does not decode): an
// estimate that never undercounts an ordinary PDF, which is all a limit needs.
func pdfPages(b64 string) int {
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return 0
	}
	return len(pdfPage.FindAllIndex(data, -1))
}

// UniqueDocumentNames gives every document of a call's content a name no other call has, for an
// API that refuses a request whose documents share a name (Bedrock Converse: "Messages can't
// contain duplicate document names", across the whole conversation). The name becomes
// "{name} [{call id}]", the call id kept to the characters such names allow; call ids are unique
// in a conversation, so the same PDF read twice gets two names. Content without such documents,
// or a dialect without DocumentName, is returned as it is.
func (t *Turn) UniqueDocumentNames(content json.RawMessage, callID string) json.RawMessage {
	if t.DocumentName == "" || !bytes.Contains(content, []byte(`"`+t.DocumentName+`"`)) {
		return content
	}
	n, err := parseNode(content)
	if err != nil || !n.isArr {
		return content
	}
	id := documentNameChars(callID)
	changed := false
	for _, c := range n.arr {
		doc := c.get(t.DocumentName)
		for i, f := range docFields(doc) {
			if f.key != "name" {
				continue
			}
			base := f.val.str()
			name := base + " [" + id + "]"
			if id == "" || strings.HasSuffix(base, "["+id+"]") {
				continue
			}
			if r := []rune(name); len(r) > maxDocumentName {
				cut := max(maxDocumentName-len([]rune(id))-3, 1)
				name = strings.TrimSpace(string([]rune(base)[:min(cut, len([]rune(base)))])) + " [" + id + "]"
			}
			doc.obj[i].val = &node{raw: marshal(name)}
			changed = true
		}
	}
	if !changed {
		return content
	}
	return n.bytes()
}

// maxDocumentName bounds a document name (Bedrock: 200 characters).
const maxDocumentName = 200

func docFields(n *node) []field {
	if n == nil || !n.isObj {
		return nil
	}
	return n.obj
}

// documentNameChars keeps the characters a Bedrock document name allows that a call id has:
// ASCII letters, digits and hyphens (64 at most).
func documentNameChars(s string) string {
	var b strings.Builder
	for _, r := range s {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' {
			b.WriteRune(r)
		}
		if b.Len() >= 64 {
			break
		}
	}
	return b.String()
}
