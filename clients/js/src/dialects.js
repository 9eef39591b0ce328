// Generated from the Go table (dialects/dialects.go) by
//   go test ./dialects -run TestJavaScriptTable -update
// Do not edit: the Go test fails when this file is not the table.

/**
 * The dialects of contract v1, as assembleTurn answers a turn in them: per dialect, the shape of a
 * text-only tool content (`text`) and the turn template (`turn`, see dialects.Turn in Go: `answer` is
 * one call's answer with "$id", "$name", "$name?", "$content", "$failed", "$status" slots and a
 * "..." spread; `group` the member of one user message holding every answer).
 */
export const DIALECT_TABLE = Object.freeze({
  "openai-chat": {"text":"string","turn":{"answer":{"role":"tool","tool_call_id":"$id","content":"$content"}}},
  "openai-responses": {"text":"string","turn":{"answer":{"type":"function_call_output","call_id":"$id","output":"$content"}}},
  "anthropic": {"text":"blocks","turn":{"group":"content","answer":{"type":"tool_result","tool_use_id":"$id","content":"$content","is_error":"$failed"}}},
  "gemini": {"text":"geminiResponse","turn":{"group":"parts","answer":{"functionResponse":{"...":"$content","id":"$id","name":"$name"}},"followUpBody":"parts"}},
  "bedrock-converse": {"text":"bedrockBlocks","turn":{"group":"content","answer":{"toolResult":{"toolUseId":"$id","content":"$content","status":"$status"}}}},
  "langchain": {"text":"blocks","turn":{"answer":{"role":"tool","tool_call_id":"$id","name":"$name?","content":"$content"}}},
  "langchain-js": {"text":"blocks","turn":{"answer":{"role":"tool","tool_call_id":"$id","name":"$name?","content":"$content"}}},
});
