// Runs the JavaScript quick start of the repository's README.md verbatim against the worker under test.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync, rmSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { natsURL } from "./fixtures.js";
import { snippet } from "./snippets.js";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");

test("README JavaScript quick start runs as written", async () => {
  // Inside the package, so the import of the package's own name resolves (package self-reference).
  const file = join(pkg, `.readme-quickstart-${process.pid}.mjs`);
  writeFileSync(file, snippet("quickstart:js"));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [file], { env: { ...process.env, NATS_URL: natsURL }, timeout: 30_000 });
    const lines = stdout.trim().split("\n");
    assert.equal(lines[0], "# Hello");
    const messages = JSON.parse(lines.at(-2));
    assert.deepEqual(messages, [{ role: "tool", tool_call_id: "call_1", content: "# Hello\n" }]);
    assert.equal(lines.at(-1), "artifact_not_found");
  } finally {
    rmSync(file, { force: true });
  }
});
