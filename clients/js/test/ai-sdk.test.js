// The Vercel AI SDK adapter (src/ai-sdk.js) with the real `ai` and @ai-sdk/* packages against the
// worker under test: a full tool loop with the SDK's own mock model, the request bodies the OpenAI,
// Anthropic and Google providers would send (a custom fetch keeps them), and the README example.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { createOpenAI } from "@ai-sdk/openai";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { WorkerClient } from "../src/index.js";
import { artifactTools, toolMediaAsUserMessage } from "../src/ai-sdk.js";
import { natsURL, noisyPNG, randomId } from "./fixtures.js";
import { runSnippet, assertNoBase64InText } from "./snippets.js";
import { startFakeOpenAI } from "./fakeopenai.js";

const png = noisyPNG(16, 12).toString("base64");
const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").toString("base64");
let worker, pngRef, pdfRef;

before(async () => {
  worker = await WorkerClient.connect({ servers: natsURL });
  const ws = randomId("aisdk");
  pngRef = (await worker.fileWritten({ workspace_id: ws, path: "chart.png", mime_type: "image/png", content_base64: png })).artifactId;
  pdfRef = (await worker.fileWritten({ workspace_id: ws, path: "report.pdf", mime_type: "application/pdf", content_base64: pdf })).artifactId;
});
after(async () => { await worker?.close(); });

const usage = { inputTokens: { total: 1 }, outputTokens: { total: 1 } };

// A tool loop with the SDK's MockLanguageModelV4: step 1 calls get_artifact on the PNG and the PDF,
// step 2 answers. Returns the prompt of step 2 and the loop's result.
async function toolLoop(serviceId) {
  const prompts = [];
  const model = new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      prompts.push(prompt);
      if (prompts.length > 1) return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      return {
        content: [
          { type: "tool-call", toolCallId: "call_png", toolName: "get_artifact", input: JSON.stringify({ ref: pngRef }) },
          { type: "tool-call", toolCallId: "call_pdf", toolName: "get_artifact", input: JSON.stringify({ ref: pdfRef }) },
        ],
        finishReason: { unified: "tool-calls", raw: undefined }, usage, warnings: [],
      };
    },
  });
  const result = await generateText({ model, tools: artifactTools(worker, { serviceId, locale: "en" }), stopWhen: stepCountIs(3), prompt: "What is in them?" });
  assert.equal(result.text, "done");
  assert.equal(prompts.length, 2);
  return { prompt: prompts[1], result };
}

test("ai-sdk: a tool loop with the mock model hands the image and the PDF to the model as file parts", async () => {
  const { prompt } = await toolLoop("gpt-4o");
  const results = prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
  assert.deepEqual(results.map((r) => r.toolCallId), ["call_png", "call_pdf"]);
  // JSON, as the prompt goes to a provider (the SDK adds keys whose value is undefined).
  const [img, doc] = results.map((r) => JSON.parse(JSON.stringify(r.output)));
  assert.equal(img.type, "content");
  assert.deepEqual(img.value, [
    { type: "text", text: "Artifact content (chart.png):" },
    { type: "file", mediaType: "image/png", data: { type: "data", data: png } },
  ]);
  assert.deepEqual(doc.value.at(-1), { type: "file", mediaType: "application/pdf", filename: "report.pdf", data: { type: "data", data: pdf } });
  assertNoBase64InText(prompt, png);
});

test("ai-sdk: get_history_image hands the cached image to the model as a file part, a text-only model the placeholder", async () => {
  const pre = await worker.preprocess({ messages: [["human", [{ type: "image_url", image_url: { url: `data:image/png;base64,${png}` } }]], ["ai", "a chart"], ["human", "and?"]] });
  const md5 = JSON.stringify(pre.messages).match(/history_[0-9a-f]{32}/)[0];
  const output = async (serviceId) => {
    const tools = artifactTools(worker, { serviceId }) // no locale: "en", as the descriptions;
    const result = await tools.get_history_image.execute({ image_md5: md5 }, { toolCallId: "c1", messages: [] });
    return JSON.parse(JSON.stringify(await tools.get_history_image.toModelOutput({ toolCallId: "c1", input: { image_md5: md5 }, output: result })));
  };
  assert.deepEqual(await output("gpt-4o"), { type: "content", value: [
    { type: "text", text: `[Picture:${md5}]` },
    { type: "file", mediaType: "image/png", data: { type: "data", data: png } },
  ] });
  const text = await output("deepseek-chat");
  assert.equal(text.type, "text");
  assert.match(text.value, new RegExp(`^\\[Picture:${md5}\\]\\n`));
});

test("ai-sdk: a model without vision gets the description as a text output", async () => {
  const { prompt } = await toolLoop("deepseek-chat");
  const outputs = prompt.filter((m) => m.role === "tool").flatMap((m) => m.content.map((r) => r.output));
  for (const o of outputs) assert.equal(o.type, "text", JSON.stringify(o));
  assert.match(outputs[0].value, /^\[Cannot read\] chart\.png/);
});

// What each provider package would send after the loop (the request is kept, never sent).
async function providerBody(model, messages) {
  let body;
  const fetch = async (_url, init) => { body = JSON.parse(init.body); throw new Error("kept, not sent"); };
  await assert.rejects(generateText({ model: model(fetch), messages, maxRetries: 0 }));
  assert.ok(body, "the provider sent no request");
  return body;
}

test("ai-sdk: @ai-sdk/openai, anthropic and google send the tool's media as media", async () => {
  const { result } = await toolLoop("gpt-4o");
  const messages = [{ role: "user", content: "What is in them?" }, ...result.steps[0].response.messages];
  const pngURL = `data:image/png;base64,${png}`;

  const responses = await providerBody((fetch) => createOpenAI({ apiKey: "test", fetch })("gpt-4o"), messages);
  const outputs = responses.input.filter((i) => i.type === "function_call_output");
  assert.deepEqual(outputs[0].output, [{ type: "input_text", text: "Artifact content (chart.png):" }, { type: "input_image", image_url: pngURL }]);
  assert.deepEqual(outputs[1].output.at(-1), { type: "input_file", filename: "report.pdf", file_data: `data:application/pdf;base64,${pdf}` });
  assertNoBase64InText(responses, png);

  const anthropic = await providerBody((fetch) => createAnthropic({ apiKey: "test", fetch })("claude-sonnet-4-5"), messages);
  const toolResults = anthropic.messages.at(-1).content;
  assert.deepEqual(toolResults[0].content.at(-1), { type: "image", source: { type: "base64", media_type: "image/png", data: png } });
  assert.deepEqual(toolResults[1].content.at(-1), { type: "document", source: { type: "base64", media_type: "application/pdf", data: pdf } });
  assertNoBase64InText(anthropic, png);

  const google = await providerBody((fetch) => createGoogle({ apiKey: "test", fetch })("gemini-2.5-flash"), messages);
  const inline = google.contents.at(-1).parts.filter((p) => p.inlineData).map((p) => p.inlineData);
  assert.deepEqual(inline, [{ mimeType: "image/png", data: png }, { mimeType: "application/pdf", data: pdf }]);
  assertNoBase64InText(google, png);
});

test("ai-sdk: for Chat Completions, toolMediaAsUserMessage moves the media into a user message after the tool messages", async () => {
  const { result } = await toolLoop("gpt-4o");
  const messages = [{ role: "user", content: "What is in them?" }, ...result.steps[0].response.messages];
  // Unwrapped, the SDK sends the media as JSON text in the tool message (what the middleware is for).
  const plain = await providerBody((fetch) => createOpenAI({ apiKey: "test", fetch }).chat("gpt-4o"), messages);
  assert.ok(plain.messages.find((m) => m.role === "tool").content.includes(png), "the SDK no longer puts the media in the tool message's text: is the middleware still needed?");

  const body = await providerBody((fetch) => wrapLanguageModel({ model: createOpenAI({ apiKey: "test", fetch }).chat("gpt-4o"), middleware: toolMediaAsUserMessage() }), messages);
  assert.deepEqual(body.messages.map((m) => m.role), ["user", "assistant", "tool", "tool", "user"]);
  assert.equal(body.messages[2].content, "Artifact content (chart.png):\nThe content follows in the next message.");
  assert.deepEqual(body.messages[4].content, [
    { type: "text", text: "Artifact content (chart.png):" },
    { type: "image_url", image_url: { url: `data:image/png;base64,${png}` } },
    { type: "text", text: "Artifact content (report.pdf):" },
    { type: "file", file: { filename: "report.pdf", file_data: `data:application/pdf;base64,${pdf}` } },
  ]);
  assertNoBase64InText(body, png);
});

test("ai-sdk: the README example runs as written", async () => {
  const openai = await startFakeOpenAI();
  try {
    const { stdout } = await runSnippet("framework:ai-sdk", { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "test" });
    assert.equal(stdout.trim(), "done");
    const [, second] = openai.requests;
    const output = second.body.input.find((i) => i.type === "function_call_output").output;
    assert.equal(output.at(-1).type, "input_image");
    assert.match(output.at(-1).image_url, /^data:image\/png;base64,iVBORw0KGgo/);
  } finally {
    await openai.close();
  }
});
