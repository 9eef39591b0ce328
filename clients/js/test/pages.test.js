// A PDF for a model that reads images but takes no PDF, from a real worker (integration/js_test.go
// starts one and sets NATS_URL) into the next turn: assembleTurn keeps every page's text and image.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { WorkerClient, assembleTurn } from "../src/index.js";
import { callTool, resultParts } from "../src/tools.js";
import { DIALECT_TABLE } from "../src/dialects.js";
import { natsURL, randomId } from "./fixtures.js";

const report = readFileSync(new URL("../../../internal/testing/testfiles/pdf/report.pdf", import.meta.url));

let client;
before(async () => { client = await WorkerClient.connect({ servers: natsURL }); });
after(async () => { await client?.close(); });

// In order, "T:" and each line naming a page of the texts, and "I" for each image (a data:image
// URL, an image MIME type, a Bedrock image format), in messages of any dialect.
function partSequence(v, key = "") {
  if (Array.isArray(v)) return v.flatMap((e) => partSequence(e));
  if (v && typeof v === "object") return Object.keys(v).sort().flatMap((k) => partSequence(v[k], k));
  if (typeof v === "string") {
    if (v.startsWith("data:image/") || (["mimeType", "media_type", "mime_type"].includes(key) && v.startsWith("image/")) ||
      (key === "format" && (v === "png" || v === "jpeg"))) return ["I"];
    if (["text", "output", "content"].includes(key)) return v.split("\n").filter((l) => l.includes(", page ")).map((l) => "T:" + l);
  }
  return [];
}

test("a PDF's pages go into the next turn in every dialect, each page's text then its image", async (t) => {
  const written = await client.fileWritten({ workspace_id: randomId("js"), path: "report.pdf", mime_type: "application/pdf", content_base64: report.toString("base64") });
  for (const dialect of Object.keys(DIALECT_TABLE)) {
    await t.test(dialect, async () => {
      // The first PDF may wait for the renderer's compile: a bound on a hung call only.
      const res = await client.getArtifact({ ref: written.artifactId, capabilities: ["text", "vision"], dialect, locale: "en" }, { timeout: 120_000 });
      assert.equal(res.routing, "pages");
      assert.equal(res.pages.sent, "1-2");
      const seq = partSequence(assembleTurn([{ id: "call_1", name: "get_artifact", result: res }]));
      assert.equal(seq.filter((s) => s === "I").length, 2, seq.join("|"));
      for (const page of ["T:report.pdf, page 1 of 2", "T:report.pdf, page 2 of 2"]) {
        assert.ok(seq.includes(page), seq.join("|"));
        // gemini's functionResponse: the texts in its response, the images in its parts
        if (dialect !== "gemini") assert.equal(seq[seq.indexOf(page) + 1], "I", seq.join("|"));
      }
    });
  }
});

test("the framework adapters' callTool passes pages and resultParts keeps each page's text and image", async () => {
  const written = await client.fileWritten({ workspace_id: randomId("js"), path: "report.pdf", mime_type: "application/pdf", content_base64: report.toString("base64") });
  const res = await callTool(client, "get_artifact", { ref: written.artifactId, pages: "2" }, { capabilities: ["text", "vision"], timeout: 120_000 });
  const parts = resultParts(res);
  const seq = parts.map((p) => (p.type === "text" ? "T:" + p.text.split("\n")[0] : p.mimeType));
  assert.deepEqual(seq.slice(1), ["T:report.pdf, page 2 of 2", "image/png"], seq.join("|"));
  assert.ok(parts[1].text.includes("Text layer:\nPage two"), parts[1].text);
});
