import { test } from "node:test";
import assert from "node:assert/strict";
import { assembleTurn, WorkerError } from "../src/index.js";

const image = (n) => ({
  assembly: {
    dialect: "openai-chat",
    toolContent: `工件内容 (${n}.png):\n内容见下一条消息。`,
    followUp: [{ role: "user", content: [{ type: "image_url", image_url: { url: `data:image/png;base64,${n}` } }] }],
  },
});
const text = (s) => ({ assembly: { dialect: "openai-chat", toolContent: s } });

test("openai-chat: every tool message first, then the follow-ups in call order", () => {
  const msgs = assembleTurn([
    { id: "call_1", result: image("a") },
    { id: "call_2", result: text("hello") },
    { id: "call_3", result: image("b") },
  ]);
  assert.deepEqual(msgs.map((m) => m.role), ["tool", "tool", "tool", "user", "user"]);
  assert.deepEqual(msgs.slice(0, 3).map((m) => m.tool_call_id), ["call_1", "call_2", "call_3"]);
  assert.equal(msgs[1].content, "hello");
  assert.equal(msgs[3].content[0].image_url.url, "data:image/png;base64,a");
  assert.equal(msgs[4].content[0].image_url.url, "data:image/png;base64,b");
});

test("anthropic: all tool_result blocks in one user message; a failed call is an error result", () => {
  const block = [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAAA" } }];
  const msgs = assembleTurn([
    { id: "toolu_1", result: { assembly: { dialect: "anthropic", toolContent: block } } },
    { id: "toolu_2", error: new WorkerError({ code: "artifact_not_found", message: "未找到文件: x" }, "r2") },
  ]);
  assert.equal(msgs.length, 1);
  assert.equal(msgs[0].role, "user");
  assert.deepEqual(msgs[0].content, [
    { type: "tool_result", tool_use_id: "toolu_1", content: block },
    { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "未找到文件: x" }], is_error: true },
  ]);
});

test("mixed dialects in one turn are refused", () => {
  assert.throws(() => assembleTurn([
    { id: "a", result: text("x") },
    { id: "b", result: { assembly: { dialect: "anthropic", toolContent: [] } } },
  ]), /dialect/);
});

test("a failed call is answered with the tool result the worker put in the error", () => {
  const notFound = JSON.stringify({ error: "artifact_not_found", ref: "artifact:x", message: "工件不存在或已被删除" });
  const err = (dialect, toolContent) => new WorkerError({ code: "artifact_not_found", message: "工件不存在或已被删除", ref: "artifact:x", assembly: { dialect, toolContent } }, "r");
  const oa = assembleTurn([{ id: "call_1", error: err("openai-chat", notFound) }]);
  assert.deepEqual(oa, [{ role: "tool", tool_call_id: "call_1", content: notFound }]);
  const blocks = [{ type: "text", text: notFound }];
  const an = assembleTurn([{ id: "toolu_1", error: err("anthropic", blocks) }], { dialect: "anthropic" });
  assert.deepEqual(an[0].content, [{ type: "tool_result", tool_use_id: "toolu_1", content: blocks, is_error: true }]);
});

test("a failed call is answered with the worker's tool result for the error", () => {
  const text = '{"error":"artifact_not_found","ref":"artifact:x","message":"工件不存在或已被删除"}';
  const err = new WorkerError({ code: "artifact_not_found", message: "工件不存在或已被删除", ref: "artifact:x",
    assembly: { dialect: "openai-chat", toolContent: text } }, "r1");
  const msgs = assembleTurn([{ id: "call_1", error: err }, { id: "call_2", result: { assembly: { dialect: "openai-chat", toolContent: "ok" } } }]);
  assert.deepEqual(msgs, [
    { role: "tool", tool_call_id: "call_1", content: text },
    { role: "tool", tool_call_id: "call_2", content: "ok" },
  ]);
});
