// Package tooldefs holds the worker's tools as a model sees them: names, descriptions (zh and en,
// from the designs) and JSON Schema parameters of get_artifact, get_history_image and
// write_file. The MCP server (worker mcp) serves them; Render writes them as ready function-calling
// definitions per dialect (worker tools). Pure: no I/O.
package tooldefs

import (
	"encoding/json"
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/messages"
)

// Tool names.
const (
	GetArtifact     = "get_artifact"
	GetHistoryImage = "get_history_image"
	WriteFile       = "write_file"
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

// Tools returns the three tools with descriptions in locale (zh unless "en"). get_artifact and
// get_history_image take an optional pages ("1-3,7"): the pages of a PDF sent as images, for those
// an answer left out (its text names them).
func Tools(locale string) []Tool {
	return []Tool{
		{Name: GetArtifact, Description: desc(locale, messages.GetArtifactDescription),
			Parameters: object([]string{"ref"}, "ref", str(desc(locale, messages.RefDescription)), "pages", str(desc(locale, messages.PagesDescription)))},
		{Name: GetHistoryImage, Description: desc(locale, messages.GetHistoryImageDescription),
			Parameters: object([]string{"image_md5"}, "image_md5", str(desc(locale, messages.ImageMD5Description)), "pages", str(desc(locale, messages.PagesDescription)))},
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

// Dialects lists the dialects Render accepts: those of the dialect table with a tool form of their
// own (dialects.Dialect.Tools). LangChain binds tools in the OpenAI chat form (bind_tools takes
// those dicts), so it has none.
var Dialects = func() []string {
	var names []string
	for _, d := range dialects.All() {
		if d.Tools != nil {
			names = append(names, d.Name)
		}
	}
	return names
}()

// Render returns the tools as the JSON value of the request's tools field in dialect, in the form
// the dialect table gives it (dialects.Dialect.Tools).
func Render(dialect, locale string) ([]byte, error) {
	d, err := dialects.Parse(dialect)
	if err != nil || d.Tools == nil || d.Name != dialect {
		return nil, fmt.Errorf("dialect %q: use one of %v", dialect, Dialects)
	}
	if !contracts.KnownLocale(locale) {
		return nil, fmt.Errorf("locale %q: use %s", locale, contracts.LocaleList())
	}
	tools := Tools(locale)
	fns := make([]dialects.FunctionTool, len(tools))
	for i, t := range tools {
		fns[i] = dialects.FunctionTool(t)
	}
	return json.MarshalIndent(d.Tools(fns), "", "  ")
}
