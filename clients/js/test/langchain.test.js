// The LangChain JS adapter (src/langchain.js) with the real @langchain/core and @langchain/openai
// against the worker under test: the tools' ToolMessages hold standard content blocks that
// LangChain.js reads as media, and ChatOpenAI sends them as media after mediaAsHumanMessage.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { WorkerClient } from "../src/index.js";
import { artifactTools, mediaAsHumanMessage, toStandardBlocks } from "../src/langchain.js";
import { natsURL, noisyPNG, randomId } from "./fixtures.js";
import { runSnippet, assertNoBase64InText } from "./snippets.js";
import { startFakeOpenAI } from "./fakeopenai.js";

const png = noisyPNG(16, 12).toString("base64");
const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").toString("base64");
let worker, pngRef, pdfRef;

before(async () => {
  worker = await WorkerClient.connect({ servers: natsURL });
  const ws = randomId("langchain");
  pngRef = (await worker.fileWritten({ workspace_id: ws, path: "chart.png", mime_type: "image/png", content_base64: png })).artifactId;
  pdfRef = (await worker.fileWritten({ workspace_id: ws, path: "report.pdf", mime_type: "application/pdf", content_base64: pdf })).artifactId;
});
after(async () => { await worker?.close(); });

// The tools answering one AI turn that calls get_artifact on the PNG and the PDF.
async function turn(serviceId) {
  const tools = artifactTools(worker, { serviceId }) // no locale: "en", as the descriptions;
  const ai = new AIMessage({ content: "", tool_calls: [
    { id: "call_png", name: "get_artifact", args: { ref: pngRef }, type: "tool_call" },
    { id: "call_pdf", name: "get_artifact", args: { ref: pdfRef }, type: "tool_call" },
  ] });
  const results = [];
  for (const call of ai.tool_calls) results.push(await tools.find((t) => t.name === call.name).invoke(call));
  return [new HumanMessage("What is in them?"), ai, ...results];
}

test("langchain: a tool returns a ToolMessage whose standard content blocks LangChain.js reads as media", async () => {
  const [, , img, doc] = await turn("gpt-4o");
  assert.ok(ToolMessage.isInstance(img));
  assert.equal(img.tool_call_id, "call_png");
  // contentBlocks is LangChain.js's own reading of the content: what its provider integrations send.
  assert.deepEqual(img.contentBlocks, [
    { type: "text", text: "Artifact content (chart.png):" },
    { type: "image", data: png, mimeType: "image/png" },
  ]);
  assert.deepEqual(doc.contentBlocks.at(-1), { type: "file", data: pdf, mimeType: "application/pdf", metadata: { filename: "report.pdf" } });
  assertNoBase64InText(img.content, png);
});

test("langchain: a failed call is an error ToolMessage with the worker's tool result for it, not an exception", async () => {
  const [get] = artifactTools(worker, { serviceId: "gpt-4o" });
  const msg = await get.invoke({ id: "call_x", name: "get_artifact", args: { ref: "artifact:" + randomId("missing") }, type: "tool_call" });
  assert.ok(ToolMessage.isInstance(msg));
  assert.equal(msg.status, "error");
  assert.equal(msg.tool_call_id, "call_x");
  // The worker's tool result for the failure, in the langchain-js dialect: its JSON error object as text.
  assert.equal(msg.contentBlocks.length, 1);
  const { error, message } = JSON.parse(msg.contentBlocks[0].text);
  assert.deepEqual([error, message], ["artifact_not_found", "The artifact does not exist or has been deleted"]);
});

test("langchain: a model without vision gets the description as text", async () => {
  const [, , img] = await turn("deepseek-chat");
  assert.deepEqual(img.contentBlocks.map((b) => b.type), ["text"]);
  assert.match(img.contentBlocks[0].text, /^\[Cannot read\] chart\.png/);
});

test("langchain: ChatOpenAI (Chat Completions) gets the media as media in a user message after the tool messages", async () => {
  const messages = await turn("gpt-4o");
  let body;
  const fetch = async (_url, init) => {
    body = JSON.parse(init.body);
    return new Response(JSON.stringify({ error: { message: "kept, not sent" } }), { status: 400, headers: { "content-type": "application/json" } });
  };
  const model = new ChatOpenAI({ model: "gpt-4o", apiKey: "test", maxRetries: 0, configuration: { fetch } });
  // As the tools return them, ChatOpenAI puts the blocks in the tool message, where OpenAI refuses images.
  await assert.rejects(model.invoke(messages));
  assert.ok(Array.isArray(body.messages[2].content) && body.messages[2].content.some((p) => p.type === "image"), "ChatOpenAI no longer puts the blocks in the tool message: is mediaAsHumanMessage still needed?");

  await assert.rejects(model.invoke(mediaAsHumanMessage(messages)));
  assert.deepEqual(body.messages.map((m) => m.role), ["user", "assistant", "tool", "tool", "user"]);
  assert.equal(body.messages[2].content, "Artifact content (chart.png):\nThe content follows in the next message.");
  assert.deepEqual(body.messages[4].content, [
    { type: "text", text: "Artifact content (chart.png):" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
    { type: "text", text: "Artifact content (report.pdf):" },
    { type: "file", file: { file_data: `data:application/pdf;base64,${pdf}`, filename: "report.pdf" } },
  ]);
  assertNoBase64InText(body, png);
});

test("langchain: the worker's langchain dialect (Python's block shape) becomes blocks LangChain.js reads as media", async () => {
  const asm = async (ref) => (await worker.getArtifact({ ref, service_id: "gpt-4o", dialect: "langchain", locale: "en" })).assembly.toolContent;
  const [img, doc] = [await asm(pngRef), await asm(pdfRef)];
  // As the worker sends them, LangChain.js finds no media: no block carries data.
  const raw = new ToolMessage({ tool_call_id: "c1", content: img }).contentBlocks;
  assert.ok(!raw.some((b) => b.data), `LangChain.js now reads the Python shape: ${JSON.stringify(raw).slice(0, 200)}`);
  assert.deepEqual(new ToolMessage({ tool_call_id: "c1", content: toStandardBlocks(img) }).contentBlocks, [
    { type: "text", text: "Artifact content (chart.png):" },
    { type: "image", data: png, mimeType: "image/png" },
  ]);
  assert.deepEqual(new ToolMessage({ tool_call_id: "c2", content: toStandardBlocks(doc) }).contentBlocks.at(-1),
    { type: "file", data: pdf, mimeType: "application/pdf", metadata: { filename: "report.pdf" } });
  assert.equal(toStandardBlocks("text"), "text");
  // The worker's langchain-js dialect is the same blocks, chosen by its name.
  const js = async (ref) => (await worker.getArtifact({ ref, service_id: "gpt-4o", dialect: "langchain-js", locale: "en" })).assembly;
  const [jsImg, jsDoc] = [await js(pngRef), await js(pdfRef)];
  assert.equal(jsImg.dialect, "langchain-js");
  assert.deepEqual(jsImg.toolContent, toStandardBlocks(img));
  assert.deepEqual(jsDoc.toolContent, toStandardBlocks(doc));
  // mediaAsHumanMessage takes either shape: ChatOpenAI sends the Python-shaped image as image_url.
  let body;
  const fetch = async (_url, init) => {
    body = JSON.parse(init.body);
    return new Response(JSON.stringify({ error: { message: "kept, not sent" } }), { status: 400, headers: { "content-type": "application/json" } });
  };
  const model = new ChatOpenAI({ model: "gpt-4o", apiKey: "test", maxRetries: 0, configuration: { fetch } });
  const ai = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "get_artifact", args: { ref: pngRef }, type: "tool_call" }] });
  await assert.rejects(model.invoke(mediaAsHumanMessage([new HumanMessage("look"), ai, new ToolMessage({ tool_call_id: "c1", content: img })])));
  assert.deepEqual(body.messages.at(-1).content.at(-1), { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } });
});

test("langchain: the README example runs as written", async () => {
  const openai = await startFakeOpenAI();
  try {
    const { stdout } = await runSnippet("framework:langchain", { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "test" });
    assert.equal(stdout.trim(), "done");
    const [, second] = openai.requests;
    assert.equal(second.path, "/v1/chat/completions");
    const [tool, user] = second.body.messages.slice(-2);
    assert.equal(tool.role, "tool");
    assert.equal(user.role, "user");
    assert.match(user.content.find((p) => p.type === "image_url").image_url.url, /^data:image\/png;base64,iVBORw0KGgo/);
  } finally {
    await openai.close();
  }
});
