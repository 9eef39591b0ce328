package historyimage_test

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/messages"
	"github.com/agentworks/artifact-worker/routing"
)

// variants is every dialect, gemini twice: media inside the functionResponse (Gemini 3) and in a
// follow-up content.
var variants = []struct {
	dialect, toolResultMedia string
	strict                   bool // an ordering-strict provider: an assistant bridge before each follow-up
}{
	{contracts.DialectOpenAIChat, "", false},
	{contracts.DialectOpenAIChat, "", true},
	{contracts.DialectOpenAIResponses, "", false},
	{contracts.DialectAnthropic, "", false},
	{contracts.DialectGemini, routing.ToolResultMediaInline, false},
	{contracts.DialectGemini, routing.ToolResultMediaFollowUp, false},
	{contracts.DialectBedrockConverse, "", false},
	{contracts.DialectLangChain, "", false},
	{contracts.DialectLangChainJS, "", false},
}

// screenshots returns n distinct small PNGs in base64.
func screenshots(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = base64.StdEncoding.EncodeToString(testfiles.PNG(40+i, 30))
	}
	return out
}

// In every dialect, a tool's screenshots of older turns leave the context for placeholders and
// the cache; the latest one stays; each dialect's structure survives (tool_result ids and content,
// functionResponse name, id and response, toolResult ids, tool messages as text).
func TestPreprocessToolResultsInEveryDialect(t *testing.T) {
	const turns = 4
	shots := screenshots(turns)
	for _, v := range variants {
		t.Run(fmt.Sprintf("%s/%s/strict=%v", v.dialect, v.toolResultMedia, v.strict), func(t *testing.T) {
			in := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict,
				Task: "Fill in the form.", Turns: turns, Media: func(i int) agentsession.Media {
					return agentsession.Media{MIME: "image/png", Base64: shots[i]}
				}})
			p := newMemPutter()
			out, rep, err := historyimage.PreprocessWith(t.Context(), in, p, historyimage.Options{Dialect: v.dialect, KeepTurns: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.ImagesReplaced != turns-1 || p.puts != turns-1 || len(rep.LeftAlone) != 0 {
				t.Fatalf("stats %+v, %d writes, left alone %v; want %d replaced", rep.Stats, p.puts, rep.LeftAlone, turns-1)
			}
			for i, s := range shots {
				has := strings.Contains(string(out), s)
				if has != (i == turns-1) {
					t.Errorf("screenshot %d in the output: %v", i, has)
				}
				if i < turns-1 {
					if !strings.Contains(string(out), historyimage.Placeholder(md5hex(s))) {
						t.Errorf("no placeholder for screenshot %d", i)
					}
					if got := p.images[md5hex(s)]; got.Data != s || got.MimeType != "image/png" {
						t.Errorf("screenshot %d cached as %q (%d chars)", i, got.MimeType, len(got.Data))
					}
				}
			}
			checkStructure(t, v.dialect, in, out)

			// The same context without a dialect: the same result.
			any, _, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{KeepTurns: 1})
			if err != nil || string(any) != string(out) {
				t.Errorf("without a dialect: %v, same output %v", err, string(any) == string(out))
			}
			// keep_turns 2 keeps two screenshots.
			two, rep2, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: v.dialect, KeepTurns: 2})
			if err != nil || rep2.Stats.ImagesReplaced != turns-2 || !strings.Contains(string(two), shots[turns-2]) {
				t.Errorf("keep 2 turns: %v, %+v", err, rep2.Stats)
			}
		})
	}
}

// A target that cannot read images gets every image described, the latest included, with the
// placeholder that fetches it back; a document the target reads stays in the latest turn.
func TestPreprocessDescribesWhatTheTargetCannotRead(t *testing.T) {
	shots := screenshots(2)
	pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
	for _, v := range variants {
		t.Run(fmt.Sprintf("%s/%s/strict=%v", v.dialect, v.toolResultMedia, v.strict), func(t *testing.T) {
			in := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict,
				Task: "Read these.", Turns: 3, Media: func(i int) agentsession.Media {
					if i == 2 {
						return agentsession.Media{MIME: "application/pdf", Base64: pdf, Filename: "report.pdf"}
					}
					return agentsession.Media{MIME: "image/png", Base64: shots[i]}
				}})
			p := newMemPutter()
			opts := historyimage.Options{Dialect: v.dialect, KeepTurns: 1,
				Readable: func(kind string) bool { return kind != contracts.BinaryImage },
				Describe: func(d historyimage.Described) string {
					return routing.DescribeHistoryMedia("en", d.Placeholder, d.Filename, d.MIME, d.Size)
				}}
			out, rep, err := historyimage.PreprocessWith(t.Context(), in, p, opts)
			if err != nil {
				t.Fatal(err)
			}
			carried := routing.DialectCarries(v.dialect, contracts.BinaryDocument, "pdf")
			if rep.Stats.ImagesReplaced != 2 || rep.Stats.MediaDescribed != 2 || rep.Stats.FilesReplaced != 0 {
				t.Fatalf("stats %+v", rep.Stats)
			}
			for _, s := range shots {
				if strings.Contains(string(out), s) || !strings.Contains(string(out), "[Cannot read] history_"+md5hex(s)+` ([Picture:history_`+md5hex(s)+`])\nType: PNG image`) {
					t.Errorf("screenshot not described: %.600s", out)
				}
			}
			if carried && !strings.Contains(string(out), pdf) {
				t.Errorf("the latest turn's PDF is gone")
			}
			checkStructure(t, v.dialect, in, out)
		})
	}
}

// Older documents go like images, as [File:history_{md5}], cached with their filename.
func TestPreprocessDocuments(t *testing.T) {
	pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
	shot := screenshots(1)[0]
	for _, v := range variants {
		if !routing.DialectCarries(v.dialect, contracts.BinaryDocument, "pdf") {
			continue
		}
		t.Run(fmt.Sprintf("%s/%s/strict=%v", v.dialect, v.toolResultMedia, v.strict), func(t *testing.T) {
			in := agentsession.Build(agentsession.Session{Dialect: v.dialect, ToolResultMedia: v.toolResultMedia, StrictToolOrdering: v.strict,
				Task: "Read it.", Turns: 2, Media: func(i int) agentsession.Media {
					if i == 0 {
						return agentsession.Media{MIME: "application/pdf", Base64: pdf, Filename: "report.pdf"}
					}
					return agentsession.Media{MIME: "image/png", Base64: shot}
				}})
			p := newMemPutter()
			out, rep, err := historyimage.PreprocessWith(t.Context(), in, p, historyimage.Options{Dialect: v.dialect, KeepTurns: 1})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.FilesReplaced != 1 || strings.Contains(string(out), pdf) || !strings.Contains(string(out), historyimage.FilePlaceholder(md5hex(pdf))) {
				t.Fatalf("stats %+v: %.400s", rep.Stats, out)
			}
			got := p.images[md5hex(pdf)]
			if got.MimeType != "application/pdf" || got.Data != pdf {
				t.Errorf("cached %+v", got.MimeType)
			}
			if v.dialect != contracts.DialectGemini && v.dialect != contracts.DialectAnthropic && got.Filename == "" { // their parts carry no filename
				t.Errorf("the filename was not cached")
			}
			checkStructure(t, v.dialect, in, out)
		})
	}
}

// Hostile or malformed parts stay as they are, are reported with their path, and take nothing
// else with them.
func TestPreprocessReportsWhatItLeftAlone(t *testing.T) {
	good := screenshots(1)[0]
	pdf := base64.StdEncoding.EncodeToString(testfiles.PDF())
	in := `[{"role":"user","content":"task"},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + good + `"}},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"!!!!"}},` +
		`{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + pdf + `"}},` +
		`{"type":"hologram","data":"AAAA"},` +
		`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + base64.StdEncoding.EncodeToString(make([]byte, 2048)) + `"}}]}]},` +
		`{"role":"assistant","content":"done"},{"role":"user","content":"thanks"}]`
	out, rep, err := historyimage.PreprocessWith(t.Context(), json.RawMessage(in), newMemPutter(),
		historyimage.Options{Dialect: contracts.DialectAnthropic, KeepTurns: 1, MaxPartBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	want := []contracts.LeftAlonePart{
		{Path: "messages[2].content[0].content[1]", Reason: "base64 data does not decode"},
		{Path: "messages[2].content[0].content[2]", Reason: "declared image/png, but its bytes are application/pdf"},
		{Path: "messages[2].content[0].content[3]", Reason: `messages[2].content[0].content[3]: unknown part type "hologram"`},
		{Path: "messages[2].content[0].content[4]", Reason: "2048 bytes, over the limit of 1024"},
	}
	if len(rep.LeftAlone) != len(want) {
		t.Fatalf("left alone: %+v", rep.LeftAlone)
	}
	for i, w := range want {
		if g := rep.LeftAlone[i]; g.Path != w.Path || !strings.HasPrefix(g.Reason, w.Reason) {
			t.Errorf("left alone[%d] = %+v, want %+v", i, g, w)
		}
	}
	if rep.Stats.ImagesReplaced != 1 || rep.Stats.PartsSkipped != 4 {
		t.Errorf("stats %+v", rep.Stats)
	}
	wantOut := strings.Replace(in, `{"type":"image","source":{"type":"base64","media_type":"image/png","data":"`+good+`"}}`, placeholderPart(good), 1)
	if string(out) != wantOut {
		t.Errorf("output:\n got %.300s\nwant %.300s", out, wantOut)
	}
}

// A context not in the dialect's shape is an *InvalidContextError naming the place.
func TestPreprocessDialectShapes(t *testing.T) {
	tests := []struct{ dialect, in, problem string }{
		{contracts.DialectOpenAIChat, `[["human","hi"]]`, "messages[0] is a list: in openai-chat, a message is an object with a role"},
		{contracts.DialectAnthropic, `[{"role":"user","content":["hi"]}]`, "messages[0].content[0] is a string, want an object (a content part)"},
		{contracts.DialectGemini, `[{"role":"user","content":"hi"}]`, "messages[0]: a gemini content has a parts list"},
		{contracts.DialectBedrockConverse, `[{"role":"user","content":"hi"}]`, "messages[0].content: a bedrock-converse message has a content list"},
		{contracts.DialectOpenAIResponses, `[{"call_id":"c"}]`, "messages[0] is an item without a role or a type"},
		{contracts.DialectOpenAIResponses, `[{"type":"function_call_output","call_id":"c","output":7}]`, "messages[0].output is a number"},
		{contracts.DialectLangChain, `[{"content":"hi"}]`, "messages[0] is an object without a role"},
		{contracts.DialectOpenAIChat, `[{"role":"tool","content":{"x":1}}]`, "messages[0].content is an object"},
	}
	for _, tt := range tests {
		t.Run(tt.dialect, func(t *testing.T) {
			_, _, err := historyimage.PreprocessWith(t.Context(), json.RawMessage(tt.in), newMemPutter(), historyimage.Options{Dialect: tt.dialect, KeepTurns: 1})
			var ice *historyimage.InvalidContextError
			if !errors.As(err, &ice) || !strings.Contains(ice.Problem, tt.problem) {
				t.Errorf("error = %v, want one containing %q", err, tt.problem)
			}
		})
	}
}

// checkStructure checks that the rewrite kept each dialect's structure: the same messages with
// the same roles, tool results with their ids and a content, Gemini functionResponses with name,
// id and response, OpenAI chat tool messages as text.
func checkStructure(t *testing.T, dialect string, in, out json.RawMessage) {
	t.Helper()
	var before, after []any
	if err := json.Unmarshal(in, &before); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &after); err != nil {
		t.Fatalf("output is not JSON: %v", err)
	}
	if len(before) != len(after) {
		t.Fatalf("%d messages became %d", len(before), len(after))
	}
	for i := range before {
		b, a := fmt.Sprint(field(before[i], "role")), fmt.Sprint(field(after[i], "role"))
		if b != a {
			t.Errorf("messages[%d] role %s became %s", i, b, a)
		}
		am, _ := after[i].(map[string]any)
		switch {
		case dialect == contracts.DialectOpenAIChat && am["role"] == "tool":
			if _, ok := am["content"].(string); !ok || am["tool_call_id"] == nil {
				t.Errorf("messages[%d]: tool message %v", i, am)
			}
		case dialect == contracts.DialectOpenAIResponses && am["type"] == "function_call_output":
			if am["call_id"] == nil || am["output"] == nil {
				t.Errorf("messages[%d]: function_call_output %v", i, am)
			}
		}
		for _, p := range parts(am) {
			pm, _ := p.(map[string]any)
			if pm == nil {
				continue
			}
			if pm["type"] == "tool_result" {
				c, _ := pm["content"].([]any)
				if pm["tool_use_id"] == nil || len(c) == 0 {
					t.Errorf("messages[%d]: tool_result %v", i, pm)
				}
			}
			if tr, ok := pm["toolResult"].(map[string]any); ok {
				c, _ := tr["content"].([]any)
				if tr["toolUseId"] == nil || len(c) == 0 {
					t.Errorf("messages[%d]: toolResult %v", i, tr)
				}
			}
			if fr, ok := pm["functionResponse"].(map[string]any); ok {
				if _, ok := fr["response"].(map[string]any); !ok || fr["name"] == nil || fr["id"] == nil {
					t.Errorf("messages[%d]: functionResponse %v", i, fr)
				}
				frParts, _ := fr["parts"].([]any)
				for _, fp := range frParts {
					if _, ok := fp.(map[string]any)["inlineData"]; !ok {
						t.Errorf("messages[%d]: functionResponse part %v", i, fp)
					}
				}
			}
		}
	}
}

func field(m any, name string) any {
	if mm, ok := m.(map[string]any); ok {
		return mm[name]
	}
	return nil
}

func parts(m map[string]any) []any {
	if p, ok := m["parts"].([]any); ok {
		return p
	}
	p, _ := m["content"].([]any)
	return p
}

// A functionResponse whose parts all go loses its parts member (with its comma, wherever it is:
// the SDKs drop an empty list); its other members stay; the placeholder follows it. A model reply
// between a tool result and the person's next message is no bridge: the person's turn is new.
func TestPreprocessGeminiFunctionResponseParts(t *testing.T) {
	const tail = `,{"role":"model","parts":[{"text":"ok"}]},{"role":"user","parts":[{"text":"last"}]}]`
	inline := `{"inlineData":{"mimeType":"image/png","data":"$A"}}`
	ph := `{"text":"[Picture:history_` + md5hex(imgA) + `"}`
	ph = ph[:len(ph)-2] + `]"}`
	tests := []struct{ in, want string }{
		{`[{"role":"user","parts":[{"functionResponse":{"id":"c","name":"n","response":{"output":"x"},"parts":[` + inline + `]}}]}`,
			`[{"role":"user","parts":[{"functionResponse":{"id":"c","name":"n","response":{"output":"x"}}},` + ph + `]}`},
		{`[{"role":"user","parts":[{"functionResponse":{"parts":[` + inline + `] , "id":"c","name":"n","response":{}}}]}`,
			`[{"role":"user","parts":[{"functionResponse":{"id":"c","name":"n","response":{}}},` + ph + `]}`},
		{`[{"role":"user","parts":[{"functionResponse":{"parts":[` + inline + `,{"fileData":{"fileUri":"gs://b/x"}}],"id":"c","name":"n","response":{}}}]}`,
			`[{"role":"user","parts":[{"functionResponse":{"parts":[{"fileData":{"fileUri":"gs://b/x"}}],"id":"c","name":"n","response":{}}},` + ph + `]}`},
	}
	for i, tt := range tests {
		out, rep, err := historyimage.PreprocessWith(t.Context(), json.RawMessage(expand(tt.in+tail)), newMemPutter(), historyimage.Options{Dialect: contracts.DialectGemini, KeepTurns: 1})
		if err != nil || rep.Stats.ImagesReplaced != 1 || string(out) != expand(tt.want+tail) {
			t.Errorf("%d: %v %+v\n got %.300s\nwant %.300s", i, err, rep.Stats, out, expand(tt.want+tail))
		}
	}
}

// In OpenAI chat, only the worker's own bridge sentence between a tool message and a user message
// with media makes that user message a follow-up. A model's answer there is a turn's end: the
// person's next message, with an image of its own, starts a new turn, and the tool's screenshot
// goes.
func TestPreprocessOpenAIChatModelAnswerIsNoBridge(t *testing.T) {
	tool := `[{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"get_artifact","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"screenshot.png"},` +
		`{"role":"user","content":[{"type":"text","text":"screenshot.png"},{"type":"image_url","image_url":{"url":"data:image/png;base64,$A"}}]},`
	person := `{"role":"user","content":[{"type":"text","text":"and this one?"},{"type":"image_url","image_url":{"url":"https://example.com/x.png"}}]}]`
	for _, tt := range []struct {
		between  string
		replaced int
	}{
		{"I see a login form.", 1},
		{messages.Text(contracts.LocaleEN, messages.Bridge), 0},
		{messages.Text(contracts.LocaleZH, messages.Bridge), 0},
	} {
		in := expand(tool + `{"role":"assistant","content":` + strconv.Quote(tt.between) + `},` + person)
		_, rep, err := historyimage.PreprocessWith(t.Context(), json.RawMessage(in), newMemPutter(), historyimage.Options{Dialect: contracts.DialectOpenAIChat, KeepTurns: 1})
		if err != nil || rep.Stats.ImagesReplaced != tt.replaced {
			t.Errorf("assistant %q between: %v, %d replaced, want %d", tt.between, err, rep.Stats.ImagesReplaced, tt.replaced)
		}
	}
}
