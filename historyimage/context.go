package historyimage

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/internal/rawjson"
	"github.com/agentworks/artifact-worker/messages"
)

// Canonical roles of the messages of a context, whatever the dialect calls them.
const (
	roleUser   = "user"   // user, human
	roleModel  = "model"  // assistant, ai, model, and the Responses items the model emits
	roleTool   = "tool"   // tool, function, and the Responses *_call_output items
	roleSystem = "system" // system, developer
)

// message is one message (or OpenAI Responses item) of the context, located in the document.
type message struct {
	path  string // JSON path of the message: messages[3]
	role  string // canonical role (roleUser, ...), or the role as given when it is none of them
	lists []partList
	// toolish: it carries tool results (a tool message, a function_call_output, a user message
	// of tool_result, toolResult or functionResponse parts).
	toolish bool
	human   bool // a person's turn: a user message that is neither toolish nor a follow-up
	// followUp: a user message of parts right after a tool result: the worker's follow-up.
	followUp bool
	// bridge: an assistant message between a tool result and a follow-up (ordering-strict
	// providers).
	bridge bool
	// bridgeText: its content is the worker's bridge sentence (messages.Bridge, in any locale)
	// and it calls no tool; chatMedia: its content list holds an OpenAI chat media part
	// (image_url, file, input_audio). What a bridge and the follow-up after it look like.
	bridgeText, chatMedia bool
	turn                  int
}

// partList is a list of content parts of a message.
type partList struct {
	s    span
	path string
}

// canonicalRole maps the roles of every dialect onto the four that matter here.
func canonicalRole(r string) string {
	switch strings.ToLower(r) {
	case "user", "human":
		return roleUser
	case "assistant", "ai", "model", "aimessagechunk":
		return roleModel
	case "tool", "function":
		return roleTool
	case "system", "developer":
		return roleSystem
	}
	return r
}

// responsesItemRole is the role of an OpenAI Responses item without one: its outputs are the
// model's, *_call_output items are tool results.
func responsesItemRole(typ string) string {
	switch {
	case strings.HasSuffix(typ, "_call_output"), typ == "mcp_approval_response":
		return roleTool
	case typ == "item_reference":
		return roleUser
	}
	return roleModel // function_call, reasoning, web_search_call, mcp_call, ...
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

// shape is the conversation shape a context must have: one dialect's (its table entry's
// Conversation), or that of any dialect.
type shape struct {
	name    string // the dialect; "" for any
	conv    dialects.Conversation
	bridges bool // the dialect builds bridges (Dialect.Bridge), or any dialect
}

// anyShape is the Shape of the "" dialect: any dialect's shape is taken.
const anyShape dialects.Shape = ""

// shapeOf is the shape of a dialect's conversation: "" is any dialect's, and a name the table does
// not know has objects with a role.
func shapeOf(dialect string) shape {
	if dialect == "" {
		return shape{bridges: true}
	}
	sh := shape{name: dialect, conv: dialects.Conversation{Shape: dialects.Messages}}
	if d, ok := dialects.Lookup(dialect); ok {
		sh.conv, sh.bridges = d.Conversation, d.Bridge != nil
	}
	return sh
}

// pairs reports whether [role, content] pairs are taken (and bare strings among content parts).
func (sh shape) pairs() bool {
	return sh.conv.Shape == anyShape || sh.conv.Shape == dialects.PairsOrObjects
}

// messages locates every message of the list, checks it has the dialect's shape ("" accepts the
// shape of any dialect), and sets toolish, human and turn.
func (b rawJSON) messages(dialect string) ([]message, error) {
	sh := shapeOf(dialect)
	var msgs []message
	err := b.elems(b.skipSpace(0), func(n, start, end int) error {
		m, err := b.message(sh, n, span{start, end})
		if err != nil {
			return err
		}
		msgs = append(msgs, m)
		return nil
	})
	if err != nil {
		return nil, err
	}
	turn, fresh := 0, true
	for i := range msgs {
		m := &msgs[i]
		if m.role == roleModel {
			// For a provider that rejects a user message right after a tool message, the
			// assembly puts an assistant message (a bridge) before each follow-up: it ends no turn.
			// Only the worker's own bridge sentence counts: a model's answer after a tool result
			// followed by a person's message with an image is a new turn.
			m.bridge = m.bridgeText && sh.bridges &&
				i > 0 && (msgs[i-1].toolish || msgs[i-1].followUp) && i+1 < len(msgs) &&
				msgs[i+1].role == roleUser && !msgs[i+1].toolish && msgs[i+1].chatMedia
			fresh = fresh || !m.bridge
			continue
		}
		if m.role == roleUser && !m.toolish {
			// The worker's follow-up messages (a list of parts: a label and the media of a tool
			// result) come right after a tool result, another follow-up or a bridge; a person's
			// turn does not.
			m.human = i == 0 || len(m.lists) == 0 || !(msgs[i-1].toolish || msgs[i-1].followUp || msgs[i-1].bridge)
			m.followUp = !m.human
		}
		if fresh || m.human {
			turn++
			fresh = false
		}
		m.turn = turn
	}
	return msgs, nil
}

// message reads the message at s.
func (b rawJSON) message(sh shape, n int, s span) (message, error) {
	m := message{path: fmt.Sprintf("messages[%d]", n)}
	switch b.kind(s) {
	case '[':
		if !sh.pairs() {
			return m, invalid(fmt.Sprintf("%s is a list: in %s, a message is an object with a role", m.path, sh.name))
		}
		return b.pair(m, s)
	case '{':
	default:
		if sh.pairs() {
			return m, invalid(fmt.Sprintf("%s is %s, neither a [role, content] pair nor an object with a role", m.path, kindName(b.kind(s))))
		}
		return m, invalid(fmt.Sprintf("%s is %s, want an object", m.path, kindName(b.kind(s))))
	}
	var role, typ, content, parts, output, calls span
	b.pick(s.start, member{"role", &role}, member{"type", &typ}, member{"content", &content},
		member{"parts", &parts}, member{"output", &output}, member{"tool_calls", &calls})
	t, typed := b.str(typ)
	// at is the path of the object that holds the message's members: the message, or the data
	// or kwargs of LangChain's stored forms.
	at := m.path
	if !role.ok() && (sh.conv.Shape == dialects.PairsOrObjects || sh.conv.Shape == anyShape) {
		if inner, name, r, ok := b.storedLangChain(s, t); ok {
			at += "." + name
			content, parts, output, calls, role = span{}, span{}, span{}, span{}, span{}
			b.pick(inner.start, member{"content", &content}, member{"parts", &parts}, member{"tool_calls", &calls})
			m.role = canonicalRole(r)
			if m.role == "" {
				return m, invalid(fmt.Sprintf("%s: a stored LangChain message without a type", m.path))
			}
			typed = false
		}
	}
	if role.ok() {
		r, ok := b.str(role)
		if !ok {
			return m, invalid(fmt.Sprintf("%s.role is %s, want a string", m.path, kindName(b.kind(role))))
		}
		if sh.conv.Roles != nil && !slices.Contains(sh.conv.Roles, r) {
			return m, invalid(fmt.Sprintf("%s.role is %s: in %s, a message's role is one of %s", m.path, quoted(r), sh.name, strings.Join(sh.conv.Roles, ", ")))
		}
		m.role = canonicalRole(r)
	}
	switch sh.conv.Shape {
	case dialects.Contents:
		if !parts.ok() || b.kind(parts) != '[' {
			return m, invalid(fmt.Sprintf("%s: a %s content has a parts list", m.path, sh.name))
		}
		if content.ok() {
			return m, invalid(fmt.Sprintf("%s.content: in %s, a content holds its parts in parts", m.path, sh.name))
		}
		if !role.ok() {
			m.role = roleUser
		}
		output = span{}
	case dialects.Items:
		if !role.ok() {
			if !typed {
				return m, invalid(fmt.Sprintf("%s is an item without a role or a type", m.path))
			}
			m.role = responsesItemRole(t)
		}
		if parts.ok() {
			return m, invalid(fmt.Sprintf("%s.parts: in %s, an item holds its parts in content or output", m.path, sh.name))
		}
	case dialects.PairsOrObjects, anyShape:
		if m.role == "" {
			switch {
			case typed && sh.conv.Shape == anyShape && strings.Contains(t, "_"):
				m.role = responsesItemRole(t) // a Responses item
			case typed:
				m.role = canonicalRole(t) // a LangChain message dict: {"type":"human","content":...}
			case parts.ok() && sh.conv.Shape == anyShape:
				m.role = roleUser // a Gemini content without a role
			default:
				return m, invalid(fmt.Sprintf("%s is an object without a role", m.path))
			}
		}
		if sh.conv.Shape == dialects.PairsOrObjects {
			switch m.role {
			case roleUser, roleModel, roleTool, roleSystem:
			default:
				return m, invalid(fmt.Sprintf("%s: %s is no LangChain message type or role (human, ai, system, tool, user, assistant, ...)", m.path, quoted(m.role)))
			}
			if parts.ok() {
				return m, invalid(fmt.Sprintf("%s.parts: in %s, a message holds its parts in content", at, sh.name))
			}
			output = span{}
		}
	default:
		if !role.ok() {
			return m, invalid(fmt.Sprintf("%s is an object without a role", m.path))
		}
		if parts.ok() {
			return m, invalid(fmt.Sprintf("%s.parts: in %s, a message holds its parts in content", m.path, sh.name))
		}
		output = span{}
	}
	if sh.conv.ContentList && (!content.ok() || b.kind(content) != '[') {
		return m, invalid(fmt.Sprintf("%s.content: a %s message has a content list", m.path, sh.name))
	}
	for _, l := range []struct {
		s    span
		name string
	}{{content, "content"}, {parts, "parts"}, {output, "output"}} {
		if err := b.addList(&m, sh, l.s, at+"."+l.name); err != nil {
			return m, err
		}
	}
	if typed && t == "function_call_output" || strings.HasSuffix(t, "_call_output") {
		m.toolish = true
	}
	if content.ok() && b.kind(content) == '"' && !calls.ok() {
		text, _ := b.str(content)
		m.bridgeText = messages.Is(messages.Bridge, text)
	}
	if content.ok() && b.kind(content) == '[' {
		_ = b.elems(content.start, func(_, start, end int) error {
			if b.kind(span{start, end}) == '{' {
				var typ span
				b.pick(start, member{"type", &typ})
				switch t, _ := b.str(typ); t {
				case "image_url", "file", "input_audio":
					m.chatMedia = true
				}
			}
			return nil
		})
	}
	return m, nil
}

// storedLangChain reads the two forms LangChain stores a message in (typ is the object's
// "type"): its message store's {"type":"human","data":{"content":...}} (message_to_dict,
// LangChain.js's mapChatMessagesToStoredMessages) and the serialized constructor of dumpd (and
// LangChain.js's toJSON) {"lc":1,"type":"constructor","id":[...,"HumanMessage"],"kwargs":{...}}.
// It returns the object holding the message's members, its member name, and the role: the type,
// the class name without "Message" and "Chunk" (HumanMessage: human), or a chat message's role.
func (b rawJSON) storedLangChain(s span, typ string) (inner span, name, role string, ok bool) {
	var data, kwargs, lc, id span
	b.pick(s.start, member{"data", &data}, member{"kwargs", &kwargs}, member{"lc", &lc}, member{"id", &id})
	switch {
	case typ == "constructor" && lc.ok() && kwargs.ok() && b.kind(kwargs) == '{':
		inner, name = kwargs, "kwargs"
		var kt span
		b.pick(kwargs.start, member{"type", &kt})
		role, _ = b.str(kt)
		if role == "" && id.ok() && b.kind(id) == '[' {
			_ = b.elems(id.start, func(_, start, end int) error {
				role, _ = b.str(span{start, end}) // the last element: the class name
				return nil
			})
			role = strings.TrimSuffix(strings.TrimSuffix(role, "Chunk"), "Message")
		}
	case typ != "" && data.ok() && b.kind(data) == '{':
		inner, name, role = data, "data", typ
	default:
		return span{}, "", "", false
	}
	if strings.EqualFold(role, "chat") || strings.EqualFold(role, "generic") {
		var r span
		b.pick(inner.start, member{"role", &r})
		role, _ = b.str(r)
	}
	return inner, name, role, true
}

// pair reads a [role, content] pair.
func (b rawJSON) pair(m message, s span) (message, error) {
	var items []span
	_ = b.elems(s.start, func(_, start, end int) error {
		items = append(items, span{start, end})
		return nil
	})
	if len(items) != 2 {
		return m, invalid(fmt.Sprintf("%s is a [role, content] pair with %d elements, want 2", m.path, len(items)))
	}
	r, ok := b.str(items[0])
	if !ok {
		return m, invalid(fmt.Sprintf("%s[0]: role is %s, want a string", m.path, kindName(b.kind(items[0]))))
	}
	m.role = canonicalRole(r)
	return m, b.addList(&m, shape{}, items[1], m.path+"[1]")
}

// addList records the part list at s (absent, a string or null add nothing), after checking its
// kind: anything else is an error for a person's or a tool's message (their content is read), and
// in a named dialect for any message.
func (b rawJSON) addList(m *message, sh shape, s span, path string) error {
	if !s.ok() {
		return nil
	}
	switch b.kind(s) {
	case '"', 'n':
		if m.role == roleTool {
			m.toolish = true
		}
		return nil
	case '[':
	default:
		if path == m.path+".output" && sh.conv.Shape == anyShape {
			return nil // an output that is no list: not a Responses function_call_output
		}
		if sh.conv.Shape != anyShape || m.role == roleUser || m.role == roleTool {
			return invalid(fmt.Sprintf("%s is %s, want a string or a list of parts", path, kindName(b.kind(s))))
		}
		return nil
	}
	if sh.name != "" {
		if err := b.checkParts(sh, s, path, false); err != nil {
			return err
		}
	}
	m.lists = append(m.lists, partList{s: s, path: path})
	if m.role == roleTool {
		m.toolish = true
	} else if m.role == roleUser && b.onlyToolResults(s) {
		m.toolish = true
	}
	return nil
}

// checkParts checks that the parts of the list at s are written as the dialect writes them
// (dialects.Conversation.Parts, MediaParts), and the parts inside its tool results (nested).
func (b rawJSON) checkParts(sh shape, s span, path string, nested bool) error {
	d, _ := dialects.Lookup(sh.name)
	style := sh.conv.Parts
	return b.elems(s.start, func(k, start, end int) error {
		p, at := span{start, end}, fmt.Sprintf("%s[%d]", path, k)
		switch b.kind(p) {
		case '{':
		case '"':
			if style == dialects.TypedOrStringParts || style == "" && sh.pairs() {
				return nil
			}
			fallthrough
		default:
			return invalid(fmt.Sprintf("%s is %s, want an object (a content part)", at, kindName(b.kind(p))))
		}
		var typ, content, toolResult, fr span
		b.pick(start, member{"type", &typ}, member{"content", &content}, member{"toolResult", &toolResult},
			member{"functionResponse", &fr})
		switch style {
		case dialects.TypedParts, dialects.TypedOrStringParts:
			t, ok := b.str(typ)
			if !ok {
				return invalid(fmt.Sprintf("%s has no type: in %s, a content part is an object with a type", at, sh.name))
			}
			if d != nil && d.ForeignPart(t) {
				return invalid(fmt.Sprintf("%s is a %s part, which %s does not have", at, quoted(t), sh.name))
			}
			if t == "tool_result" && !nested && content.ok() && b.kind(content) == '[' {
				return b.checkParts(sh, content, at+".content", true)
			}
		case dialects.KeyedParts:
			if typ.ok() {
				return invalid(fmt.Sprintf("%s has a type: in %s, a part is named by its member, as {\"text\":...} is", at, sh.name))
			}
			if nested {
				return nil
			}
			if toolResult.ok() && b.kind(toolResult) == '{' {
				b.pick(toolResult.start, member{"content", &content})
				if content.ok() && b.kind(content) == '[' {
					return b.checkParts(sh, content, at+".toolResult.content", true)
				}
			}
			if fr.ok() && b.kind(fr) == '{' {
				var parts span
				b.pick(fr.start, member{"parts", &parts})
				if parts.ok() && b.kind(parts) == '[' {
					return b.checkParts(sh, parts, at+".functionResponse.parts", true)
				}
			}
		}
		return nil
	})
}

// onlyToolResults reports whether the list at s is non-empty and holds only tool results:
// Anthropic tool_result blocks, Bedrock toolResult blocks or Gemini functionResponse parts.
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
			switch {
			case keyIs(key, "type"):
				t, _ := b.str(span{start, end})
				isResult = isResult || t == "tool_result"
			case keyIs(key, "toolResult"), keyIs(key, "functionResponse"), keyIs(key, "function_response"):
				isResult = true
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
