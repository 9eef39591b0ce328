package historyimage

import (
	"cmp"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/internal/rawjson"
)

// Image is a cached history medium (an image, or a document, audio or video: the name stays from
// the time it held images only): the base64 text exactly as it appeared in the context (its MD5 is
// the id), the media type its bytes were detected as, and the filename the part gave, if any.
type Image struct {
	Data     string `json:"data"`
	MimeType string `json:"mime_type"`
	Filename string `json:"filename,omitempty"`
}

// Size is the number of bytes Data decodes to. Data is standard base64 (CR and LF ignored), as
// Preprocess checks before it caches an image.
func (img Image) Size() int64 { return int64(decodedLen(img.Data)) }

// Head decodes the first n bytes of the image (all of them when it has fewer), without decoding
// the rest: enough to read its headers.
func (img Image) Head(n int) ([]byte, error) {
	head := make([]byte, max(0, min(int64(n), img.Size())))
	if _, err := io.ReadFull(base64.NewDecoder(base64.StdEncoding, strings.NewReader(img.Data)), head); err != nil {
		return nil, fmt.Errorf("historyimage: %s image: %w", img.MimeType, err)
	}
	return head, nil
}

// Putter stores an image under the hex MD5 of its base64 text. Put must be idempotent: Preprocess
// writes an image again every time it meets it in an older turn. *Cache implements it.
type Putter interface {
	Put(ctx context.Context, md5 string, img Image) error
}

// RawPutter is a Putter that can also store base64 text given as bytes (img.Data is then empty
// and ignored): preprocessing uses it when the cache has it, to store a medium straight from the
// context's bytes without copying it into a string. data must not be kept after PutRaw returns.
type RawPutter interface {
	Putter
	PutRaw(ctx context.Context, md5 string, data []byte, img Image) error
}

// DefaultKeepTurns is how many of the latest turns keep their media by default: the latest one.
const DefaultKeepTurns = 1

// Options configures PreprocessWith. The zero value is Preprocess's: any dialect's shapes, the
// latest turn keeps its media... except that KeepTurns 0 keeps none; use DefaultKeepTurns.
type Options struct {
	// Dialect is the shape the context must have: one of contracts.Dialects, or "" for any of
	// them (and the [role, content] pairs and objects context.preprocess has always taken). A
	// context not in that shape is an *InvalidContextError naming the place.
	Dialect string
	// KeepTurns is how many of the latest turns keep their media (0: none). A turn is what one
	// model call adds to the context: a person's message, or the tool results and follow-up
	// messages after a model message. The latest person's message keeps its media too when
	// KeepTurns is at least 1.
	KeepTurns int
	// Readable reports whether the model that will read the context takes media of a kind
	// (contracts.BinaryImage, BinaryDocument, BinaryAudio, BinaryVideo). Nil: every kind. Media of
	// a kind it does not take is replaced wherever it is, the latest turn included, by Describe's
	// text, and cached so that a model that can read it may fetch it back.
	Readable func(kind string) bool
	// Describe writes the text that replaces media the model cannot read; nil gives the
	// placeholder alone.
	Describe func(Described) string
	// Pages, when set, answers a PDF in a kept turn (the latest, KeepTurns) that Readable rejects
	// with its pages as images: see PagesInput. Nil: such a PDF is described (Describe).
	Pages func(ctx context.Context, in PagesInput) (pieces []dialects.Piece, ok bool)
	// MaxPartBytes is the largest medium, in decoded bytes, that is taken out (0: no limit); a
	// larger part stays where it is and is reported.
	MaxPartBytes int64
	// Known, when set, remembers the media already checked (decoded and sniffed) by earlier calls.
	Known *Known
	// Limits are the target provider's limits across one request (images, bytes, PDF pages,
	// smaller images when there are many). The media kept by KeepTurns are taken out too, oldest
	// first, as far as the request needs to be within them; each is listed in Report.OverLimits.
	// Every medium that stays counts, also one that cannot be taken out (over MaxPartBytes,
	// failing its check, a failed cache write): when the request is still over a limit, each of
	// those that counts toward it is listed in Report.OverLimits ("left in: ..."). A PDF replaced
	// by its pages (Pages) counts as its page images, which stay. The zero value sets none.
	Limits contracts.RequestLimits
	// ImageTokens is what the target model's provider charges for an image of w x h pixels
	// (routing.ImageTokens with the provider's rule), for Stats.TokensSavedEstimate. Nil: the
	// lower of OpenAI's and Anthropic's charges, for a context whose target is not known.
	ImageTokens func(w, h int) int64
	Logger      *slog.Logger
}

// Described is a medium the model cannot read, for Options.Describe.
type Described struct {
	// Placeholder is what fetches it back: [Picture:history_{md5}] or [File:history_{md5}].
	Placeholder string
	Filename    string // as the part named it; "" when it did not
	MIME        string // detected from its bytes
	Kind        string // contracts.BinaryImage, ...
	Size        int64  // decoded bytes
}

// Report is what PreprocessWith did besides the rewrite.
type Report struct {
	Stats contracts.PreprocessStats
	// LeftAlone lists the parts left as they were although they were looked at: malformed, a
	// declared type the bytes contradict, an unknown part type, over MaxPartBytes.
	LeftAlone []contracts.LeftAlonePart
	// OverLimits lists what was done to keep the request within Options.Limits: media of the kept
	// turns taken out, Bedrock document names made unique; and the media that could not be taken
	// out while the request is over a limit they count toward.
	OverLimits []contracts.LeftAlonePart
}

// Preprocess is PreprocessWith with the options context.preprocess has always had: any dialect,
// the latest turn keeps its media, every kind readable, no size limit.
func Preprocess(ctx context.Context, messages json.RawMessage, cache Putter, logger *slog.Logger) (json.RawMessage, contracts.PreprocessStats, error) {
	out, rep, err := PreprocessWith(ctx, messages, cache, Options{KeepTurns: DefaultKeepTurns, Logger: logger})
	return out, rep.Stats, err
}

// PreprocessWith moves inline media out of the older turns of a conversation context.
//
// messages is a JSON list of messages in the shape of opts.Dialect (see Options.Dialect): [role,
// content] pairs, objects with a role and content (OpenAI chat, Anthropic, Bedrock Converse,
// LangChain dicts), OpenAI Responses input items, Gemini contents with parts. Media is found in
// the content of person's messages, the worker's own follow-up messages (see routing.Assemble), and
// tool results: tool messages, Anthropic tool_result content, Responses function_call_output
// output, Gemini functionResponse parts, Bedrock toolResult content (see classify for every part
// shape). Model and system messages keep their media unless the model cannot read it.
//
// In every turn older than the latest opts.KeepTurns (and not the latest person's message), each
// media part carrying inline base64 whose bytes are media (routing.Detect on the decoded bytes, as
// tool.get_artifact detects) of the kind the part declares is stored through cache under the hex
// MD5 of its base64 text, with the detected MIME type, and replaced by a text part of the same API
// family ({"type":"text"}, {"type":"input_text"} or {"text"}) holding "[Picture:history_{md5}]"
// for an image and "[File:history_{md5}]" for other media. Inside a Gemini functionResponse, whose
// parts take no text, the part is removed from functionResponse.parts and the text part follows
// the functionResponse part in the same content: the functionResponse keeps its name, id and
// response. A tool_result keeps its tool_use_id, a toolResult its toolUseId: only parts change.
//
// Media whose kind opts.Readable rejects is replaced, wherever it is, by opts.Describe's text.
//
// A part that is malformed (no data, a data URL that is not base64, base64 that does not decode), whose bytes are
// not media or not of the declared kind (image/png bytes that are a PDF; within a kind the bytes
// decide the type: a PNG labelled image/jpeg is cached as image/png), of an unknown type, or
// larger than opts.MaxPartBytes stays byte for byte as it came and is listed in LeftAlone with its
// path and why (and counted in Stats.PartsSkipped). Everything else stays byte for byte as it
// came: other parts, other members, whitespace, key order, references (URLs, file ids) and existing
// placeholders. A medium met several times is written once per call and gets the same placeholder
// each time. The result may alias messages when nothing was replaced.
//
// Media are written to the cache a few at a time (putsInFlight). A failed cache write leaves that part in place (a medium the model cannot read is described all
// the same): it is logged at Warn with image_md5 and counted in Stats.CacheFailures. If ctx ends,
// the error wraps ctx.Err().
//
// Errors: *InvalidContextError (errors.As) for a context not in the dialect's shape; ctx.Err(),
// wrapped. One bad part never rejects the context.
//
// Memory: the input is validated and walked in place (no decoded copy of the document), base64 is
// checked through a streaming decoder (no decoded copy of a medium), and the output is written
// into one buffer of exactly the right size. Besides that buffer, each distinct medium that is
// cached is copied once, for the duration of its Put: into the KV entry by a RawPutter (*Cache),
// into the string Image.Data for any other Putter.
//
// cache must not be nil. PreprocessWith is safe for concurrent use if cache is.
func PreprocessWith(ctx context.Context, messages json.RawMessage, cache Putter, opts Options) (json.RawMessage, Report, error) {
	var rep Report
	if err := ctx.Err(); err != nil {
		return nil, rep, fmt.Errorf("historyimage: preprocess: %w", err)
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	doc := rawJSON(messages)
	if err := checkList(doc); err != nil {
		return nil, rep, err
	}
	msgs, err := doc.messages(opts.Dialect)
	if err != nil {
		return nil, rep, err
	}
	latest, lastHuman := 0, -1
	for i := range msgs {
		latest = max(latest, msgs[i].turn)
		if msgs[i].human {
			lastHuman = i
		}
	}

	w := walk{doc: doc, opts: opts, seen: map[string]*found{}, ctx: ctx, logger: logger, rep: &rep}
	for i := range msgs {
		m := &msgs[i]
		w.role = m.role
		older := m.role != roleModel && m.role != roleSystem && m.turn <= latest-opts.KeepTurns &&
			!(i == lastHuman && opts.KeepTurns >= 1)
		if !older && opts.Readable == nil && !w.keepsTrack() {
			continue
		}
		for _, l := range m.lists {
			w.list(l.s, l.path, older, nil, 0)
		}
	}

	w.fitLimits()
	w.store(ctx, cache, logger)
	if ctx.Err() != nil {
		return nil, rep, fmt.Errorf("historyimage: preprocess: storing media: %w", ctx.Err())
	}
	w.reportStaying()

	edits := w.edits()
	if len(edits) == 0 {
		return messages, rep, nil
	}
	size := len(doc)
	for _, e := range edits {
		size += len(e.text) - (e.end - e.start)
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, e := range edits {
		out = append(out, doc[prev:e.start]...)
		out = append(out, e.text...)
		prev = e.end
	}
	out = append(out, doc[prev:]...)
	return out, rep, nil
}

// putsInFlight is how many cache writes of one request are in flight at once: a write waits for
// JetStream's acknowledgement, and several in flight overlap those waits (and the server's work
// with this goroutine's).
const putsInFlight = 4

// store writes each distinct medium of the candidates once, putsInFlight at a time, and marks
// those stored. A failed write is logged; the medium stays in the context.
func (w *walk) store(ctx context.Context, cache Putter, logger *slog.Logger) {
	var todo []*candidate
	for i := range w.cands {
		if c := &w.cands[i]; !c.found.tried {
			c.found.tried = true
			todo = append(todo, c)
		}
	}
	put := func(c *candidate) {
		f := c.found
		var err error
		if rp, ok := cache.(RawPutter); ok {
			err = rp.PutRaw(ctx, c.md5, f.part.data, Image{MimeType: f.info.mime, Filename: f.part.filename})
		} else {
			err = cache.Put(ctx, c.md5, Image{Data: string(f.part.data), MimeType: f.info.mime, Filename: f.part.filename})
		}
		if err == nil {
			f.stored = true
			return
		}
		if ctx.Err() == nil {
			logger.WarnContext(ctx, "history image cache write failed; image left in context",
				slog.String("image_md5", c.md5), slog.Any("error", err))
		}
	}
	if len(todo) <= 1 {
		for _, c := range todo {
			put(c)
		}
		return
	}
	jobs := make(chan *candidate)
	var wg sync.WaitGroup
	for range min(putsInFlight, len(todo)) {
		wg.Go(func() {
			for c := range jobs {
				if ctx.Err() == nil {
					put(c)
				}
			}
		})
	}
	for _, c := range todo {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
}

// found is one distinct medium of a request.
type found struct {
	part   mediaPart
	info   imageInfo
	bad    string // why it cannot be taken out, "" when it can
	tried  bool   // Put was called
	stored bool   // Put succeeded
	// pages are its pages as images (Options.Pages), by the blocks they are written in; nil
	// when they cannot be.
	pages map[string]*pageParts
}

// candidate is an occurrence of a medium to replace.
type candidate struct {
	part     span
	path     string
	md5      string
	found    *found
	shape    textShape
	describe bool     // the model cannot read it: described, not only a placeholder
	group    *frGroup // set inside a Gemini functionResponse
	elem     int      // its index in group.elems
	// overLimit: taken out for a limit; overIdx is its entry in Report.OverLimits.
	overLimit bool
	overIdx   int
	// pages, when set, replace the medium instead of the description (Options.Pages); alt, when
	// set, is the JSON string that replaces it instead of the description.
	pages *pageParts
	alt   []byte
}

// frGroup is the parts list of a Gemini functionResponse some of whose parts are candidates.
type frGroup struct {
	list   span   // functionResponse.parts
	member span   // the whole "parts" member, removed when no part is left
	elems  []span // its elements
	after  int    // the end of the part holding the functionResponse: where text parts go
	texts  [][]byte
	gone   []bool // elements replaced
	// pages: the element is replaced by page images (texts holds their text parts, which follow)
	pages  []*pageParts
	edited bool
}

// walk collects the candidates of a context.
type walk struct {
	doc    rawJSON
	opts   Options
	seen   map[string]*found
	cands  []candidate
	ctx    context.Context
	logger *slog.Logger
	rep    *Report
	kept   []kept // media that stay, in document order, when the request's limits are kept
	// fixed are the media that stay and cannot be taken out (over MaxPartBytes, failing their
	// check), counted against the request's limits all the same.
	fixed []fixed
	moved []bool // the kept media fitLimits took out
	extra []edit // edits besides the candidates' (Bedrock document names)
	role  string // the canonical role of the message being walked
}

// list scans the parts list at s. older is set in turns whose media goes; group is set inside
// a Gemini functionResponse; depth counts tool results entered.
func (w *walk) list(s span, path string, older bool, group *frGroup, depth int) {
	_ = w.doc.elems(s.start, func(k, start, end int) error {
		part := span{start, end}
		p := w.doc.classify(part, fmt.Sprintf("%s[%d]", path, k))
		switch p.class {
		case partMedia:
			w.media(part, fmt.Sprintf("%s[%d]", path, k), p.media, older, group, k)
		case partBad, partUnknown:
			w.leave(fmt.Sprintf("%s[%d]", path, k), p.reason)
		case partToolResult:
			if p.nested.ok() && depth == 0 {
				w.list(p.nested, p.nestedPath, older, nil, depth+1)
			}
		case partFuncResp:
			if p.nested.ok() && depth == 0 && group == nil {
				g := &frGroup{list: p.nested, member: p.member, after: end}
				_ = w.doc.elems(p.nested.start, func(_, start, end int) error {
					g.elems = append(g.elems, span{start, end})
					return nil
				})
				g.texts, g.gone, g.pages = make([][]byte, len(g.elems)), make([]bool, len(g.elems)), make([]*pageParts, len(g.elems))
				w.list(p.nested, p.nestedPath, older, g, depth+1)
			}
		}
		return nil
	})
}

// media decides what becomes of one media part.
func (w *walk) media(part span, path string, mp mediaPart, older bool, group *frGroup, elem int) {
	readable := func(kind string) bool { return w.opts.Readable == nil || w.opts.Readable(kind) }
	if !older && mp.kind != "" && readable(mp.kind) {
		if w.keepsTrack() {
			w.kept = append(w.kept, kept{part: part, path: path, media: mp, group: group, elem: elem})
		}
		return // kept, and the model reads its kind: not decoded here
	}
	if why := w.tooLarge(mp); why != "" {
		w.leave(path, why)
		w.stays(path, mp, why)
		return
	}
	id, f := w.check(mp)
	if f.bad != "" {
		w.leave(path, f.bad)
		w.stays(path, mp, f.bad)
		return
	}
	describe := !readable(f.info.kind)
	if !older && !describe {
		if w.keepsTrack() {
			w.kept = append(w.kept, kept{part: part, path: path, media: mp, group: group, elem: elem})
		}
		return
	}
	c := candidate{part: part, path: path, md5: id, found: f, shape: mp.shape, describe: describe, group: group, elem: elem}
	if describe && !older {
		if c.pages = w.pageParts(id, f, mp, group != nil); c.pages != nil && c.pages.count == 0 {
			c.pages, c.alt = nil, c.pages.text // no pages: their text says why
		}
	}
	w.cands = append(w.cands, c)
}

// check hashes a medium and checks it once per request (decoded and sniffed, or known from an
// earlier request): f.bad says why it cannot be taken out.
func (w *walk) check(mp mediaPart) (string, *found) {
	sum := md5.Sum(mp.data)
	id := hex.EncodeToString(sum[:])
	f := w.seen[id]
	if f == nil {
		f = &found{part: mp}
		info, known := w.opts.Known.get(id, len(mp.data))
		var err error
		if !known {
			info, err = inspect(mp.data)
		}
		f.info = info
		switch {
		case err != nil:
			f.bad = err.Error()
		case !isMedia(info.kind) && mp.kind == contracts.BinaryImage:
			f.bad = fmt.Sprintf("its data is not an image (detected %s)", info.mime)
		case !isMedia(info.kind):
			f.bad = fmt.Sprintf("its data is not media (detected %s)", info.mime)
		case mp.kind != "" && mp.kind != info.kind:
			f.bad = fmt.Sprintf("declared %s, but its bytes are %s", declared(mp), info.mime)
		case !known:
			w.opts.Known.add(id, len(mp.data), info)
		}
		w.seen[id] = f
	}
	return id, f
}

func isMedia(kind string) bool {
	switch kind {
	case contracts.BinaryImage, contracts.BinaryDocument, contracts.BinaryAudio, contracts.BinaryVideo:
		return true
	}
	return false
}

func declared(mp mediaPart) string {
	if mp.mime != "" {
		return mp.mime
	}
	return "a part of kind " + mp.kind
}

// leave reports a part left as it was.
func (w *walk) leave(path, why string) {
	w.rep.Stats.PartsSkipped++
	w.rep.LeftAlone = append(w.rep.LeftAlone, contracts.LeftAlonePart{Path: path, Reason: why})
	w.logger.DebugContext(w.ctx, "history image part left in context", slog.String("path", path), slog.String("reason", why))
}

// edit replaces doc[start:end] by text.
type edit struct {
	start, end int
	text       []byte
}

// edits turns the candidates whose medium was stored (or that are described) into edits, in
// document order, and counts them.
func (w *walk) edits() []edit {
	st := &w.rep.Stats
	var out []edit
	for i := range w.cands {
		c := &w.cands[i]
		f := c.found
		if !f.stored {
			st.CacheFailures++
			if !c.describe {
				continue
			}
		}
		text := w.text(c)
		if f.info.kind == contracts.BinaryImage {
			st.ImagesReplaced++
			st.TokensSavedEstimate += w.tokensSaved(f.info.width, f.info.height, c.describe, text)
		} else {
			st.FilesReplaced++
		}
		switch {
		case c.pages != nil:
			st.PDFPages += c.pages.count
		case c.describe:
			st.MediaDescribed++
		}
		st.BytesRemoved += int64(len(f.part.data))
		if g := c.group; g != nil {
			g.texts[c.elem], g.gone[c.elem] = text, true
			if c.pages != nil {
				g.texts[c.elem], g.pages[c.elem] = c.pages.texts, c.pages
			}
			continue
		}
		if c.pages != nil {
			out = append(out, edit{c.part.start, c.part.end, c.pages.parts})
			continue
		}
		out = append(out, edit{c.part.start, c.part.end, textPart(c.shape, text)})
	}
	// A functionResponse's parts are rewritten whole, and the texts follow its part.
	for i := range w.cands {
		g := w.cands[i].group
		if g == nil || g.edited {
			continue
		}
		g.edited = true
		list := []byte{'['}
		var texts []byte
		for k, e := range g.elems {
			if g.gone[k] && g.pages[k] != nil {
				if len(g.texts[k]) > 0 {
					texts = append(texts, ',')
					texts = append(texts, g.texts[k]...)
				}
				if len(list) > 1 {
					list = append(list, ',')
				}
				list = append(list, g.pages[k].images...)
				continue
			}
			if g.gone[k] {
				texts = append(texts, ',')
				texts = append(texts, textPart(bareText, g.texts[k])...)
				continue
			}
			if len(list) > 1 {
				list = append(list, ',')
			}
			list = append(list, w.doc[e.start:e.end]...)
		}
		if texts == nil {
			continue
		}
		list = append(list, ']')
		if len(list) == 2 { // no part left: the member goes (the SDKs drop an empty parts list)
			out = append(out, w.removeMember(g.member), edit{g.after, g.after, texts})
			continue
		}
		out = append(out, edit{g.list.start, g.list.end, list}, edit{g.after, g.after, texts})
	}
	out = append(out, w.extra...)
	slices.SortStableFunc(out, func(a, b edit) int { return cmp.Compare(a.start, b.start) })
	return out
}

// removeMember is the edit that removes the object member at m (key to value) with its comma.
func (w *walk) removeMember(m span) edit {
	j := m.start - 1
	for j > 0 && rawjson.IsSpace(w.doc[j]) {
		j--
	}
	if w.doc[j] == ',' {
		return edit{j, m.end, nil}
	}
	k := w.doc.skipSpace(m.end)
	if w.doc[k] == ',' {
		return edit{m.start, w.doc.skipSpace(k + 1), nil}
	}
	return edit{m.start, m.end, nil}
}

// text is the JSON string that replaces the candidate's medium.
func (w *walk) text(c *candidate) []byte {
	if c.alt != nil {
		return c.alt
	}
	f := c.found
	ph := Placeholder(c.md5)
	if f.info.kind != contracts.BinaryImage {
		ph = FilePlaceholder(c.md5)
	}
	s := ph
	if c.describe && w.opts.Describe != nil {
		s = w.opts.Describe(Described{Placeholder: ph, Filename: f.part.filename, MIME: f.info.mime, Kind: f.info.kind, Size: int64(decodedLen(f.part.data))})
	}
	b, _ := json.Marshal(s) // a string always encodes
	return b
}

// textPart is the text part of a shape around the JSON string text.
func textPart(shape textShape, text []byte) []byte {
	var prefix string
	switch shape {
	case inputText:
		prefix = `{"type":"input_text","text":`
	case bareText:
		prefix = `{"text":`
	default:
		prefix = `{"type":"text","text":`
	}
	b := make([]byte, 0, len(prefix)+len(text)+1)
	b = append(b, prefix...)
	b = append(b, text...)
	return append(b, '}')
}
