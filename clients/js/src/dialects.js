// Generated from the Go table (dialects/dialects.go) by
//   go test ./dialects -run TestJavaScriptTable -update
// Do not edit: the Go test fails when this file is not the table.

/**
 * The dialects of contract v1, as assembleTurn answers a turn in them: per dialect, the shape of a
 * text-only tool content (`text`) and the turn template (`turn`, see dialects.Turn in Go: `answer` is
 * one call's answer with "$id", "$name", "$name?", "$content", "$failed", "$status" slots and a
 * "..." spread; `group` the member of one user message holding every answer; `note` the text part that
 * stands in for media left out to stay within the per-request limits; `documentName` the block member
 * holding a document whose name must be unique in a request).
 */
export const DIALECT_TABLE = Object.freeze({
  "openai-chat": {"text":"string","turn":{"answer":{"role":"tool","tool_call_id":"$id","content":"$content"},"note":{"type":"text","text":"$text"}}},
  "openai-responses": {"text":"string","turn":{"answer":{"type":"function_call_output","call_id":"$id","output":"$content"},"note":{"type":"input_text","text":"$text"}}},
  "anthropic": {"text":"blocks","turn":{"group":"content","answer":{"type":"tool_result","tool_use_id":"$id","content":"$content","is_error":"$failed"},"note":{"type":"text","text":"$text"}}},
  "gemini": {"text":"geminiResponse","turn":{"group":"parts","answer":{"functionResponse":{"...":"$content","id":"$id","name":"$name"}},"followUpBody":"parts","note":{"text":"$text"}}},
  "bedrock-converse": {"text":"bedrockBlocks","turn":{"group":"content","answer":{"toolResult":{"toolUseId":"$id","content":"$content","status":"$status"}},"note":{"text":"$text"},"documentName":"document"}},
  "langchain": {"text":"blocks","turn":{"answer":{"role":"tool","tool_call_id":"$id","name":"$name?","content":"$content"},"note":{"type":"text","text":"$text"}}},
  "langchain-js": {"text":"blocks","turn":{"answer":{"role":"tool","tool_call_id":"$id","name":"$name?","content":"$content"},"note":{"type":"text","text":"$text"}}},
});

/** The text that stands in for media a turn leaves out to stay within the per-request limits, by locale. */
export const TURN_NOTES = Object.freeze({
  zh: "[内容未发送：本次请求已达到模型接口的单次请求上限（图片数量、总大小或 PDF 页数）。请单独再次读取此内容。]",
  en: "[Content not sent: this request reached the model API's per-request limits (images, total size or PDF pages). Read this content again on its own.]",
});
