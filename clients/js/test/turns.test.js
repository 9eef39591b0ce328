// assembleTurn returns what the Go client's client.Turn returns for the same calls, in every
// dialect: testdata/turns.json is written by the Go test TestTurnFixtures (client/), which fails
// when the file is not client.Turn's output of today.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { assembleTurn, WorkerError } from "../src/index.js";

const cases = JSON.parse(readFileSync(new URL("./testdata/turns.json", import.meta.url), "utf8"));
const dialects = ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock-converse", "langchain", "langchain-js"];

// call is a fixture call as the runtime holds it: a result, a WorkerError (the worker's error
// reply), or a client-side error (a timeout: no code, no assembly).
function call(c) {
  if (c.assembly) return { id: c.id, name: c.name, result: { assembly: c.assembly } };
  const error = c.error.code ? new WorkerError(c.error, "r-" + c.id) : new Error(c.error.message);
  return { id: c.id, name: c.name, error };
}

test("turns.json covers 2 to 4 calls with a failed call in every dialect, and a turn over the request limits", () => {
  for (const d of dialects) {
    const mine = cases.filter((c) => c.dialect === d);
    // gemini twice: media inside the functionResponse (inline) and in follow-up contents.
    assert.deepEqual(mine.map((c) => c.calls.length).sort(), d === "gemini" ? [2, 2, 3, 3, 3, 3, 3, 3, 4, 4] : [2, 3, 3, 3, 4], d);
    assert.ok(mine.some((c) => c.limits), `${d}: no turn over the request limits`);
    for (const c of mine) assert.ok(c.calls.some((x) => x.error), `${c.name}: no failed call`);
    assert.ok(mine.some((c) => c.calls.some((x) => x.error?.assembly)), `${d}: no failed call with error.assembly`);
  }
});

for (const c of cases) {
  test(`${c.name}: the same messages as client.Turn`, () => {
    assert.deepEqual(assembleTurn(c.calls.map(call), { limits: c.limits, locale: c.locale }), c.turn);
  });
}

// Over the limits: the media past them is replaced by the note (or dropped inside a Gemini
// function response), the rest is as without limits.
test("a turn over the request limits keeps the first media and says what it left out", () => {
  for (const c of cases.filter((x) => x.limits)) {
    const turn = JSON.stringify(assembleTurn(c.calls.map(call), { limits: c.limits, locale: c.locale }));
    const free = JSON.stringify(assembleTurn(c.calls.map(call)));
    const images = (s) => (s.match(/iVBORw0KGgo/g) ?? []).length;
    assert.equal(images(free), 2, c.name);
    assert.equal(images(turn), 1, c.name);
    assert.ok(!turn.includes("JVBERi0x"), `${c.name}: the PDF past the bytes limit is still there`);
    if (!c.name.startsWith("gemini (inline)")) assert.ok(turn.includes("[Content not sent"), `${c.name}: no note`);
  }
});

// The documented rule, checked on the fixtures' own structure (not only equality with Go).
test("every call is answered once, in call order, in the dialect's place", () => {
  const ids = (c) => c.calls.map((x) => x.id);
  for (const c of cases) {
    if (c.limits) continue; // checked above
    const turn = assembleTurn(c.calls.map(call));
    const failed = c.calls.filter((x) => x.error).map((x) => x.id);
    switch (c.dialect) {
      case "openai-chat": {
        const tools = turn.filter((m) => m.role === "tool");
        assert.deepEqual(tools.map((m) => m.tool_call_id), ids(c), c.name);
        assert.deepEqual(turn.slice(0, tools.length), tools, `${c.name}: a follow-up sits between tool messages`);
        assert.ok(turn.slice(tools.length).every((m) => m.role === "user"), c.name);
        break;
      }
      case "openai-responses":
        assert.deepEqual(turn.map((m) => [m.type, m.call_id]), ids(c).map((id) => ["function_call_output", id]), c.name);
        break;
      case "anthropic":
        assert.equal(turn.length, 1, c.name);
        assert.deepEqual(turn[0].content.map((b) => b.tool_use_id), ids(c), c.name);
        assert.deepEqual(turn[0].content.filter((b) => b.is_error).map((b) => b.tool_use_id), failed, c.name);
        break;
      case "gemini": {
        // Every function response in the first content; then the follow-ups (media of models that
        // take none in a function response), one per call with media, in call order.
        const withMedia = c.calls.filter((x) => x.assembly?.followUp?.length).map((x) => x.assembly.followUp[0]);
        assert.equal(turn.length, 1 + withMedia.length, c.name);
        assert.deepEqual(turn[0].parts.map((p) => [p.functionResponse.id, p.functionResponse.name]), c.calls.map((x) => [x.id, x.name]), c.name);
        assert.ok(turn[0].parts.every((p) => typeof p.functionResponse.response.output === "string"), c.name);
        assert.deepEqual(turn.slice(1), withMedia, c.name);
        assert.ok(turn.slice(1).every((m) => m.role === "user" && m.parts.some((p) => p.inlineData)), c.name);
        break;
      }
      case "bedrock-converse":
        assert.equal(turn.length, 1, c.name);
        assert.deepEqual(turn[0].content.map((b) => b.toolResult.toolUseId), ids(c), c.name);
        assert.ok(turn[0].content.every((b) => b.toolResult.content.length > 0), c.name);
        // Converse's ToolResultStatus: "error" for a failed call, "success" for the others.
        assert.deepEqual(turn[0].content.map((b) => b.toolResult.status), c.calls.map((x) => (x.error ? "error" : "success")), c.name);
        break;
      case "langchain":
      case "langchain-js":
        assert.deepEqual(turn.map((m) => [m.role, m.tool_call_id, m.name]), c.calls.map((x) => ["tool", x.id, x.name]), c.name);
        break;
      default:
        assert.fail(`unknown dialect ${c.dialect}`);
    }
  }
});

test("refused: no calls, no id, no name for gemini, a result of another dialect, an unknown dialect", () => {
  const g = { assembly: { dialect: "gemini", toolContent: { response: { output: "x" } } } };
  assert.throws(() => assembleTurn([]), /no calls/);
  assert.throws(() => assembleTurn([{ result: g }]), /no id/);
  assert.throws(() => assembleTurn([{ id: "c1", result: g }]), /no name/);
  assert.throws(() => assembleTurn([{ id: "c1", name: "f", result: { assembly: { dialect: "gemini", toolContent: "x" } } }]), /not an object/);
  assert.throws(() => assembleTurn([{ id: "c1", name: "f", result: g }], { dialect: "langchain" }), /dialect gemini, the turn langchain/);
  assert.throws(() => assembleTurn([{ id: "c1", error: new Error("x") }], { dialect: "cobol" }), /not supported/);
  assert.throws(() => assembleTurn([{ id: "c1" }]), /neither result nor error/);
});

test("a turn of failed calls only takes its dialect from the worker's error assemblies", () => {
  const err = new WorkerError({ code: "image_not_found", message: "图片不存在或已过期",
    assembly: { dialect: "bedrock-converse", toolContent: [{ text: "图片不存在或已过期" }] } }, "r1");
  assert.deepEqual(assembleTurn([{ id: "t1", error: err }, { id: "t2", error: new Error("") }]), [{
    role: "user", content: [
      { toolResult: { toolUseId: "t1", content: [{ text: "图片不存在或已过期" }], status: "error" } },
      { toolResult: { toolUseId: "t2", content: [{ text: "(empty)" }], status: "error" } },
    ],
  }]);
});
