// `worker mcp` with the official MCP TypeScript SDK client, over stdio and streamable HTTP, against
// the worker under test (WORKER_BIN is the worker binary integration/js_test.go built).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { WorkerClient } from "../src/index.js";
import { natsURL, noisyPNG, randomId } from "./fixtures.js";

const workerBin = process.env.WORKER_BIN;
const skip = workerBin ? false : "WORKER_BIN is not set (integration/js_test.go sets it)";
const png = noisyPNG(24, 24);
let worker, imageRef;

before(async () => {
  worker = await WorkerClient.connect({ servers: natsURL });
  const w = await worker.fileWritten({ workspace_id: randomId("mcp"), path: "chart.png", mime_type: "image/png", content_base64: png.toString("base64") });
  imageRef = w.artifactId;
});
after(async () => { await worker?.close(); });

async function connectStdio(args) {
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: workerBin, args: ["mcp", ...args], env: { ...process.env, NATS_URL: natsURL }, stderr: "inherit" }));
  return client;
}

async function connectHTTP(args) {
  const proc = spawn(workerBin, ["mcp", "--http", "127.0.0.1:0", ...args], { env: { ...process.env, NATS_URL: natsURL }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    proc.stderr.on("data", (d) => {
      stderr += d;
      const m = stderr.match(/streamable HTTP on (http:\/\/\S+\/mcp)/);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`worker mcp exited ${code}: ${stderr}`)));
  });
  const client = new Client({ name: "mcp-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return {
    client,
    async close() {
      await client.close();
      proc.kill("SIGTERM");
      const [code] = proc.exitCode === null ? await once(proc, "exit") : [proc.exitCode];
      assert.equal(code, 0, `worker mcp --http exit code after SIGTERM: ${stderr}`);
    },
  };
}

test("stdio: tools, an image block for a vision model, write_file, history image", { skip }, async () => {
  const client = await connectStdio(["--service-id", "gpt-4o", "--workspace-id", randomId("mcpws"), "--agent-id", "mcp-test"]);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ["get_artifact", "get_history_image", "write_file"]);
    assert.equal(tools[2].description, "在工作空间内创建或修改文件。");
    assert.deepEqual(tools[2].inputSchema.required, ["path", "content", "mimeType"]);

    const img = await client.callTool({ name: "get_artifact", arguments: { ref: imageRef } });
    assert.equal(img.isError ?? false, false);
    const block = img.content.find((c) => c.type === "image");
    assert.ok(block, JSON.stringify(img.content).slice(0, 300));
    assert.equal(block.mimeType, "image/png");
    assert.equal(block.data, png.toString("base64"));

    const wrote = await client.callTool({ name: "write_file", arguments: { path: "notes/a.md", content: "# A\n", mimeType: "text/markdown" } });
    const out = JSON.parse(wrote.content[0].text);
    assert.equal(out.ok, true);
    const back = await client.callTool({ name: "get_artifact", arguments: { ref: out.artifactId } });
    assert.deepEqual(back.content, [{ type: "text", text: "# A\n" }]);

    const pre = await worker.preprocess({ messages: [["human", [{ type: "image_url", image_url: { url: "data:image/png;base64," + png.toString("base64") } }]], ["ai", "ok"], ["human", "again"]] });
    const id = JSON.stringify(pre.messages).match(/history_[0-9a-f]+/)[0];
    const hist = await client.callTool({ name: "get_history_image", arguments: { image_md5: id } });
    assert.deepEqual(hist.content, [{ type: "image", mimeType: "image/png", data: png.toString("base64") }]);
  } finally {
    await client.close();
  }
});

test("streamable HTTP: a description for a text-only model, tool errors localised", { skip }, async () => {
  const { client, close } = await connectHTTP(["--locale", "en"]);
  try {
    const { tools } = await client.listTools();
    assert.equal(tools.length, 3);
    const res = await client.callTool({ name: "get_artifact", arguments: { ref: imageRef } });
    assert.equal(res.content.length, 1);
    assert.equal(res.content[0].type, "text");
    assert.match(res.content[0].text, /^\[Cannot read\] chart\.png/);
    const vision = await client.callTool({ name: "get_artifact", arguments: { ref: imageRef, service_id: "gpt-4o" } });
    assert.ok(vision.content.some((c) => c.type === "image"), "service_id argument ignored");
    const missing = await client.callTool({ name: "get_history_image", arguments: { image_md5: "0123456789abcdef0123456789abcdef" } });
    assert.equal(missing.isError, true);
    assert.ok(missing.content[0].text.length > 0);
    const noWs = await client.callTool({ name: "write_file", arguments: { path: "a.txt", content: "a", mimeType: "text/plain" } });
    assert.equal(noWs.isError, true);
    assert.equal(noWs.content[0].text, "No workspace is assigned to the current agent");
  } finally {
    await close();
  }
});
