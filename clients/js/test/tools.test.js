// The framework adapters describe the tools as contracts/tools/ does (the text `worker tools` prints).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { TOOL_SPECS, toolSpecs } from "../src/tools.js";

const toolsDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "contracts", "tools");

for (const locale of ["en", "zh"]) {
  test(`tool specs (${locale}) are contracts/tools/openai-chat.${locale}.json's get_artifact and get_history_image`, () => {
    const defs = JSON.parse(readFileSync(join(toolsDir, `openai-chat.${locale}.json`), "utf8"))
      .map((t) => t.function).filter((f) => f.name === "get_artifact" || f.name === "get_history_image");
    assert.equal(defs.length, 2);
    assert.deepEqual(toolSpecs(locale), defs.map(({ name, description, parameters }) => ({ name, description, parameters })));
  });
}

test("toolSpecs refuses a locale it has no text for", () => {
  assert.deepEqual(Object.keys(TOOL_SPECS), ["en", "zh"]);
  assert.throws(() => toolSpecs("fr"), /locale "fr"/);
});
