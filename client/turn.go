package client

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/dialects"
	"github.com/agentworks/artifact-worker/messages"
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
// The shapes are the dialect's entry in package dialects (dialects.Dialect.Turn), which the
// JavaScript client's assembleTurn reads too.
//
// Turn keeps the turn within the per-request limits of the model's provider (the assemblies'
// requestLimits; docs/design.md, "Per-request limits"): media past a limit (images per request,
// image or request bytes, PDF pages) is left out, a text part in its place saying so. For
// bedrock-converse, every document's name gets its call id ("report [call_1]"), since Converse
// refuses a request whose documents share a name and the same file may be read twice. Turn is
// TurnWith with the default options: notes in Chinese. Turn is pure; errors wrap ErrTurn.
func Turn(results []ToolResult) ([]json.RawMessage, error) {
	return TurnWith(results, TurnOptions{})
}

// TurnOptions tune TurnWith.
type TurnOptions struct {
	// Locale of the note that stands in for media left out ("en" or "zh", the default).
	Locale string
	// Limits, when set, replace the limits the assemblies carry (requestLimits): for a request
	// that already holds media from earlier turns, pass what is left.
	Limits *contracts.RequestLimits
}

// TurnWith is Turn with options.
func TurnWith(results []ToolResult, opts TurnOptions) ([]json.RawMessage, error) {
	if len(results) == 0 {
		return nil, fmt.Errorf("%w: no results", ErrTurn)
	}
	dialect := results[0].Assembly.Dialect
	if dialect == "" {
		dialect = contracts.DefaultDialect
	}
	d, ok := dialects.Lookup(dialect)
	if !ok {
		return nil, fmt.Errorf("%w: unknown dialect %q", ErrTurn, dialect)
	}
	calls := make([]dialects.Call, 0, len(results))
	limits := opts.Limits
	var followUps []json.RawMessage
	for i, r := range results {
		switch {
		case r.Assembly.Dialect != results[0].Assembly.Dialect:
			return nil, fmt.Errorf("%w: result %d is %q, result 0 is %q: one turn has one dialect", ErrTurn, i, r.Assembly.Dialect, results[0].Assembly.Dialect)
		case r.CallID == "":
			return nil, fmt.Errorf("%w: result %d has no call id", ErrTurn, i)
		case !json.Valid(r.Assembly.ToolContent):
			return nil, fmt.Errorf("%w: result %d: toolContent is missing or not JSON", ErrTurn, i)
		case d.Turn.NeedsName() && r.Name == "":
			return nil, fmt.Errorf("%w: result %d has no name (%s's %s needs it)", ErrTurn, i, d.Name, d.Turn.AnswerName())
		}
		for _, m := range r.Assembly.FollowUp {
			if !json.Valid(d.Turn.Body(m)) {
				return nil, fmt.Errorf("%w: result %d: a follow-up's content (gemini: parts) is not JSON", ErrTurn, i)
			}
			followUps = append(followUps, mustJSON(m))
		}
		content := d.Turn.UniqueDocumentNames(r.Assembly.ToolContent, r.CallID)
		calls = append(calls, dialects.Call{ID: r.CallID, Name: r.Name, Content: content, Failed: r.Failed})
		if limits == nil && r.Assembly.RequestLimits != nil {
			limits = r.Assembly.RequestLimits
		}
	}
	out, err := d.Turn.Messages(calls, followUps)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %w", ErrTurn, d.Name, err)
	}
	if limits != nil {
		out, _ = d.Turn.KeepWithin(out, *limits, messages.Text(opts.Locale, messages.TurnOmitted))
	}
	return out, nil
}

// mustJSON encodes values that always encode: strings, and raw JSON that Turn checked.
func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}
