// Package tooldefs holds the worker's tools as a model sees them: names, descriptions (zh and en,
// from the design documents) and JSON Schema parameters of get_artifact, get_history_image and
// write_file. The MCP server (worker mcp) serves them; Render writes them as ready function-calling
// definitions per dialect (worker tools). Pure: no I/O.
package tooldefs

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/agentworks/artifact-worker/contracts"
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

type text struct{ zh, en string }

func (t text) in(locale string) string {
	if locale == LocaleEN {
		return t.en
	}
	return t.zh
}

// Descriptions. get_history_image and write_file are design documents 002 and 004 word for word (zh);
// get_artifact follows design document 000's statement of what the tool does.
var (
	getArtifactDesc = text{
		zh: "读取工件内容。按当前模型的能力返回：文本原样返回；模型能读取的图片或文件以图片或文件内容返回；模型无法读取的二进制内容返回文本描述（名称、类型、大小），不会把 base64 放进文本。",
		en: "Read an artifact. What comes back follows the current model's capabilities: text as it is; an image or file the model can read as image or file content; binary content it cannot read as a short text description (name, type, size), never base64 in text.",
	}
	refDesc = text{
		zh: "工件引用：artifact:{id}，或工作区文件的工件ID ws:{workspaceId}:{base64Path}",
		en: "Artifact reference: artifact:{id}, or a workspace file's artifact ID ws:{workspaceId}:{base64Path}",
	}
	historyDesc = text{
		zh: "获取历史对话中用户上传的图片。\n当用户询问历史图片的细节（如\"刚才那张图的右上角是什么\"）时，\n使用此工具获取图片内容进行分析。\n输入参数为图片的 MD5 哈希值（从 [Picture:history_xxx] 占位符中提取）。",
		en: "Get an image the user uploaded earlier in the conversation.\nWhen the user asks about details of an earlier image (such as \"what is in the top right corner of that picture\"),\nuse this tool to get the image and analyse it.\nThe input is the image's MD5 hash (taken from the [Picture:history_xxx] placeholder).",
	}
	md5Desc = text{
		zh: "图片的 MD5 哈希值（从 [Picture:history_xxx] 占位符中提取）",
		en: "The image's MD5 hash (taken from the [Picture:history_xxx] placeholder)",
	}
	writeFileDesc = text{zh: "在工作空间内创建或修改文件。", en: "Create or modify a file in the workspace."}
	pathDesc      = text{zh: "文件的相对路径", en: "Relative path of the file"}
	contentDesc   = text{zh: "文件内容", en: "Content of the file"}
	mimeDesc      = text{
		zh: "文件的MIME类型，如 'text/javascript', 'application/json', 'text/html' 等。必须使用标准MIME类型。",
		en: "MIME type of the file, such as 'text/javascript', 'application/json', 'text/html'. Must be a standard MIME type.",
	}
)

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
		{Name: GetArtifact, Description: getArtifactDesc.in(locale),
			Parameters: object([]string{"ref"}, "ref", str(refDesc.in(locale)))},
		{Name: GetHistoryImage, Description: historyDesc.in(locale),
			Parameters: object([]string{"image_md5"}, "image_md5", str(md5Desc.in(locale)))},
		{Name: WriteFile, Description: writeFileDesc.in(locale),
			Parameters: object([]string{"path", "content", "mimeType"},
				"path", str(pathDesc.in(locale)), "content", str(contentDesc.in(locale)), "mimeType", str(mimeDesc.in(locale)))},
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
