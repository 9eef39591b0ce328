// `worker mcp` with the 2.x MCP TypeScript client pinned to the 2026-07-28 (stateless) protocol, set
// up as the README's "MCP hosts" section says: its Claude Desktop configuration (stdio) and its HTTP
// server command with Claude Code's .mcp.json, run as written (only the worker binary, the NATS URL,
// the content URL and the HTTP port are the test's). integration/mcp_test.go runs it against a worker
// process: WORKER_BIN, NATS_URL, WORKER_HTTP (host:port of worker run's HTTP server), HTTP_TOKEN (its
// token), MCP_IMAGE_REF (a 1200x900 PNG of incompressible noise, ~3.2 MB) and MCP_PDF_REF (a PDF
// over 1 MB).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const env = process.env;
const skip = env.WORKER_BIN ? false : "WORKER_BIN is not set (integration/mcp_test.go sets it)";
const workerURL = `http://${env.WORKER_HTTP}`;
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

// block returns the fenced block after the README marker <!-- mcp-hosts:NAME ... -->.
function block(name) {
  const m = readme.match(new RegExp(`<!-- mcp-hosts:${name}\\b[^>]*-->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``));
  assert.ok(m, `README has no mcp-hosts:${name} block`);
  return m[1];
}

const modern = { versionNegotiation: { mode: { pin: "2026-07-28" } } };

function newClient() {
  return new Client({ name: "hosts-test", version: "1.0.0" }, modern);
}

async function getArtifact(client, ref) {
  const res = await client.callTool({ name: "get_artifact", arguments: { ref } });
  assert.notEqual(res.isError, true, JSON.stringify(res).slice(0, 500));
  return { res, bytes: Buffer.byteLength(JSON.stringify(res)) };
}

test("Claude Desktop's configuration: stdio, 2026-07-28, an image under 1 MB", { skip }, async () => {
  const server = JSON.parse(block("claude-desktop")).mcpServers["artifact-worker"];
  assert.equal(server.command, "/path/to/artifact-worker/bin/worker");
  const args = server.args.map((a) => (a === "http://127.0.0.1:8080" ? workerURL : a));
  const client = newClient();
  await client.connect(new StdioClientTransport({ command: env.WORKER_BIN, args, env: { ...env, ...server.env, NATS_URL: env.NATS_URL }, stderr: "inherit" }));
  try {
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const { tools } = await client.listTools();
    for (const t of tools) assert.equal(t._meta?.["anthropic/maxResultSizeChars"], 500000, t.name);
    const { res, bytes } = await getArtifact(client, env.MCP_IMAGE_REF);
    console.log(`# claude-desktop: get_artifact of the 1200x900 PNG: ${bytes} bytes of JSON`);
    assert.ok(bytes < 1_000_000, `${bytes} bytes`);
    const img = res.content.find((c) => c.type === "image");
    assert.ok(img && img.data.length > 100_000, "no image block of substance");
    assert.match(res.content.map((c) => c.text ?? "").join("\n"), /1200x900/);
  } finally {
    await client.close();
  }
});

// startHTTP runs the README's command line for the HTTP server on a free port and returns its URL.
async function startHTTP(t, token) {
  const line = block("http").split("\n").filter((l) => !l.startsWith("export ")).join(" ").replace(/\\\s+/g, "");
  const argv = line.trim().split(/\s+/).map((a) => (a === "127.0.0.1:8090" ? "127.0.0.1:0" : a === "http://127.0.0.1:8080" ? workerURL : a));
  assert.equal(argv[0], "./bin/worker");
  const proc = spawn(env.WORKER_BIN, argv.slice(1), { env: { ...env, MCP_TOKEN: token, HTTP_TOKEN: env.HTTP_TOKEN }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    proc.stderr.on("data", (d) => {
      stderr += d;
      const m = stderr.match(/streamable HTTP on (http:\/\/\S+\/mcp)/);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error(`worker mcp exited ${code}: ${stderr}`)));
  });
  t.after(async () => {
    proc.kill("SIGTERM");
    if (proc.exitCode === null) await once(proc, "exit");
  });
  return url;
}

test("HTTP with Claude Code's .mcp.json: token, Origin, 2026-07-28, resource links", { skip }, async (t) => {
  const token = randomBytes(32).toString("hex"); // as `openssl rand -hex 32`
  const url = await startHTTP(t, token);
  const conf = JSON.parse(block("claude-code")).mcpServers["artifact-worker"];
  assert.equal(conf.type, "http");
  assert.equal(conf.url, "http://127.0.0.1:8090/mcp");
  const headers = Object.fromEntries(Object.entries(conf.headers).map(([k, v]) => [k, v.replace("${MCP_TOKEN}", token)]));

  const connect = async (h) => {
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: h } }));
    return client;
  };
  await assert.rejects(connect({}), "connected without a token");
  await assert.rejects(connect({ Authorization: "Bearer wrong" }), "connected with a wrong token");
  const post = (h) => fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...h },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  }).then((r) => r.status);
  assert.equal(await post({}), 401);
  assert.equal(await post({ Authorization: "Bearer wrong" }), 401);
  assert.equal(await post({ ...headers, Origin: "https://evil.example" }), 403);

  const client = await connect(headers);
  try {
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((x) => x.name), ["get_artifact", "get_history_image", "write_file"]);
    for (const x of tools) assert.equal(x._meta?.["anthropic/maxResultSizeChars"], 500000, x.name);

    const image = await getArtifact(client, env.MCP_IMAGE_REF);
    console.log(`# claude-code: get_artifact of the 1200x900 PNG: ${image.bytes} bytes of JSON`);
    assert.ok(image.bytes <= 500_000, `${image.bytes} bytes`);
    assert.ok(image.res.content.some((c) => c.type === "image"));

    const pdf = await getArtifact(client, env.MCP_PDF_REF);
    assert.ok(pdf.bytes <= 500_000, `${pdf.bytes} bytes`);
    const link = pdf.res.content.find((c) => c.type === "resource_link");
    const id = env.MCP_PDF_REF.replace(/^artifact:/, "");
    assert.ok(link, JSON.stringify(pdf.res.content));
    assert.equal(link.uri, `${workerURL}/artifacts/${encodeURIComponent(id)}/content`);
    assert.equal(link.mimeType, "application/pdf");
    const line = pdf.res.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");
    assert.ok(line.includes(link.uri) && line.includes("HTTP_TOKEN"), line);
    assert.ok(!line.includes(env.HTTP_TOKEN), "the worker's token is in the result");
    const got = await fetch(link.uri, { headers: { Authorization: `Bearer ${env.HTTP_TOKEN}` } });
    assert.equal(got.status, 200);
    assert.equal((await got.arrayBuffer()).byteLength, link.size);
    assert.equal((await fetch(link.uri)).status, 401);
  } finally {
    await client.close();
  }
});
