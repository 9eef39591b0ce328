// The OpenAI Agents JS adapter (src/openai-agents.js) with the real @openai/agents against the
// worker under test and a stand-in OpenAI endpoint: the function tools' image and file outputs
// reach the Responses API request as input_image and input_file.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from "@openai/agents";
import { WorkerClient } from "../src/index.js";
import { artifactTools } from "../src/openai-agents.js";
import { natsURL, noisyPNG, randomId } from "./fixtures.js";
import { runSnippet, assertNoBase64InText } from "./snippets.js";
import { startFakeOpenAI } from "./fakeopenai.js";

const png = noisyPNG(16, 12).toString("base64");
const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n").toString("base64");
let worker, openai, pngRef, pdfRef;

before(async () => {
  worker = await WorkerClient.connect({ servers: natsURL });
  openai = await startFakeOpenAI();
  setTracingDisabled(true);
  setDefaultOpenAIClient(new OpenAI({ baseURL: openai.url, apiKey: "test" }));
  const ws = randomId("agents");
  pngRef = (await worker.fileWritten({ workspace_id: ws, path: "chart.png", mime_type: "image/png", content_base64: png })).artifactId;
  pdfRef = (await worker.fileWritten({ workspace_id: ws, path: "report.pdf", mime_type: "application/pdf", content_base64: pdf })).artifactId;
});
after(async () => { await worker?.close(); await openai?.close(); });

// Runs an agent whose model (the stand-in) calls get_artifact on ref; returns the function call's
// output in the Responses request that follows.
async function toolOutput(serviceId, ref) {
  const agent = new Agent({ name: "t", instructions: "i", model: "gpt-4o", tools: artifactTools(worker, { serviceId }) });
  const from = openai.requests.length;
  const result = await run(agent, `What does ${ref} show?`);
  assert.equal(result.finalOutput, "done");
  const [first, second] = openai.requests.slice(from);
  assert.deepEqual(first.body.tools.map((t) => [t.name, t.strict]), [["get_artifact", true], ["get_history_image", true]]);
  assertNoBase64InText(second.body, png);
  return second.body.input.find((i) => i.type === "function_call_output").output;
}

test("openai-agents: an image reaches the model as input_image", async () => {
  assert.deepEqual(await toolOutput("gpt-4o", pngRef), [
    { type: "input_text", text: "Artifact content (chart.png):" },
    { type: "input_image", image_url: `data:image/png;base64,${png}` },
  ]);
});

test("openai-agents: a PDF reaches the model as input_file", async () => {
  const output = await toolOutput("gpt-4o", pdfRef);
  assert.deepEqual(output.at(-1), { type: "input_file", file_data: `data:application/pdf;base64,${pdf}`, filename: "report.pdf" });
});

test("openai-agents: a model without vision gets the description as text", async () => {
  const output = await toolOutput("deepseek-chat", pngRef);
  assert.equal(typeof output, "string");
  assert.match(output, /^\[Cannot read\] chart\.png/);
});

test("openai-agents: the README example runs as written", async () => {
  const from = openai.requests.length;
  const { stdout } = await runSnippet("framework:openai-agents", { OPENAI_BASE_URL: openai.url, OPENAI_API_KEY: "test", OPENAI_AGENTS_DISABLE_TRACING: "1" });
  assert.equal(stdout.trim(), "done");
  const output = openai.requests.slice(from)[1].body.input.find((i) => i.type === "function_call_output").output;
  assert.match(output.find((p) => p.type === "input_image").image_url, /^data:image\/png;base64,iVBORw0KGgo/);
});
