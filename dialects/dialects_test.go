package dialects

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messages"
)

var update = flag.Bool("update", false, "rewrite clients/js/src/dialects.js from the table")

// TestTableIsTheWireList: the table has exactly contracts.Dialects, in order, and every entry is
// complete.
func TestTableIsTheWireList(t *testing.T) {
	var names []string
	for _, d := range All() {
		names = append(names, d.Name)
		if d.Tokens == "" || d.ToolContent == nil || d.Text == "" || d.Turn.Answer == "" || d.Media == "" {
			t.Errorf("%s: incomplete entry", d.Name)
		}
		if d.Media != InToolResult && d.FollowUp == nil {
			t.Errorf("%s: media %s but no FollowUp", d.Name, d.Media)
		}
	}
	if !slices.Equal(names, contracts.Dialects) {
		t.Errorf("table %v, contracts.Dialects %v", names, contracts.Dialects)
	}
}

// TestConversationShape: every entry says its conversation's shape (the zero Shape is no dialect's:
// context.preprocess reads it as "any dialect's").
func TestConversationShape(t *testing.T) {
	for _, d := range All() {
		if !slices.Contains([]Shape{Messages, PairsOrObjects, Contents, Items}, d.Conversation.Shape) {
			t.Errorf("%s: conversation shape %q", d.Name, d.Conversation.Shape)
		}
	}
}

// TestTextShape: the declared text shape (what the JavaScript client writes for a text) is what
// ToolContent gives a text alone.
func TestTextShape(t *testing.T) {
	for _, d := range All() {
		for _, text := range []string{"工件不存在", ""} {
			var want any
			switch d.Text {
			case TextString:
				want = text
			case TextBlocks:
				want = []any{}
				if text != "" {
					want = []any{map[string]any{"type": "text", "text": text}}
				}
			case TextGemini:
				want = map[string]any{"response": map[string]any{"output": text}}
			case TextBedrock:
				want = []any{map[string]any{"text": cmpOr(text, "(empty)")}}
			}
			wantJSON, _ := json.Marshal(want)
			var got any
			_ = json.Unmarshal(d.ToolContent(text, Media{}), &got)
			gotJSON, _ := json.Marshal(got)
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("%s %q: ToolContent %s, shape %s gives %s", d.Name, text, gotJSON, d.Text, wantJSON)
			}
		}
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func TestTurnTemplates(t *testing.T) {
	calls := []Call{{ID: "c1", Name: "f", Content: json.RawMessage(`{"response":{"output":"a"}}`)}, {ID: "c2", Content: json.RawMessage(`{"response":{}}`), Failed: true}}
	tests := map[string]string{
		contracts.DialectOpenAIChat:      `[{"role":"tool","tool_call_id":"c1","content":{"response":{"output":"a"}}},{"role":"tool","tool_call_id":"c2","content":{"response":{}}},"F"]`,
		contracts.DialectAnthropic:       `[{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":{"response":{"output":"a"}}},{"type":"tool_result","tool_use_id":"c2","content":{"response":{}},"is_error":true}]},"F"]`,
		contracts.DialectGemini:          `[{"role":"user","parts":[{"functionResponse":{"id":"c1","name":"f","response":{"output":"a"}}},{"functionResponse":{"id":"c2","name":"","response":{}}}]},"F"]`,
		contracts.DialectBedrockConverse: `[{"role":"user","content":[{"toolResult":{"toolUseId":"c1","content":{"response":{"output":"a"}},"status":"success"}},{"toolResult":{"toolUseId":"c2","content":{"response":{}},"status":"error"}}]},"F"]`,
		contracts.DialectLangChain:       `[{"role":"tool","tool_call_id":"c1","name":"f","content":{"response":{"output":"a"}}},{"role":"tool","tool_call_id":"c2","content":{"response":{}}},"F"]`,
	}
	for name, want := range tests {
		d, _ := Lookup(name)
		got, err := d.Turn.Messages(calls, []json.RawMessage{json.RawMessage(`"F"`)})
		if err != nil {
			t.Fatal(name, err)
		}
		if b, _ := json.Marshal(got); string(b) != want {
			t.Errorf("%s:\n got %s\nwant %s", name, b, want)
		}
	}
	g, _ := Lookup(contracts.DialectGemini)
	if _, err := g.Turn.Messages([]Call{{ID: "c", Name: "f", Content: json.RawMessage(`"x"`)}}, nil); err == nil {
		t.Error("gemini took a content that is not an object")
	}
	if !g.Turn.NeedsName() || g.Turn.AnswerName() != "functionResponse" || !g.Turn.ContentObject() {
		t.Error("gemini's turn needs a name and an object content")
	}
}

func TestBadTemplatesPanic(t *testing.T) {
	for _, tmpl := range []string{`[]`, `{"a":"$nope"}`, `{"...":"$id"}`, `{"a":`} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", tmpl)
				}
			}()
			mustParseTemplate("x", tmpl)
		}()
	}
}

func TestParse(t *testing.T) {
	for name, want := range map[string]string{"": "openai-chat", " Anthropic ": "anthropic", "LangChain": "langchain"} {
		if d, err := Parse(name); err != nil || d.Name != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", name, d, err, want)
		}
	}
	if _, err := Parse("claude"); err == nil {
		t.Error("Parse(claude) accepted")
	}
	if Get("cobol").Name != contracts.DialectOpenAIChat {
		t.Error("Get of an unknown name is not openai-chat")
	}
}

// jsTableFile is the JavaScript client's copy of the table.
var jsTableFile = filepath.Join("..", "clients", "js", "src", "dialects.js")

// TestJavaScriptTable: clients/js/src/dialects.js is this table as the JavaScript client reads it
// (assembleTurn, and the text shapes of the errors it assembles itself). Run with -update after
// changing the table.
func TestJavaScriptTable(t *testing.T) {
	got := javaScriptTable()
	if *update {
		if err := os.WriteFile(jsTableFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file, err := os.ReadFile(jsTableFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(file, got) {
		t.Errorf("%s is not the table: go test ./dialects -run TestJavaScriptTable -update", jsTableFile)
	}
}

// javaScriptTable writes the table as the module clients/js/src/dialects.js.
func javaScriptTable() []byte {
	var b bytes.Buffer
	b.WriteString("// Generated from the Go table (dialects/dialects.go) by\n" +
		"//   go test ./dialects -run TestJavaScriptTable -update\n" +
		"// Do not edit: the Go test fails when this file is not the table.\n\n" +
		"/**\n * The dialects of contract v1, as assembleTurn answers a turn in them: per dialect, the shape of a\n" +
		" * text-only tool content (`text`) and the turn template (`turn`, see dialects.Turn in Go: `answer` is\n" +
		" * one call's answer with \"$id\", \"$name\", \"$name?\", \"$content\", \"$failed\", \"$status\" slots and a\n" +
		" * \"...\" spread; `group` the member of one user message holding every answer; `note` the text part that\n" +
		" * stands in for media left out to stay within the per-request limits; `documentName` the block member\n" +
		" * holding a document whose name must be unique in a request).\n */\n" +
		"export const DIALECT_TABLE = Object.freeze({\n")
	for _, d := range All() {
		entry := struct {
			Text string `json:"text"`
			Turn struct {
				Group        string          `json:"group,omitempty"`
				Answer       json.RawMessage `json:"answer"`
				FollowUpBody string          `json:"followUpBody,omitempty"`
				Note         json.RawMessage `json:"note"`
				DocumentName string          `json:"documentName,omitempty"`
			} `json:"turn"`
		}{Text: string(d.Text)}
		entry.Turn.Group, entry.Turn.Answer, entry.Turn.FollowUpBody = d.Turn.Group, json.RawMessage(d.Turn.Answer), d.Turn.FollowUpBody
		entry.Turn.Note, entry.Turn.DocumentName = json.RawMessage(d.Turn.Note), d.Turn.DocumentName
		e, _ := json.Marshal(entry)
		b.WriteString("  " + string(marshal(d.Name)) + ": " + string(e) + ",\n")
	}
	b.WriteString("});\n\n/** The text that stands in for media a turn leaves out to stay within the per-request limits, by locale. */\n")
	b.WriteString("export const TURN_NOTES = Object.freeze({\n")
	for _, loc := range []string{contracts.LocaleZH, contracts.LocaleEN} {
		b.WriteString("  " + loc + ": " + string(marshal(messages.Text(loc, messages.TurnOmitted))) + ",\n")
	}
	b.WriteString("});\n")
	return b.Bytes()
}
