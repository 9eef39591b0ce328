package historyimage

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"regexp"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
)

// kept is a medium that stays in the context (a kept turn's), tracked for the request's limits.
type kept struct {
	part  span
	path  string
	media mediaPart
	group *frGroup
	elem  int
}

// keepsTrack reports whether the media that stay are tracked: for the request's limits, and for
// document names that must not repeat within a request (Bedrock's).
func (w *walk) keepsTrack() bool {
	return w.opts.Limits != (contracts.RequestLimits{}) || w.documentName() != ""
}

// documentName is the member of a content block holding a document whose name must be unique
// within a request in the dialect (its table entry's Turn.DocumentName), "" when there is none.
func (w *walk) documentName() string {
	if d, ok := dialects.Lookup(w.opts.Dialect); ok {
		return d.Turn.DocumentName
	}
	return ""
}

// tally is what the media that stay add up to, as the limits count them (sizes on base64).
type tally struct {
	images            int
	imageBytes, bytes int64
	pages             int
}

// fitLimits keeps the request within Options.Limits: while the media that stay are over a limit,
// the oldest of them is taken out like an older turn's (cached, replaced by its placeholder), the
// latest turn's last. When a request has more than ManyImages images, an image whose long edge is
// over ManyImagesMaxEdge is taken out too. A medium that fails its check stays (it is in LeftAlone
// already or will be). Then Bedrock document names are made unique.
func (w *walk) fitLimits() {
	l := w.opts.Limits
	moved := make([]bool, len(w.kept))
	if l != (contracts.RequestLimits{}) {
		var t tally
		pages := make([]int, len(w.kept))
		for i, k := range w.kept {
			if l.MaxPDFPages > 0 && (k.media.mime == "application/pdf" || k.media.kind == contracts.BinaryDocument && k.media.mime == "") {
				pages[i] = pdfPages(k.media.data)
			}
			t.add(k, pages[i], 1)
		}
		for i := range w.kept {
			why := over(l, t)
			if why == "" {
				break
			}
			if w.moveOut(i, why) {
				moved[i] = true
				t.add(w.kept[i], pages[i], -1)
			}
		}
		if l.ManyImages > 0 && l.ManyImagesMaxEdge > 0 && t.images > l.ManyImages {
			for i, k := range w.kept {
				if moved[i] || k.media.kind != contracts.BinaryImage {
					continue
				}
				if _, f := w.check(k.media); f.bad == "" && max(f.info.width, f.info.height) > l.ManyImagesMaxEdge {
					why := fmt.Sprintf("a request of more than %d images takes images of at most %d px a side; this one is %dx%d",
						l.ManyImages, l.ManyImagesMaxEdge, f.info.width, f.info.height)
					moved[i] = w.moveOut(i, why)
				}
			}
		}
	}
	w.uniqueNames(moved)
}

// add adds (sign 1) or takes away (sign -1) a kept medium of pages PDF pages.
func (t *tally) add(k kept, pages, sign int) {
	n := int64(len(k.media.data)) * int64(sign)
	t.bytes += n
	if k.media.kind == contracts.BinaryImage {
		t.images += sign
		t.imageBytes += n
	}
	t.pages += pages * sign
}

// over says which limit the tally is over, "" when none.
func over(l contracts.RequestLimits, t tally) string {
	switch {
	case l.MaxImages > 0 && t.images > l.MaxImages:
		return fmt.Sprintf("the request would carry %d images, over the provider's %d", t.images, l.MaxImages)
	case l.MaxImageBytes > 0 && t.imageBytes > l.MaxImageBytes:
		return fmt.Sprintf("the request's images would be %d bytes of base64, over the provider's %d", t.imageBytes, l.MaxImageBytes)
	case l.MaxBytes > 0 && t.bytes > l.MaxBytes:
		return fmt.Sprintf("the request's media would be %d bytes of base64, over the provider's %d", t.bytes, l.MaxBytes)
	case l.MaxPDFPages > 0 && t.pages > l.MaxPDFPages:
		return fmt.Sprintf("the request's PDFs would have %d pages, over the provider's %d", t.pages, l.MaxPDFPages)
	}
	return ""
}

// moveOut makes the kept medium i a candidate, like an older turn's, and reports why.
func (w *walk) moveOut(i int, why string) bool {
	k := w.kept[i]
	id, f := w.check(k.media)
	if f.bad != "" {
		return false
	}
	w.cands = append(w.cands, candidate{part: k.part, path: k.path, md5: id, found: f, shape: k.media.shape, group: k.group, elem: k.elem})
	w.rep.Stats.MediaOverLimits++
	w.rep.OverLimits = append(w.rep.OverLimits, contracts.LeftAlonePart{Path: k.path, Reason: "taken out: " + why})
	return true
}

// uniqueNames renames the documents that stay whose name an earlier one has, in a dialect whose
// document names must be unique: Bedrock Converse rejects a request whose document names repeat
// ("report", "report (2)", ...).
func (w *walk) uniqueNames(moved []bool) {
	member := w.documentName()
	if member == "" {
		return
	}
	seen := map[string]int{}
	for i, k := range w.kept {
		if moved[i] || !k.media.name.ok() {
			continue
		}
		name, _ := w.doc.str(k.media.name)
		seen[name]++
		if seen[name] == 1 {
			continue
		}
		for seen[fmt.Sprintf("%s (%d)", name, seen[name])] > 0 {
			seen[name]++
		}
		renamed := fmt.Sprintf("%s (%d)", name, seen[name])
		seen[renamed]++
		w.extra = append(w.extra, edit{k.media.name.start, k.media.name.end, []byte(fmt.Sprintf("%q", renamed))})
		w.rep.OverLimits = append(w.rep.OverLimits, contracts.LeftAlonePart{Path: k.path + "." + member + ".name",
			Reason: fmt.Sprintf("renamed %q: Bedrock rejects a request whose document names repeat", renamed)})
	}
}

// pdfPage matches a page object of a PDF ("/Type /Page", not "/Type /Pages").
var pdfPage = regexp.MustCompile(`/Type\s*/Page([^s]|$)`)

// pdfPages counts the pages of a PDF given as base64 by its page objects (0 when the data does not
// decode): enough for a page limit, though objects in compressed streams are not seen.
func pdfPages(data []byte) int {
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(data)))
	n, _ := base64.StdEncoding.Decode(raw, bytes.TrimSpace(data))
	return len(pdfPage.FindAllIndex(raw[:n], -1))
}
