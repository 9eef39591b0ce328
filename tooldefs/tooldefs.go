// Package tooldefs holds the worker's tools as a model sees them: names, descriptions (zh and en,
// from the designs) and JSON Schema parameters of get_artifact, get_history_image and
// write_file. The MCP server (worker mcp) serves them; Render writes them as ready function-calling
// definitions per dialect (worker tools). Pure: no I/O.
package tooldefs

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messages"
)

// Tool names.
const (
	GetArtifact     = "get_artifact"
	GetHistoryImage = "get_history_image"
	WriteFile       = "write_file"
)

// Locales of descriptions (the worker's locales).
const (
	LocaleZH = contracts.LocaleZH
	LocaleEN = contracts.LocaleEN
)

// Tool is one tool: its name, description and parameters (a JSON Schema object).
type Tool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// Descriptions come from the message catalogue (docs/design.md, "Tools"):
// get_history_image and write_file are the design's word for word (zh); get_artifact follows the
// design's statement of what the tool does.
func desc(locale string, id messages.ID) string { return messages.Text(locale, id) }

func object(required []string, props ...any) map[string]any {
	p := map[string]any{}
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i].(string)] = props[i+1]
	}
	return map[string]any{"type": "object", "properties": p, "required": required}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }

// Tools returns the three tools with descriptions in locale (zh unless "en").
func Tools(locale string) []Tool {
	return []Tool{
		{Name: GetArtifact, Description: desc(locale, messages.GetArtifactDescription),
			Parameters: object([]string{"ref"}, "ref", str(desc(locale, messages.RefDescription)))},
		{Name: GetHistoryImage, Description: desc(locale, messages.GetHistoryImageDescription),
			Parameters: object([]string{"image_md5"}, "image_md5", str(desc(locale, messages.ImageMD5Description)))},
		{Name: WriteFile, Description: desc(locale, messages.WriteFileDescription),
			Parameters: object([]string{"path", "content", "mimeType"},
				"path", str(desc(locale, messages.PathDescription)), "content", str(desc(locale, messages.ContentDescription)), "mimeType", str(desc(locale, messages.MimeTypeDescription)))},
	}
}

// Function-calling dialects Render writes (named as the worker's assembly dialects).
const (
	DialectOpenAIChat      = contracts.DialectOpenAIChat
	DialectOpenAIResponses = contracts.DialectOpenAIResponses
	DialectAnthropic       = contracts.DialectAnthropic
	DialectGemini          = contracts.DialectGemini
	DialectBedrockConverse = contracts.DialectBedrockConverse
)

// Dialects lists the dialects Render accepts. LangChain binds tools in the OpenAI chat form
// (bind_tools takes those dicts), so it has no form of its own here.
var Dialects = []string{DialectOpenAIChat, DialectOpenAIResponses, DialectAnthropic, DialectGemini, DialectBedrockConverse}

// Render returns the tools as the JSON value of the request's tools field in dialect: OpenAI chat
// ([{"type":"function","function":{...}}]), OpenAI Responses ([{"type":"function","name",...}]),
// Anthropic ([{"name","description","input_schema"}]), Gemini (one Tool holding every function:
// [{"functionDeclarations":[{"name","description","parameters"}]}]) or Bedrock Converse
// (toolConfig.tools: [{"toolSpec":{"name","description","inputSchema":{"json":{...}}}}]).
func Render(dialect, locale string) ([]byte, error) {
	if !slices.Contains(Dialects, dialect) {
		return nil, fmt.Errorf("dialect %q: use one of %v", dialect, Dialects)
	}
	if locale != LocaleZH && locale != LocaleEN {
		return nil, fmt.Errorf("locale %q: use zh or en", locale)
	}
	out := []any{}
	var decls []any // gemini
	for _, t := range Tools(locale) {
		switch dialect {
		case DialectOpenAIChat:
			out = append(out, map[string]any{"type": "function", "function": map[string]any{
				"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
		case DialectOpenAIResponses:
			out = append(out, map[string]any{"type": "function", "name": t.Name, "description": t.Description,
				"parameters": t.Parameters, "strict": false})
		case DialectAnthropic:
			out = append(out, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters})
		case DialectGemini:
			decls = append(decls, map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters})
		case DialectBedrockConverse:
			out = append(out, map[string]any{"toolSpec": map[string]any{"name": t.Name, "description": t.Description,
				"inputSchema": map[string]any{"json": t.Parameters}}})
		}
	}
	if dialect == DialectGemini {
		out = append(out, map[string]any{"functionDeclarations": decls})
	}
	return json.MarshalIndent(out, "", "  ")
}
