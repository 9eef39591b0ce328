package dialects

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
)

// Turn is how a dialect answers the calls of one assistant turn: every call's answer, in call
// order, then every follow-up message of the calls, in call order.
//
// Answer is the JSON template of one call's answer. Its string values that start with "$" are
// slots: "$id" (the call id), "$name" (the function name, required), "$name?" (the name; the
// member is left out when there is none), "$content" (the call's ToolContent), "$failed" (true
// for a failed call; the member is left out otherwise), "$status" ("success", or "error" for a
// failed call). A member "..." whose value is "$content" puts the content's members (it must be
// an object) into that object, which is then written with its members sorted by name.
//
// Group, when set, puts every answer in one user message, {"role":"user",Group:[answers…]};
// when empty, each answer is a message (or input item) of its own.
//
// The JavaScript client reads the same templates (clients/js/src/dialects.js, generated from this
// table), so both clients answer a turn alike.
//
// FollowUpBody is the member of a follow-up message that holds its body: "parts" (gemini) or
// "content" (the default).
//
// Note is the template of the text part that stands in for media a turn leaves out to stay within
// the provider's per-request limits ("$text": the note; KeepWithin). DocumentName, when set, is
// the member of a content block that holds a document whose name must be unique within a request
// (UniqueDocumentNames).
type Turn struct {
	Group        string
	Answer       string
	FollowUpBody string
	Note         string
	DocumentName string
	parsed       []member
}

// Body is the body of a follow-up message in this dialect (its content, or gemini's parts).
func (t *Turn) Body(m contracts.ChatMessage) json.RawMessage {
	if t.FollowUpBody == "parts" {
		return m.Parts
	}
	return m.Content
}

// Call is one call of a turn as Turn answers it.
type Call struct {
	ID, Name string
	Content  json.RawMessage
	Failed   bool
}

// member is one member of a parsed template: a slot, a literal, or a nested object.
type member struct {
	key     string
	slot    string          // "$id", …; "" for a literal or an object
	literal json.RawMessage // a literal value
	object  []member        // a nested object
}

// NeedsName reports whether every call of a turn needs a function name ("$name" in Answer).
func (t *Turn) NeedsName() bool { return strings.Contains(t.Answer, `"$name"`) }

// AnswerName is the name of an answer's outer member ("functionResponse"), for messages.
func (t *Turn) AnswerName() string {
	if len(t.parsed) == 0 {
		return ""
	}
	return t.parsed[0].key
}

// ContentObject reports whether a call's content must be a JSON object (it is spread, "...").
func (t *Turn) ContentObject() bool { return strings.Contains(t.Answer, `"...":"$content"`) }

// Messages answers calls (all valid JSON contents) and appends followUps. It fails only when a
// call's content must be an object and is not; the error names the call by its index.
func (t *Turn) Messages(calls []Call, followUps []json.RawMessage) ([]json.RawMessage, error) {
	answers := make([]json.RawMessage, 0, len(calls))
	for i, c := range calls {
		a, err := renderObject(t.parsed, c)
		if err != nil {
			return nil, fmt.Errorf("result %d: %w", i, err)
		}
		answers = append(answers, a)
	}
	if t.Group != "" {
		var b bytes.Buffer
		b.WriteString(`{"role":"user",`)
		n := 32
		for _, a := range answers {
			n += len(a) + 1
		}
		b.Grow(n)
		b.Write(marshal(t.Group))
		b.WriteString(":[")
		for i, a := range answers { // each already valid JSON: joined, not encoded again
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(a)
		}
		b.WriteString("]}")
		answers = []json.RawMessage{b.Bytes()}
	}
	return append(answers, followUps...), nil
}

// renderObject writes an object template for c.
func renderObject(ms []member, c Call) (json.RawMessage, error) {
	type kv struct {
		k string
		v json.RawMessage
	}
	var out []kv
	spread := false
	for _, m := range ms {
		var v json.RawMessage
		switch {
		case m.object != nil:
			o, err := renderObject(m.object, c)
			if err != nil {
				return nil, err
			}
			v = o
		case m.key == "...":
			var fields map[string]json.RawMessage
			if err := json.Unmarshal(c.Content, &fields); err != nil || fields == nil {
				return nil, fmt.Errorf("toolContent is not an object")
			}
			for k, fv := range fields {
				out = append(out, kv{k, fv})
			}
			spread = true
			continue
		case m.slot != "":
			switch m.slot {
			case "$id":
				v = marshal(c.ID)
			case "$name":
				v = marshal(c.Name)
			case "$name?":
				if c.Name == "" {
					continue
				}
				v = marshal(c.Name)
			case "$content":
				v = c.Content
			case "$failed":
				if !c.Failed {
					continue
				}
				v = json.RawMessage("true")
			case "$status":
				v = marshal(map[bool]string{false: "success", true: "error"}[c.Failed])
			}
		default:
			v = m.literal
		}
		out = append(out, kv{m.key, v})
	}
	if spread { // a merged object: its members by name, as a Go map is written
		merged := make(map[string]json.RawMessage, len(out))
		for _, e := range out {
			merged[e.k] = e.v
		}
		return marshal(merged), nil
	}
	var b bytes.Buffer
	n := 2
	for _, e := range out {
		n += len(e.k) + len(e.v) + 4
	}
	b.Grow(n)
	b.WriteByte('{')
	for i, e := range out {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(e.k))
		b.WriteByte(':')
		b.Write(e.v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

var slots = map[string]bool{"$id": true, "$name": true, "$name?": true, "$content": true, "$failed": true, "$status": true}

// mustParseTemplate parses an Answer template, keeping member order; the table is code, so a
// bad template panics at start-up (the package's tests load every one).
func mustParseTemplate(dialect, tmpl string) []member {
	dec := json.NewDecoder(strings.NewReader(tmpl))
	ms, err := parseObject(dec)
	if err != nil {
		panic(fmt.Errorf("%w: %s: %w", errTemplate, dialect, err))
	}
	return ms
}

func parseObject(dec *json.Decoder) ([]member, error) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want an object")
	}
	ms := []member{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		m := member{key: t.(string)}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		switch {
		case len(raw) > 0 && raw[0] == '{':
			if m.object, err = parseObject(json.NewDecoder(bytes.NewReader(raw))); err != nil {
				return nil, err
			}
		case len(raw) > 1 && raw[0] == '"' && raw[1] == '$':
			_ = json.Unmarshal(raw, &m.slot)
			if !slots[m.slot] || (m.key == "..." && m.slot != "$content") {
				return nil, fmt.Errorf("member %q: unknown slot %s", m.key, m.slot)
			}
		default:
			m.literal = raw
		}
		ms = append(ms, m)
	}
	_, err := dec.Token()
	return ms, err
}
