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

// fixed is a medium that stays and cannot be taken out, and why.
type fixed struct {
	path  string
	media mediaPart
	why   string
}

// stays records a medium that cannot be taken out, when the request's limits are kept.
func (w *walk) stays(path string, mp mediaPart, why string) {
	if w.opts.Limits != (contracts.RequestLimits{}) {
		w.fixed = append(w.fixed, fixed{path: path, media: mp, why: why})
	}
}

// tooLarge says why a medium is over Options.MaxPartBytes, "" when it is not.
func (w *walk) tooLarge(mp mediaPart) string {
	if max := w.opts.MaxPartBytes; max > 0 && int64(decodedLen(mp.data)) > max {
		return fmt.Sprintf("%d bytes, over the limit of %d", decodedLen(mp.data), max)
	}
	return ""
}

// The limits a tally is checked against, in the order they are reported.
const (
	limitImages = iota
	limitImageBytes
	limitBytes
	limitPages
	nLimits
)

// fitLimits keeps the request within Options.Limits: while the media that stay are over a limit
// that taking media out can meet (the media that cannot be taken out are within it), the oldest
// medium that counts toward it is taken out like an older turn's (cached, replaced by its
// placeholder), the latest turn's last. When a request has more than ManyImages images, an image
// whose long edge is over ManyImagesMaxEdge is taken out too. A medium over MaxPartBytes or failing
// its check cannot be taken out: it stays, counted (reportStaying lists it when it breaks a
// limit). Then Bedrock document names are made unique.
func (w *walk) fitLimits() {
	l := w.opts.Limits
	moved := make([]bool, len(w.kept))
	if l != (contracts.RequestLimits{}) {
		var all, stuck tally // every medium that stays; those that cannot be taken out
		pages := make([]int, len(w.kept))
		for i, k := range w.kept {
			pages[i] = w.pages(k.media)
			all.add(k.media, pages[i], 1)
		}
		for _, f := range w.fixed {
			n := w.pages(f.media)
			all.add(f.media, n, 1)
			stuck.add(f.media, n, 1)
		}
		for _, c := range w.drawn() { // page images are placed whatever the limits: they stay
			all.addDrawn(c.pages)
			stuck.addDrawn(c.pages)
		}
		held := make([]bool, len(w.kept)) // kept media that cannot be taken out
		var spent [nLimits]bool           // limits no medium left can bring the request within
		for {
			limit, why := -1, ""
			for n := range nLimits {
				if why = over(l, all, n, "would"); why != "" && !spent[n] && over(l, stuck, n, "would") == "" {
					limit = n
					break
				}
			}
			if limit < 0 {
				break
			}
			i := -1
			for j, k := range w.kept { // the oldest medium that can still go and counts toward it
				if !moved[j] && !held[j] && counts(k.media, pages[j], limit) {
					i = j
					break
				}
			}
			if i < 0 {
				spent[limit] = true
				continue
			}
			k := w.kept[i]
			if w.tooLarge(k.media) == "" && w.moveOut(i, why) {
				moved[i] = true
				all.add(k.media, pages[i], -1)
			} else {
				held[i] = true
				stuck.add(k.media, pages[i], 1)
			}
		}
		if l.ManyImages > 0 && l.ManyImagesMaxEdge > 0 && all.images > l.ManyImages {
			for i, k := range w.kept {
				if moved[i] || k.media.kind != contracts.BinaryImage || w.tooLarge(k.media) != "" {
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
	w.moved = moved
	w.uniqueNames(moved)
}

// pages is the PDF page count of a medium when a page limit is kept.
func (w *walk) pages(mp mediaPart) int {
	if w.opts.Limits.MaxPDFPages > 0 && (mp.mime == "application/pdf" || mp.kind == contracts.BinaryDocument && mp.mime == "") {
		return pdfPages(mp.data)
	}
	return 0
}

// counts reports whether a medium of pages PDF pages counts toward the limit.
func counts(mp mediaPart, pages, limit int) bool {
	switch limit {
	case limitImages, limitImageBytes:
		return mp.kind == contracts.BinaryImage
	case limitPages:
		return pages > 0
	}
	return true
}

// reportStaying lists in OverLimits, once the cache writes are done, each medium that stays
// although it could not be taken out (over MaxPartBytes, failing its check, its cache write
// failed) while what stays is over a limit it counts toward; a medium taken out for a limit whose
// cache write failed is listed as left in instead.
func (w *walk) reportStaying() {
	l := w.opts.Limits
	if l == (contracts.RequestLimits{}) {
		return
	}
	var all tally
	type staying struct {
		path, why string
		media     mediaPart
		pages     int
		drawn     bool // a PDF's page images: they count as images, not as the PDF
		entry     int  // its OverLimits entry, -1 for none
	}
	var stuck, later []staying
	for i, k := range w.kept {
		if !w.moved[i] {
			all.add(k.media, w.pages(k.media), 1)
		}
	}
	for _, f := range w.fixed {
		n := w.pages(f.media)
		all.add(f.media, n, 1)
		later = append(later, staying{path: f.path, why: f.why, media: f.media, pages: n, entry: -1})
	}
	for _, c := range w.drawn() {
		all.addDrawn(c.pages)
		why := fmt.Sprintf("its pages drawn as %d images, %d bytes of base64", c.pages.count, c.pages.imageBytes)
		later = append(later, staying{path: c.path, why: why, drawn: true, entry: -1})
	}
	anyOver := false
	for n := range nLimits {
		anyOver = anyOver || over(l, all, n, "is") != ""
	}
	if anyOver { // the kept media that could not be taken out (their check runs only now)
		for i, k := range w.kept {
			if w.moved[i] {
				continue
			}
			why := w.tooLarge(k.media)
			if why == "" {
				_, f := w.check(k.media)
				why = f.bad
			}
			if why != "" {
				stuck = append(stuck, staying{path: k.path, why: why, media: k.media, pages: w.pages(k.media), entry: -1})
			}
		}
	}
	stuck = append(stuck, later...)
	for i := range w.cands {
		c := &w.cands[i]
		if c.found.stored || c.describe {
			continue
		}
		n := w.pages(c.found.part)
		all.add(c.found.part, n, 1)
		entry := -1
		if c.overLimit {
			entry = c.overIdx
			w.rep.Stats.MediaOverLimits--
		}
		stuck = append(stuck, staying{path: c.path, why: "its cache write failed", media: c.found.part, pages: n, entry: entry})
	}
	for _, s := range stuck {
		reason := ""
		for n := range nLimits {
			if why := over(l, all, n, "is"); why != "" && (s.drawn && n != limitPages || !s.drawn && counts(s.media, s.pages, n)) {
				reason = "left in (" + s.why + "): " + why
				break
			}
		}
		switch {
		case s.entry >= 0:
			if reason == "" {
				reason = "left in (" + s.why + ")"
			}
			w.rep.OverLimits[s.entry].Reason = reason
		case reason != "":
			w.rep.OverLimits = append(w.rep.OverLimits, contracts.LeftAlonePart{Path: s.path, Reason: reason})
		}
	}
}

// add adds (sign 1) or takes away (sign -1) a medium of pages PDF pages.
func (t *tally) add(mp mediaPart, pages, sign int) {
	n := int64(len(mp.data)) * int64(sign)
	t.bytes += n
	if mp.kind == contracts.BinaryImage {
		t.images += sign
		t.imageBytes += n
	}
	t.pages += pages * sign
}

// addDrawn adds a PDF's page images (pageParts), which replace the PDF in the request.
func (t *tally) addDrawn(p *pageParts) {
	t.images += p.count
	t.imageBytes += p.imageBytes
	t.bytes += p.imageBytes
}

// drawn are the candidates whose PDF is replaced by its page images (Options.Pages), one per
// place (a PDF met twice places its pages twice).
func (w *walk) drawn() []*candidate {
	var out []*candidate
	for i := range w.cands {
		if c := &w.cands[i]; c.pages != nil {
			out = append(out, c)
		}
	}
	return out
}

// over says why the tally is over the limit (limitImages, ...), "" when it is not; verb is "would"
// (would carry, would be) or "is" (carries, are).
func over(l contracts.RequestLimits, t tally, limit int, verb string) string {
	carry, be, have := "would carry", "would be", "would have"
	if verb == "is" {
		carry, be, have = "carries", "are", "have"
	}
	switch {
	case limit == limitImages && l.MaxImages > 0 && t.images > l.MaxImages:
		return fmt.Sprintf("the request %s %d images, over the provider's %d", carry, t.images, l.MaxImages)
	case limit == limitImageBytes && l.MaxImageBytes > 0 && t.imageBytes > l.MaxImageBytes:
		return fmt.Sprintf("the request's images %s %d bytes of base64, over the provider's %d", be, t.imageBytes, l.MaxImageBytes)
	case limit == limitBytes && l.MaxBytes > 0 && t.bytes > l.MaxBytes:
		return fmt.Sprintf("the request's media %s %d bytes of base64, over the provider's %d", be, t.bytes, l.MaxBytes)
	case limit == limitPages && l.MaxPDFPages > 0 && t.pages > l.MaxPDFPages:
		return fmt.Sprintf("the request's PDFs %s %d pages, over the provider's %d", have, t.pages, l.MaxPDFPages)
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
	w.cands = append(w.cands, candidate{part: k.part, path: k.path, md5: id, found: f, shape: k.media.shape, group: k.group, elem: k.elem,
		overLimit: true, overIdx: len(w.rep.OverLimits)})
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
