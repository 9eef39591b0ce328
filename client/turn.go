package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
)

// ErrTurn is wrapped by every error of Turn: results that cannot form one turn.
var ErrTurn = errors.New("client: cannot assemble the turn")

// ToolResult is the worker's answer to one tool call of an assistant turn.
type ToolResult struct {
	// CallID is the id the model gave the call: tool_call_id (openai-chat, langchain), call_id
	// (openai-responses), tool_use_id (anthropic), functionCall.id (gemini), toolUseId (bedrock-converse).
	CallID string
	// Name is the function's name; gemini needs it (functionResponse.name), langchain sends it.
	Name string
	// Assembly is the result's assembly (get_artifact, get_history_image, or an error reply's).
	Assembly contracts.Assembly
	// Failed marks the answer to a call that failed (Assembly is then the error reply's
	// error.assembly): anthropic's tool_result gets is_error, bedrock-converse's toolResult
	// status "error". The other dialects tell the model through the text alone.
	Failed bool
}

// Turn returns the messages (or, for openai-responses, input items) that answer every tool call of
// one assistant turn, in call order, in the dialect of the assemblies (all the same). Append them
// to the conversation after the assistant message that made the calls.
//
//   - openai-chat: one tool message per call, then every follow-up message in call order. OpenAI
//     requires each tool_call_id to be answered by tool messages before any other message, so a
//     follow-up may not sit right after its own tool message when there are several calls.
//   - openai-responses: one function_call_output item per call.
//   - anthropic: one user message holding a tool_result block per call (is_error when Failed).
//   - gemini: one user content holding a functionResponse part per call (id and name set here):
//     Gemini takes the responses to parallel calls together, in one content. Then every
//     follow-up content (media for models that take none in a function response) in call order.
//   - bedrock-converse: one user message holding a toolResult block per call (status "success",
//     "error" when Failed).
//   - langchain: one tool message per call ({"role":"tool","tool_call_id","name","content"}).
//
// Turn is pure; errors wrap ErrTurn.
func Turn(results []ToolResult) ([]json.RawMessage, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("%w: no results", ErrTurn)
	}
	dialect := results[0].Assembly.Dialect
	for i, r := range results {
		switch {
		case r.Assembly.Dialect != dialect:
			return nil, fmt.Errorf("%w: result %d is %q, result 0 is %q: one turn has one dialect", ErrTurn, i, r.Assembly.Dialect, dialect)
		case r.CallID == "":
			return nil, fmt.Errorf("%w: result %d has no call id", ErrTurn, i)
		case !json.Valid(r.Assembly.ToolContent):
			return nil, fmt.Errorf("%w: result %d: toolContent is missing or not JSON", ErrTurn, i)
		case dialect == contracts.DialectGemini && r.Name == "":
			return nil, fmt.Errorf("%w: result %d has no name (gemini's functionResponse needs it)", ErrTurn, i)
		}
		for _, m := range r.Assembly.FollowUp {
			body := m.Content // openai-chat
			if dialect == contracts.DialectGemini {
				body = m.Parts
			}
			if !json.Valid(body) {
				return nil, fmt.Errorf("%w: result %d: a follow-up's content (gemini: parts) is not JSON", ErrTurn, i)
			}
		}
	}
	switch dialect {
	case contracts.DialectOpenAIChat, "":
		out := make([]json.RawMessage, 0, len(results))
		for _, r := range results {
			out = append(out, mustJSON(chatToolMessage{Role: "tool", ToolCallID: r.CallID, Content: r.Assembly.ToolContent}))
		}
		return append(out, followUps(results)...), nil
	case contracts.DialectOpenAIResponses:
		out := make([]json.RawMessage, 0, len(results))
		for _, r := range results {
			out = append(out, mustJSON(functionCallOutput{Type: "function_call_output", CallID: r.CallID, Output: r.Assembly.ToolContent}))
		}
		return out, nil
	case contracts.DialectAnthropic:
		blocks := make([]toolResultBlock, 0, len(results))
		for _, r := range results {
			blocks = append(blocks, toolResultBlock{Type: "tool_result", ToolUseID: r.CallID, Content: r.Assembly.ToolContent, IsError: r.Failed})
		}
		return []json.RawMessage{mustJSON(roleContent[toolResultBlock]{Role: "user", Content: blocks})}, nil
	case contracts.DialectGemini:
		parts := make([]geminiPart, 0, len(results))
		for i, r := range results {
			var fr map[string]json.RawMessage
			if err := json.Unmarshal(r.Assembly.ToolContent, &fr); err != nil || fr == nil {
				return nil, fmt.Errorf("%w: result %d: gemini toolContent is not an object", ErrTurn, i)
			}
			fr["id"], fr["name"] = mustJSON(r.CallID), mustJSON(r.Name)
			parts = append(parts, geminiPart{FunctionResponse: fr})
		}
		return append([]json.RawMessage{mustJSON(geminiContent{Role: "user", Parts: parts})}, followUps(results)...), nil
	case contracts.DialectBedrockConverse:
		blocks := make([]bedrockBlock, 0, len(results))
		for _, r := range results {
			blocks = append(blocks, bedrockBlock{ToolResult: bedrockToolResult{ToolUseID: r.CallID, Content: r.Assembly.ToolContent, Status: bedrockStatus(r.Failed)}})
		}
		return []json.RawMessage{mustJSON(roleContent[bedrockBlock]{Role: "user", Content: blocks})}, nil
	case contracts.DialectLangChain:
		out := make([]json.RawMessage, 0, len(results))
		for _, r := range results {
			out = append(out, mustJSON(langchainToolMessage{Role: "tool", ToolCallID: r.CallID, Name: r.Name, Content: r.Assembly.ToolContent}))
		}
		return out, nil
	}
	return nil, fmt.Errorf("%w: unknown dialect %q", ErrTurn, dialect)
}

// bedrockStatus is a Bedrock Converse toolResult's status: "error" for a call that failed, else "success".
func bedrockStatus(failed bool) string {
	if failed {
		return "error"
	}
	return "success"
}

// followUps is every follow-up message of the results, in call order.
func followUps(results []ToolResult) []json.RawMessage {
	var out []json.RawMessage
	for _, r := range results {
		for _, m := range r.Assembly.FollowUp {
			out = append(out, mustJSON(m))
		}
	}
	return out
}

type chatToolMessage struct {
	Role       string          `json:"role"`
	ToolCallID string          `json:"tool_call_id"`
	Content    json.RawMessage `json:"content"`
}

type functionCallOutput struct {
	Type   string          `json:"type"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
}

type roleContent[T any] struct {
	Role    string `json:"role"`
	Content []T    `json:"content"`
}

type toolResultBlock struct {
	Type      string          `json:"type"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role"`
	Parts []geminiPart `json:"parts"`
}

type geminiPart struct {
	FunctionResponse map[string]json.RawMessage `json:"functionResponse"`
}

type bedrockBlock struct {
	ToolResult bedrockToolResult `json:"toolResult"`
}

type bedrockToolResult struct {
	ToolUseID string          `json:"toolUseId"`
	Content   json.RawMessage `json:"content"`
	Status    string          `json:"status"`
}

type langchainToolMessage struct {
	Role       string          `json:"role"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name,omitempty"`
	Content    json.RawMessage `json:"content"`
}

// mustJSON encodes values that always encode: strings, and raw JSON that Turn checked.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
