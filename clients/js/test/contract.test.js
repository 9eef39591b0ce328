// Keeps src/contract.d.ts in step with the JSON Schemas in contracts/schema/: every object of a
// schema that has properties is an interface here, with the same properties and the same required ones.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const schemaDir = join(here, "..", "..", "..", "contracts", "schema");
const dts = readFileSync(join(here, "..", "src", "contract.d.ts"), "utf8");

// Schema object (file, JSON pointer) -> interface. Objects under if/then/else only restate others.
const interfaces = {
  "reply.json#": "Reply",
  "reply.json#/$defs/Error": "ErrorObject",
  "reply.json#/$defs/Assembly": "Assembly",
  "reply.json#/$defs/Assembly/properties/requestLimits": "RequestLimits",
  "reply.json#/$defs/Assembly/properties/toolContent/oneOf/1/items": "ContentBlock",
  "reply.json#/$defs/ChatMessage": "ChatMessage",
  "get_artifact.request.json#": "GetArtifactRequest",
  "get_artifact.result.json#": "GetArtifactResult",
  "get_artifact.result.json#/$defs/ImageURLPart": "ImageURLPart",
  "get_artifact.result.json#/$defs/ImageURLPart/properties/image_url": "ImageURL",
  "get_artifact.result.json#/$defs/FilePart": "FilePart",
  "get_artifact.result.json#/$defs/FilePart/properties/file": "FileData",
  "get_artifact.result.json#/$defs/ArtifactMetadata": "ArtifactMetadata",
  "get_artifact.result.json#/$defs/Extraction": "Extraction",
  "get_artifact.result.json#/$defs/Assembly": "Assembly",
  "get_artifact.result.json#/$defs/Assembly/properties/requestLimits": "RequestLimits",
  "get_artifact.result.json#/$defs/Assembly/properties/toolContent/oneOf/1/items": "ContentBlock",
  "get_artifact.result.json#/$defs/ChatMessage": "ChatMessage",
  "get_artifact.result.json#/$defs/ImageProcessing": "ImageProcessing",
  "get_artifact.result.json#/$defs/ImageInfo": "ImageInfo",
  "get_artifact.result.json#/$defs/Usage": "Usage",
  "get_artifact.result.json#/$defs/ModelDecision": "ModelDecision",
  "get_artifact.result.json#/$defs/PagesResult": "PagesResult",
  "get_artifact.result.json#/$defs/PageImage": "PageImage",
  "get_history_image.result.json#/$defs/PagesResult": "PagesResult",
  "get_history_image.result.json#/$defs/PageImage": "PageImage",
  "get_history_image.result.json#/$defs/ImageURLPart": "ImageURLPart",
  "get_history_image.result.json#/$defs/ImageURLPart/properties/image_url": "ImageURL",
  "get_history_image.result.json#/$defs/Usage": "Usage",
  "get_history_image.result.json#/$defs/ImageProcessing": "ImageProcessing",
  "get_history_image.result.json#/$defs/ImageInfo": "ImageInfo",
  "get_history_image.request.json#": "GetHistoryImageRequest",
  "get_history_image.result.json#": "GetHistoryImageResult",
  "get_history_image.result.json#/$defs/HistoryImageBlock": "HistoryImageBlock",
  "get_history_image.result.json#/$defs/Assembly": "Assembly",
  "get_history_image.result.json#/$defs/Assembly/properties/requestLimits": "RequestLimits",
  "get_history_image.result.json#/$defs/Assembly/properties/toolContent/oneOf/1/items": "ContentBlock",
  "get_history_image.result.json#/$defs/ChatMessage": "ChatMessage",
  "file_written.request.json#": "FileWrittenRequest",
  "file_written.result.json#": "FileWrittenResult",
  "preprocess.request.json#": "PreprocessRequest",
  "preprocess.request.json#/properties/messages/items/oneOf/1": "MessageObject",
  "preprocess.result.json#": "PreprocessResult",
  "preprocess.result.json#/properties/stats": "PreprocessStats",
  "preprocess.result.json#/properties/left_alone/items": "LeftAlonePart",
  "preprocess.result.json#/properties/over_limits/items": "LeftAlonePart",
  "metadata.request.json#": "MetadataRequest",
  "metadata.result.json#": "MetadataResult",
  "metadata.result.json#/properties/meta": "MetadataMeta",
  "metadata.result.json#/properties/meta/properties/modifiedBy/items": "Modification",
};

// objects returns every schema node with properties, by JSON pointer, skipping if/then/else.
function objects(node, pointer, out) {
  if (Array.isArray(node)) {
    node.forEach((v, i) => objects(v, `${pointer}/${i}`, out));
  } else if (node && typeof node === "object") {
    if (node.properties) out.set(pointer, node);
    for (const [k, v] of Object.entries(node)) {
      if (k === "if" || k === "then" || k === "else") continue;
      objects(v, `${pointer}/${k}`, out);
    }
  }
  return out;
}

// members parses `export interface Name { ... }` into {name: optional}.
function members(name) {
  const m = dts.match(new RegExp(`^export interface ${name}(?:<[^>]*>)? \\{\\n([\\s\\S]*?)^\\}`, "m"));
  assert.ok(m, `interface ${name} missing from contract.d.ts`);
  const out = {};
  for (const line of m[1].split("\n")) {
    const p = line.match(/^ {2}([A-Za-z_][A-Za-z0-9_]*)(\??):/);
    if (p) out[p[1]] = p[2] === "?";
  }
  return out;
}

for (const file of readdirSync(schemaDir).filter((f) => f.endsWith(".json")).sort()) {
  test(`contract.d.ts follows ${file}`, () => {
    const schema = JSON.parse(readFileSync(join(schemaDir, file), "utf8"));
    for (const [pointer, node] of objects(schema, "", new Map())) {
      const key = `${file}#${pointer}`;
      const name = interfaces[key];
      assert.ok(name, `${key} has properties but no interface in contract.d.ts (add one and map it here)`);
      const got = members(name);
      const required = new Set(node.required ?? []);
      const want = Object.fromEntries(Object.keys(node.properties).map((p) => [p, !required.has(p)]));
      assert.deepEqual(got, want, `${name} (${key}): properties and optionality (true = optional)`);
    }
  });
}
