package dialects

// FunctionTool is one function a model may call: its name, description and parameters (a JSON
// Schema object).
type FunctionTool struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// openAIChatTools: [{"type":"function","function":{"name","description","parameters"}}].
func openAIChatTools(tools []FunctionTool) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Parameters}})
	}
	return out
}

// openAIResponsesTools: [{"type":"function","name","description","parameters","strict":false}].
func openAIResponsesTools(tools []FunctionTool) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, map[string]any{"type": "function", "name": t.Name, "description": t.Description,
			"parameters": t.Parameters, "strict": false})
	}
	return out
}

// anthropicTools: [{"name","description","input_schema"}].
func anthropicTools(tools []FunctionTool) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, map[string]any{"name": t.Name, "description": t.Description, "input_schema": t.Parameters})
	}
	return out
}

// geminiTools: one Tool holding every function, [{"functionDeclarations":[{"name","description","parameters"}]}].
func geminiTools(tools []FunctionTool) []any {
	decls := make([]any, 0, len(tools))
	for _, t := range tools {
		decls = append(decls, map[string]any{"name": t.Name, "description": t.Description, "parameters": t.Parameters})
	}
	return []any{map[string]any{"functionDeclarations": decls}}
}

// bedrockTools: toolConfig.tools, [{"toolSpec":{"name","description","inputSchema":{"json":{...}}}}].
func bedrockTools(tools []FunctionTool) []any {
	out := make([]any, 0, len(tools))
	for _, t := range tools {
		out = append(out, map[string]any{"toolSpec": map[string]any{"name": t.Name, "description": t.Description,
			"inputSchema": map[string]any{"json": t.Parameters}}})
	}
	return out
}
