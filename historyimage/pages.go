package historyimage

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
)

// PagesInput is a PDF of a kept turn (Options.KeepTurns) that the target model cannot read as a
// file, for Options.Pages. Options.Pages renders its pages (pdfpages, as tool.get_artifact does)
// and returns the pieces that replace its part: an introduction, then each page's name and text
// layer with its image. They are written in the blocks of the dialect the part was written in
// (Dialect), where the part was: an OpenAI chat file part in a user message becomes text and
// image_url parts; an Anthropic document block in a tool_result, text and image blocks; a Bedrock
// document block, text and image blocks; a Gemini inlineData part, text and inlineData parts
// (inside a functionResponse, whose parts take no text, the images replace it and the texts follow
// the functionResponse part). A PDF in an OpenAI chat tool message, which takes text only, keeps
// Describe's text. Pieces without media (a PDF that is encrypted, has no pages or is damaged) are
// one text that replaces the part instead of Describe's. The PDF is cached under Placeholder all the same, so that the pages left out
// can be fetched with tool.get_history_image.
type PagesInput struct {
	// Data is the PDF (decoded).
	Data []byte
	// Placeholder is [File:history_{md5}]; Filename is as the part named it ("" when it did not).
	Placeholder, Filename string
	// Dialect is the dialect whose blocks the part was written in (contracts.Dialect*).
	Dialect string
}

// pageParts are what replace a PDF's part by its pages: JSON array elements, comma-separated.
type pageParts struct {
	// parts replace the part in its list.
	parts []byte
	// Inside a Gemini functionResponse: images (inlineData parts) replace the part, and texts
	// ({"text"} parts) follow the functionResponse part.
	images, texts []byte
	count         int // page images
	// imageBytes is the page images' base64 together, as the request's limits count them.
	imageBytes int64
	// text, when there are no pages (count 0), is the JSON string that replaces the PDF instead
	// of Describe's: why its pages cannot be shown (encrypted, no pages, damaged).
	text []byte
}

// pageParts are the parts that replace the PDF f (id its MD5) of the kept part mp, or nil when it stays
// described: no Options.Pages, not a PDF, a part whose blocks are not known, a list that takes no
// images, or Options.Pages declined. Each PDF is rendered once per request and shape.
func (w *walk) pageParts(id string, f *found, mp mediaPart, inFuncResp bool) *pageParts {
	if w.opts.Pages == nil || f.info.mime != "application/pdf" || mp.family == "" ||
		mp.family == contracts.DialectOpenAIChat && w.role == roleTool { // a chat tool message takes text only
		return nil
	}
	key := mp.family
	if inFuncResp {
		key += "/functionResponse"
	}
	if p, ok := f.pages[key]; ok {
		return p
	}
	if f.pages == nil {
		f.pages = map[string]*pageParts{}
	}
	p := w.renderPages(id, f, mp, inFuncResp)
	f.pages[key] = p
	return p
}

func (w *walk) renderPages(id string, f *found, mp mediaPart, inFuncResp bool) *pageParts {
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(mp.data)))
	n, err := base64.StdEncoding.Decode(raw, mp.data) // checked by inspect: it decodes
	if err != nil {
		return nil
	}
	pieces, ok := w.opts.Pages(w.ctx, PagesInput{Data: raw[:n], Placeholder: FilePlaceholder(id), Filename: f.part.filename, Dialect: mp.family})
	count, imageBytes := 0, int64(0)
	for _, p := range pieces {
		if p.Media.Kind != "" {
			count++
			imageBytes += int64(len(p.Media.Data))
		}
	}
	if !ok || len(pieces) == 0 {
		return nil
	}
	if count == 0 { // no pages to show: the pieces' text says why
		texts := make([]string, 0, len(pieces))
		for _, p := range pieces {
			texts = append(texts, p.Text)
		}
		t, _ := json.Marshal(strings.Join(texts, "\n")) // a string always encodes
		return &pageParts{text: t}
	}
	d := dialects.Get(mp.family)
	out := &pageParts{count: count, imageBytes: imageBytes}
	switch {
	case inFuncResp:
		var fr struct {
			Parts []json.RawMessage `json:"parts"`
		}
		if json.Unmarshal(d.ToolContentOf(pieces), &fr) != nil || len(fr.Parts) == 0 {
			return nil
		}
		images := make([][]byte, len(fr.Parts))
		for i, p := range fr.Parts {
			images[i] = p
		}
		out.images = bytes.Join(images, []byte{','})
		var texts [][]byte
		for _, p := range pieces {
			if p.Text != "" {
				t, _ := json.Marshal(p.Text) // a string always encodes
				texts = append(texts, textPart(bareText, t))
			}
		}
		out.texts = bytes.Join(texts, []byte{','})
	case mp.family == contracts.DialectOpenAIChat || mp.family == contracts.DialectGemini:
		// the blocks of a user message (a follow-up's), where these take media
		m := d.FollowUpOf(pieces)
		out.parts = inner(m.Content)
		if len(m.Parts) > 0 {
			out.parts = inner(m.Parts)
		}
	default:
		out.parts = inner(d.ToolContentOf(pieces))
	}
	if len(out.parts) == 0 && len(out.images) == 0 {
		return nil
	}
	return out
}

// inner is the elements of the JSON array list, without its brackets.
func inner(list json.RawMessage) []byte {
	l := bytes.TrimSpace(list)
	if len(l) < 2 || l[0] != '[' {
		return nil
	}
	return bytes.TrimSpace(l[1 : len(l)-1])
}
