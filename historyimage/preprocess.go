package historyimage

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/rawjson"
)

// Image is a cached history image: the base64 text exactly as it appeared in the context (its MD5 is
// the image id) and its media type.
type Image struct {
	Data     string `json:"data"`
	MimeType string `json:"mime_type"`
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

// Preprocess moves the inline images of older human turns out of a conversation context.
//
// messages is a JSON list of messages, each either a [role, content] pair (LangChain style) or an
// object with a "role" (all its other members are kept). Roles "human" and "user" are human turns,
// except a user message whose content is only Anthropic tool_result blocks: that is a tool's answer,
// not a turn of the person, and is left alone like tool messages. Content is a string or a list of
// parts.
//
// In every human turn but the last, each image part carrying inline base64 data (OpenAI image_url
// with a data: URL, Anthropic base64 source, LangChain base64 blocks; see inlineImagePart) whose
// bytes are an image (routing.Detect on the decoded bytes, the detector of tool.get_artifact; the
// part's label is not believed) is stored through cache under the hex MD5 of its base64 text, with
// the detected MIME type, and replaced by the text part
// {"type":"text","text":"[Picture:history_{md5}]"}. An image part of those turns that is malformed
// (no data, a data URL that is not base64, base64 that does not decode) or whose bytes are not an
// image stays byte for byte as it came and is counted in stats.PartsSkipped (logged at Debug with
// its path and reason), as design document 002 passes such parts through. An image met several times is written once per
// call and gets the same placeholder each time. Everything else stays byte for byte as it came:
// other parts, other members, whitespace, key order, the last human turn, non-human messages, image
// references (http(s) URLs, file ids) and existing placeholders. The result may alias messages when
// nothing was replaced.
//
// A failed cache write leaves that image in place: it is logged (at Warn, with image_md5 and the
// error) and counted per image part in stats.CacheFailures; nothing is lost. If ctx ends, the error
// wraps ctx.Err() instead.
//
// Errors: *InvalidContextError (use errors.As) for a context that is not a list of messages (not a
// JSON list, a message that is neither a [role, content] pair nor an object with a string role, a
// human turn whose content is neither a string nor a list); ctx.Err(), wrapped, when the context is
// cancelled. One bad part never rejects the context.
//
// Memory: the input is validated and walked in place (no decoded copy of the document), base64 is
// checked through a streaming decoder (no decoded copy of an image), and the output is written into
// one buffer of exactly the right size. Besides that buffer, each distinct image that is cached is
// copied once, for the duration of its Put, into the string Image.Data.
//
// cache must not be nil; logger may be nil. Preprocess is safe for concurrent use if cache is.
func Preprocess(ctx context.Context, messages json.RawMessage, cache Putter, logger *slog.Logger) (json.RawMessage, contracts.PreprocessStats, error) {
	var stats contracts.PreprocessStats
	if err := ctx.Err(); err != nil {
		return nil, stats, fmt.Errorf("historyimage: preprocess: %w", err)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	doc := rawJSON(messages)
	if err := checkList(doc); err != nil {
		return nil, stats, err
	}
	msgs, err := doc.messages()
	if err != nil {
		return nil, stats, err
	}
	last := -1
	for i := range msgs {
		if msgs[i].human {
			last = i
		}
	}

	// Collect the inline images of the older human turns whose bytes are an image; every other
	// image part stays as it is and is counted.
	seen := map[string]*found{}
	var cands []candidate
	for i := range msgs {
		m := &msgs[i]
		if !m.human || i == last || !m.content.ok() || doc.kind(m.content) != '[' {
			continue
		}
		_ = doc.elems(m.content.start, func(k, start, end int) error {
			path := fmt.Sprintf("%s[%d]", m.path, k)
			img, ok, err := doc.inlineImagePart(span{start, end}, path)
			if err != nil {
				skip(ctx, logger, &stats, err.Error())
				return nil
			}
			if !ok {
				return nil
			}
			sum := md5.Sum(img.data)
			id := hex.EncodeToString(sum[:])
			f := seen[id]
			if f == nil {
				info, err := inspect(img.data)
				f = &found{img: img, info: info, bad: err}
				if err == nil && info.kind != contracts.BinaryImage {
					f.bad = fmt.Errorf("its data is not an image (detected %s)", info.mime)
				}
				f.img.mime = info.mime // what the bytes are, whatever the part said
				seen[id] = f
			}
			if f.bad != nil {
				skip(ctx, logger, &stats, fmt.Sprintf("%s: %v", path, f.bad))
				return nil
			}
			cands = append(cands, candidate{part: span{start, end}, md5: id, found: f})
			return nil
		})
	}

	// Store each distinct image once, in the order met.
	for _, c := range cands {
		f := c.found
		if f.tried {
			continue
		}
		f.tried = true
		err := cache.Put(ctx, c.md5, Image{Data: string(f.img.data), MimeType: f.img.mime})
		if err == nil {
			f.stored = true
			continue
		}
		if ctx.Err() != nil {
			return nil, stats, fmt.Errorf("historyimage: preprocess: storing image %s: %w", c.md5, ctx.Err())
		}
		logger.WarnContext(ctx, "history image cache write failed; image left in context",
			slog.String("image_md5", c.md5), slog.Any("error", err))
	}

	size := len(doc)
	for _, c := range cands {
		if !c.found.stored {
			stats.CacheFailures++
			continue
		}
		stats.ImagesReplaced++
		stats.BytesRemoved += int64(len(c.found.img.data))
		stats.TokensSavedEstimate += tokensSaved(c.found.info.width, c.found.info.height)
		size += placeholderPartLen - (c.part.end - c.part.start)
	}
	if stats.ImagesReplaced == 0 {
		return messages, stats, nil
	}
	out := make([]byte, 0, size)
	prev := 0
	for _, c := range cands {
		if !c.found.stored {
			continue
		}
		out = append(out, doc[prev:c.part.start]...)
		out = appendPlaceholderPart(out, c.md5)
		prev = c.part.end
	}
	out = append(out, doc[prev:]...)
	return out, stats, nil
}

// found is one distinct image of a request.
type found struct {
	img    inlineImage
	info   imageInfo
	bad    error // why its data is not an image that can be cached
	tried  bool  // Put was called
	stored bool  // Put succeeded
}

// skip counts an image part left in place because it is malformed or not an image.
func skip(ctx context.Context, logger *slog.Logger, stats *contracts.PreprocessStats, why string) {
	stats.PartsSkipped++
	logger.DebugContext(ctx, "history image part left in context", slog.String("reason", why))
}

// candidate is an occurrence of an image in an older human turn.
type candidate struct {
	part  span
	md5   string
	found *found
}

const (
	placeholderPartStart = `{"type":"text","text":"`
	placeholderPartEnd   = `"}`
	placeholderPartLen   = len(placeholderPartStart) + len("[Picture:history_]") + 2*md5.Size + len(placeholderPartEnd)
)

func appendPlaceholderPart(b []byte, md5 string) []byte {
	b = append(b, placeholderPartStart...)
	b = append(b, Placeholder(md5)...)
	return append(b, placeholderPartEnd...)
}

// message is one message of the context, located in the document.
type message struct {
	role    string
	content span   // absent when an object has no content
	path    string // JSON path of the content, for errors
	human   bool
}

// checkList reports an *InvalidContextError unless doc is a valid JSON list.
func checkList(doc rawJSON) error {
	if !rawjson.Valid(doc) {
		var sink struct{}
		// Valid JSON was ruled out, so Unmarshal stops at its syntax check and only reports why.
		if err := json.Unmarshal(doc, &sink); err != nil {
			return invalid("messages is not valid JSON: " + err.Error())
		}
		return invalid("messages is not valid JSON")
	}
	i := doc.skipSpace(0)
	if doc[i] != '[' {
		return invalid("messages is not a JSON list, got " + kindName(doc[i]))
	}
	return nil
}

// messages locates every message of the list and checks its shape.
func (b rawJSON) messages() ([]message, error) {
	var msgs []message
	err := b.elems(b.skipSpace(0), func(n, start, end int) error {
		m, err := b.message(n, span{start, end})
		if err != nil {
			return err
		}
		msgs = append(msgs, m)
		return nil
	})
	return msgs, err
}

func (b rawJSON) message(n int, s span) (message, error) {
	var m message
	var role span
	switch b.kind(s) {
	case '[':
		var items []span
		_ = b.elems(s.start, func(_, start, end int) error {
			items = append(items, span{start, end})
			return nil
		})
		if len(items) != 2 {
			return m, invalid(fmt.Sprintf("messages[%d] is a [role, content] pair with %d elements, want 2", n, len(items)))
		}
		role, m.content = items[0], items[1]
		m.path = fmt.Sprintf("messages[%d][1]", n)
		var ok bool
		if m.role, ok = b.str(role); !ok {
			return m, invalid(fmt.Sprintf("messages[%d][0]: role is %s, want a string", n, kindName(b.kind(role))))
		}
	case '{':
		b.pick(s.start, member{"role", &role}, member{"content", &m.content})
		if !role.ok() {
			return m, invalid(fmt.Sprintf("messages[%d] is an object without a role", n))
		}
		m.path = fmt.Sprintf("messages[%d].content", n)
		var ok bool
		if m.role, ok = b.str(role); !ok {
			return m, invalid(fmt.Sprintf("messages[%d].role is %s, want a string", n, kindName(b.kind(role))))
		}
	default:
		return m, invalid(fmt.Sprintf("messages[%d] is %s, neither a [role, content] pair nor an object with a role", n, kindName(b.kind(s))))
	}
	if m.role != "human" && m.role != "user" {
		return m, nil
	}
	if m.content.ok() {
		switch b.kind(m.content) {
		case '"', 'n':
		case '[':
			if b.onlyToolResults(m.content) {
				return m, nil
			}
		default:
			return m, invalid(fmt.Sprintf("%s is %s, want a string or a list of parts", m.path, kindName(b.kind(m.content))))
		}
	}
	m.human = true
	return m, nil
}

// onlyToolResults reports whether the list at s is non-empty and holds only Anthropic tool_result
// blocks: the user message that carries a tool's answer back to Claude.
func (b rawJSON) onlyToolResults(s span) bool {
	n, all := 0, true
	_ = b.elems(s.start, func(_, start, end int) error {
		n++
		if b.kind(span{start, end}) != '{' {
			all = false
			return nil
		}
		isResult := false
		_ = b.fields(start, func(key []byte, start, end int) error {
			if keyIs(key, "type") {
				t, _ := b.str(span{start, end})
				isResult = t == "tool_result"
			}
			return nil
		})
		all = all && isResult
		return nil
	})
	return n > 0 && all
}

func kindName(c byte) string {
	switch c {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "a list"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
