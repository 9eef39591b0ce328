// The types of src/contract.d.ts against real replies of the worker under test: every member a reply
// has is declared in its interface (no undeclared field), every required member is there, and a
// member declared string, number or boolean has that type. (test/contract.test.js checks the same
// interfaces against the JSON Schemas.)
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { WorkerClient, Subjects } from "../src/index.js";
import { natsURL, noisyPNG, randomId } from "./fixtures.js";

const here = dirname(fileURLToPath(import.meta.url));
const dts = readFileSync(join(here, "..", "src", "contract.d.ts"), "utf8");
const repo = join(here, "..", "..", "..");

// The interface of each object-valued member, by interface (arrays: the interface of their items).
const nested = {
  Reply: { error: "ErrorObject" },
  ErrorObject: { assembly: "Assembly" },
  GetArtifactResult: { imageUrl: "ImageURLPart", file: "FilePart", metadata: "ArtifactMetadata", assembly: "Assembly", imageProcessing: "ImageProcessing", usage: "Usage", model: "ModelDecision" },
  ImageURLPart: { image_url: "ImageURL" },
  FilePart: { file: "FileData" },
  ArtifactMetadata: { extracted: "Extraction" },
  ImageProcessing: { original: "ImageInfo", sent: "ImageInfo" },
  Assembly: { followUp: "ChatMessage" },
  GetHistoryImageResult: { content: "HistoryImageBlock", assembly: "Assembly", imageProcessing: "ImageProcessing", usage: "Usage" },
  PreprocessResult: { stats: "PreprocessStats" },
  MetadataResult: { meta: "MetadataMeta" },
  MetadataMeta: { modifiedBy: "Modification" },
};

// members parses `export interface Name { ... }` into {member: {optional, type}}.
function members(name) {
  const m = dts.match(new RegExp(`^export interface ${name}(?:<[^>]*>)? \\{\\n([\\s\\S]*?)^\\}`, "m"));
  assert.ok(m, `interface ${name} missing from contract.d.ts`);
  const out = {};
  for (const line of m[1].split("\n")) {
    const p = line.match(/^ {2}([A-Za-z_][A-Za-z0-9_]*)(\??): (.*);$/);
    if (p) out[p[1]] = { optional: p[2] === "?", type: p[3] };
  }
  return out;
}

// conforms checks value against interface name, recursing through `nested`; returns the problems.
function conforms(value, name, path = "$", problems = []) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    problems.push(`${path}: not an object (${name})`);
    return problems;
  }
  const decl = members(name);
  const indexed = new RegExp(`^export interface ${name} \\{[^}]*\\[key: string\\]: unknown;`, "m").test(dts);
  for (const [k, d] of Object.entries(decl)) {
    if (!d.optional && !(k in value)) problems.push(`${path}.${k}: required by ${name}, missing`);
  }
  for (const [k, v] of Object.entries(value)) {
    const d = decl[k];
    if (!d) {
      if (!indexed) problems.push(`${path}.${k}: not declared in ${name}`);
      continue;
    }
    if (["string", "number", "boolean"].includes(d.type) && typeof v !== d.type) problems.push(`${path}.${k}: ${typeof v}, declared ${d.type}`);
    const inner = nested[name]?.[k];
    if (inner) {
      if (Array.isArray(v)) v.forEach((x, i) => conforms(x, inner, `${path}.${k}[${i}]`, problems));
      else conforms(v, inner, `${path}.${k}`, problems);
    }
  }
  return problems;
}

let worker;
const seen = new Map(); // result interface -> how many replies were checked
before(async () => { worker = await WorkerClient.connect({ servers: natsURL }); });
after(async () => { await worker?.close(); });

// Sends request on subject and checks the reply envelope, and its result against resultType.
async function check(subject, request, resultType) {
  const raw = await worker.callRaw(subject, new TextEncoder().encode(JSON.stringify({ request_id: randomId("types"), ...request })));
  const reply = JSON.parse(new TextDecoder().decode(raw));
  const problems = conforms(reply, "Reply");
  if (reply.ok) conforms(reply.result, resultType, "$.result", problems);
  assert.deepEqual(problems, [], `${subject} ${JSON.stringify(request).slice(0, 120)}`);
  seen.set(reply.ok ? resultType : "ErrorObject", (seen.get(reply.ok ? resultType : "ErrorObject") ?? 0) + 1);
  return reply;
}

test("contract.d.ts describes the worker's real replies", async () => {
  const ws = randomId("types");
  const write = async (path, mime, bytes) => (await check(Subjects.fileWritten,
    { workspace_id: ws, path, mime_type: mime, agent_id: "types", content_base64: Buffer.from(bytes).toString("base64") }, "FileWrittenResult")).result.artifactId;
  const png = noisyPNG(40, 30);
  const img = await write("chart.png", "image/png", png);
  const pdf = await write("report.pdf", "application/pdf", readFileSync(join(repo, "extract", "testdata", "report.pdf")));
  const text = await write("notes.md", "text/markdown", "# Notes\n");

  for (const media of ["both", "result", "assembly"]) {
    await check(Subjects.getArtifact, { ref: img, service_id: "gpt-4o", media }, "GetArtifactResult");
  }
  for (const dialect of ["openai-responses", "anthropic", "gemini", "bedrock-converse", "langchain"]) {
    await check(Subjects.getArtifact, { ref: img, service_id: "gpt-4o", dialect }, "GetArtifactResult");
  }
  await check(Subjects.getArtifact, { ref: pdf, service_id: "claude-sonnet-4" }, "GetArtifactResult");
  const extracted = await check(Subjects.getArtifact, { ref: pdf, service_id: "deepseek-chat", extract_text: true, locale: "en" }, "GetArtifactResult");
  assert.ok(extracted.result.metadata.extracted, "no extraction to check");
  await check(Subjects.getArtifact, { ref: img, service_id: "deepseek-chat" }, "GetArtifactResult");
  await check(Subjects.getArtifact, { ref: text, capabilities: ["text"] }, "GetArtifactResult");
  const missing = await check(Subjects.getArtifact, { ref: "artifact:" + randomId("missing"), dialect: "anthropic" }, "GetArtifactResult");
  assert.equal(missing.error.code, "artifact_not_found");
  await check(Subjects.getArtifact, { ref: img, media: "sometimes" }, "GetArtifactResult");

  const pre = await check(Subjects.preprocess, { messages: [
    ["human", [{ type: "image_url", image_url: { url: "data:image/png;base64," + png.toString("base64") } }]], ["ai", "a chart"], ["human", "and?"],
  ] }, "PreprocessResult");
  const md5 = JSON.stringify(pre.result.messages).match(/history_[0-9a-f]{32}/)[0];
  for (const request of [{ service_id: "gpt-4o" }, { service_id: "claude-sonnet-4", dialect: "anthropic", media: "result" }, { service_id: "deepseek-chat" }]) {
    await check(Subjects.getHistoryImage, { image_md5: md5, ...request }, "GetHistoryImageResult");
  }
  await check(Subjects.metadata, { id: text }, "MetadataResult");

  assert.deepEqual([...seen.keys()].sort(), ["ErrorObject", "FileWrittenResult", "GetArtifactResult", "GetHistoryImageResult", "MetadataResult", "PreprocessResult"]);
});

test("the check finds an undeclared member, a missing required one and a wrong type", () => {
  assert.deepEqual(conforms({ ok: true, request_id: 7, extra: 1 }, "Reply"), ["$.request_id: number, declared string", "$.extra: not declared in Reply"]);
  assert.deepEqual(conforms({ id: "a", type: "t", filename: "f", mimeType: "m", createdAt: "c" }, "ArtifactMetadata"), ["$.size: required by ArtifactMetadata, missing"]);
});
