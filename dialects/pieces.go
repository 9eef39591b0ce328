package dialects

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// Piece is a text and the media that goes after it (a PDF page's name and text layer, then its
// image). Either may be empty.
type Piece struct {
	Text  string
	Media Media
}

// ToolContentOf is ToolContent for several pieces, in order: each piece's text part, then its media
// part, in the dialect's own blocks (openai-responses, anthropic, bedrock-converse, langchain,
// langchain-js). Where the tool result takes text only (openai-chat) it is the texts alone, joined
// by blank lines; for gemini, the functionResponse's output holds the texts and its parts the media,
// in order. It is built from the table's ToolContent, so the parts are those ToolContent makes.
func (d *Dialect) ToolContentOf(pieces []Piece) json.RawMessage {
	if !hasMedia(pieces) || d.Text == TextString && d.Media != InToolResult {
		return d.ToolContent(joinTexts(pieces), Media{})
	}
	if d.Text == TextGemini {
		var r geminiFunctionResponse
		r.Response.Output = joinTexts(pieces)
		for _, p := range pieces {
			if p.Media.Kind != "" {
				r.Parts = append(r.Parts, geminiPart{InlineData: &geminiBlob{MimeType: p.Media.MIME, Data: p.Media.Data}})
			}
		}
		return marshal(r)
	}
	lists := make([]json.RawMessage, 0, len(pieces))
	for _, p := range pieces {
		if p.Media.Kind == "" && p.Text == "" {
			continue
		}
		c := d.ToolContent(p.Text, p.Media)
		if len(c) > 0 && c[0] == '"' { // openai-responses gives a text alone as a string
			c = marshal([]textPart{{Type: "input_text", Text: p.Text}})
		}
		lists = append(lists, c)
	}
	return concatLists(lists)
}

// FollowUpOf is FollowUp for several pieces: one message whose parts are each piece's text, then
// its media, in order (openai-chat: text and image_url parts; gemini: text and inlineData parts).
func (d *Dialect) FollowUpOf(pieces []Piece) contracts.ChatMessage {
	var msg contracts.ChatMessage
	var lists []json.RawMessage
	for _, p := range pieces {
		if p.Media.Kind == "" {
			if p.Text == "" {
				continue
			}
			lists = append(lists, d.textParts(p.Text))
			continue
		}
		m := d.FollowUp(p.Text, p.Media)
		msg.Role = m.Role
		lists = append(lists, cmpRaw(m.Content, m.Parts))
	}
	if d.Turn.FollowUpBody == "parts" {
		msg.Parts = concatLists(lists)
	} else {
		msg.Content = concatLists(lists)
	}
	return msg
}

// textParts is a follow-up's text part alone.
func (d *Dialect) textParts(text string) json.RawMessage {
	if d.Turn.FollowUpBody == "parts" {
		return marshal([]geminiPart{{Text: text}})
	}
	return marshal([]textPart{{Type: "text", Text: text}})
}

func cmpRaw(a, b json.RawMessage) json.RawMessage {
	if len(a) > 0 {
		return a
	}
	return b
}

func hasMedia(pieces []Piece) bool {
	for _, p := range pieces {
		if p.Media.Kind != "" {
			return true
		}
	}
	return false
}

func joinTexts(pieces []Piece) string {
	texts := make([]string, 0, len(pieces))
	for _, p := range pieces {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n\n")
}

// concatLists joins JSON arrays into one, copying each element's bytes once.
func concatLists(lists []json.RawMessage) json.RawMessage {
	n := 2
	for _, l := range lists {
		n += len(l)
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for _, l := range lists {
		l = bytes.TrimSpace(l)
		if len(l) < 2 || l[0] != '[' {
			continue
		}
		inner := bytes.TrimSpace(l[1 : len(l)-1])
		if len(inner) == 0 {
			continue
		}
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(b, inner...)
	}
	return append(b, ']')
}
