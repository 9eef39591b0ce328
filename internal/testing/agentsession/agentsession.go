// Package agentsession builds agent conversation contexts in every dialect the worker assembles,
// for tests and benchmarks of context.preprocess: a person's task, then turns of model text with a
// tool call, each answered by a tool result carrying media exactly as routing.AssembleImage (or
// routing.Assemble for a document) shapes it, follow-up messages included.
package agentsession

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/routing"
)

// Media is what one turn's tool returns: standard base64 and its MIME type; Filename names a
// document.
type Media struct {
	MIME, Base64, Filename string
}

// Session describes a context to build.
type Session struct {
	// Dialect is one of contracts.Dialects; ToolResultMedia matters to gemini only
	// (routing.ToolResultMediaInline or ToolResultMediaFollowUp), StrictToolOrdering to
	// openai-chat only (an assistant bridge before each follow-up).
	Dialect, ToolResultMedia string
	StrictToolOrdering       bool
	// Task is the person's first message.
	Task string
	// Turns is the number of tool calls; Media(i) is what call i returns.
	Turns int
	Media func(i int) Media
}

// Build returns the context as a JSON list of messages in the session's dialect.
func Build(s Session) json.RawMessage { return Join(Turns(s)) }

// Turns returns the messages of the session grouped by turn: the person's task first, then each
// tool call's model message(s), tool result and follow-ups. Join(turns[:k+1]) is the context of
// the request after k tool calls.
func Turns(s Session) [][]string {
	out := [][]string{{human(s.Dialect, s.Task)}}
	for i := range s.Turns {
		out = append(out, append(modelCall(s.Dialect, i), toolResult(s, i)...))
	}
	return out
}

// Join makes a JSON list of the messages of turns.
func Join(turns [][]string) json.RawMessage {
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range turns {
		for k, m := range t {
			if i+k > 0 {
				b.WriteString(",\n")
			}
			b.WriteString(m)
		}
	}
	b.WriteByte(']')
	return json.RawMessage(b.String())
}

// Human is a person's text message in the dialect.
func Human(dialect, text string) string { return human(dialect, text) }

func human(dialect, text string) string {
	t := str(text)
	switch dialect {
	case contracts.DialectGemini:
		return `{"role":"user","parts":[{"text":` + t + `}]}`
	case contracts.DialectBedrockConverse:
		return `{"role":"user","content":[{"text":` + t + `}]}`
	case contracts.DialectLangChain, contracts.DialectLangChainJS:
		return `["human",` + t + `]`
	case contracts.DialectOpenAIResponses:
		return `{"type":"message","role":"user","content":` + t + `}`
	case contracts.DialectAnthropic:
		return `{"role":"user","content":[{"type":"text","text":` + t + `}]}`
	}
	return `{"role":"user","content":` + t + `}`
}

// modelCall is the model's text and its call of the screenshot tool, id call_{i}.
func modelCall(dialect string, i int) []string {
	text := str(fmt.Sprintf("Turn %d: the page has loaded; I will take a screenshot to see where the form is.", i))
	id := str(fmt.Sprintf("call_%d", i))
	switch dialect {
	case contracts.DialectOpenAIResponses:
		return []string{
			`{"type":"message","role":"assistant","content":` + text + `}`,
			`{"type":"function_call","call_id":` + id + `,"name":"screenshot","arguments":"{}"}`,
		}
	case contracts.DialectAnthropic:
		return []string{`{"role":"assistant","content":[{"type":"text","text":` + text + `},{"type":"tool_use","id":` + id + `,"name":"screenshot","input":{}}]}`}
	case contracts.DialectGemini:
		return []string{`{"role":"model","parts":[{"text":` + text + `},{"functionCall":{"id":` + id + `,"name":"screenshot","args":{"full_page":true}}}]}`}
	case contracts.DialectBedrockConverse:
		return []string{`{"role":"assistant","content":[{"text":` + text + `},{"toolUse":{"toolUseId":` + id + `,"name":"screenshot","input":{}}}]}`}
	case contracts.DialectLangChain, contracts.DialectLangChainJS:
		return []string{`{"role":"assistant","content":` + text + `,"tool_calls":[{"id":` + id + `,"name":"screenshot","args":{}}]}`}
	}
	return []string{`{"role":"assistant","content":` + text + `,"tool_calls":[{"id":` + id + `,"type":"function","function":{"name":"screenshot","arguments":"{}"}}]}`}
}

// Assembly is the worker's assembly of media m in the dialect.
func Assembly(dialect string, f routing.Formats, m Media, label string) contracts.Assembly {
	if strings.HasPrefix(m.MIME, "image/") {
		return routing.AssembleImage(m.MIME, m.Base64, label, dialect, contracts.LocaleZH, f)
	}
	url := "data:" + m.MIME + ";base64," + m.Base64
	res := contracts.ContentRouteResult{ContentType: "binary", Routing: contracts.RouteFile, Content: label,
		File: &contracts.FilePart{Type: "file", File: contracts.FileData{Filename: m.Filename, MimeType: m.MIME, Data: m.Base64, DataURL: url}}}
	return routing.Assemble(res, dialect, contracts.LocaleZH, f)
}

// toolResult is the tool's answer to call i and the follow-up messages of its assembly.
func toolResult(s Session, i int) []string {
	f := routing.Formats{ToolResultMedia: s.ToolResultMedia, StrictToolOrdering: s.StrictToolOrdering}
	a := Assembly(s.Dialect, f, s.Media(i), fmt.Sprintf("Screenshot %d:", i))
	id := str(fmt.Sprintf("call_%d", i))
	content := string(a.ToolContent)
	var out []string
	switch s.Dialect {
	case contracts.DialectOpenAIResponses:
		out = []string{`{"type":"function_call_output","call_id":` + id + `,"output":` + content + `}`}
	case contracts.DialectAnthropic:
		out = []string{`{"role":"user","content":[{"type":"tool_result","tool_use_id":` + id + `,"content":` + content + `}]}`}
	case contracts.DialectGemini:
		// ToolContent is a functionResponse without name and id: the caller's to set.
		fr := `{"id":` + id + `,"name":"screenshot",` + content[1:]
		out = []string{`{"role":"user","parts":[{"functionResponse":` + fr + `}]}`}
	case contracts.DialectBedrockConverse:
		out = []string{`{"role":"user","content":[{"toolResult":{"toolUseId":` + id + `,"content":` + content + `,"status":"success"}}]}`}
	default: // openai-chat, langchain: a tool message
		out = []string{`{"role":"tool","tool_call_id":` + id + `,"content":` + content + `}`}
	}
	for _, f := range a.FollowUp {
		b, err := json.Marshal(f)
		if err != nil {
			panic(err)
		}
		out = append(out, string(b))
	}
	return out
}

func str(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
