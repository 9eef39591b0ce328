// Installs the package as the repository's README.md says, in a new project outside the repository
// (npm pack, then npm install of the tarball), and runs the JavaScript quick start there verbatim
// against the worker under test. npm may take the package's dependencies from its cache.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { lstatSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { dirname, join, relative } from "node:path";
import { natsURL } from "./fixtures.js";
import { snippet } from "./snippets.js";

const run = promisify(execFile);
const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkg, "..", "..");
const project = mkdtempSync(join(tmpdir(), "artifact-worker-js-"));
after(() => rmSync(project, { recursive: true, force: true }));

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

test("README: the install command and the quick start work from a project outside the repository", async (t) => {
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "my-agent", private: true }));
  const env = { ...process.env, REPO: repo, npm_config_prefer_offline: "true", npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
  await run("sh", ["-ec", snippet("install:js")], { cwd: project, env, timeout: 180_000 });

  const installed = join(project, "node_modules", "@agentworks", "artifact-worker-client");
  assert.ok(!lstatSync(installed).isSymbolicLink(), "npm linked the folder instead of installing the package");
  const shipped = files(installed).map((f) => relative(installed, f)).sort();
  assert.deepEqual(shipped.filter((f) => !f.startsWith("src/")), ["README.md", "package.json"]);
  for (const f of ["src/index.js", "src/index.d.ts", "src/contract.d.ts", "src/ai-sdk.js", "src/langchain.js", "src/openai-agents.js"]) {
    assert.ok(shipped.includes(f), `${f} is not in the package`);
  }

  await t.test("the quick start runs as written", async () => {
    writeFileSync(join(project, "example.mjs"), snippet("quickstart:js"));
    const { stdout } = await run(process.execPath, ["example.mjs"], { cwd: project, env: { ...process.env, NATS_URL: natsURL }, timeout: 30_000 });
    const lines = stdout.trim().split("\n");
    assert.equal(lines[0], "# Hello");
    assert.deepEqual(JSON.parse(lines.at(-2)), [{ role: "tool", tool_call_id: "call_1", content: "# Hello\n" }]);
    assert.equal(lines.at(-1), "artifact_not_found");
  });

  await t.test("a framework adapter resolves, and says which framework package it needs", async () => {
    const err = await run(process.execPath, ["--input-type=module", "-e", 'await import("@agentworks/artifact-worker-client/ai-sdk")'], { cwd: project }).then(() => null, (e) => e);
    assert.ok(err, "the ai-sdk adapter loaded without the ai package");
    assert.match(err.stderr, /Cannot find package 'ai'/);
  });

  await t.test("its types compile in a TypeScript project (tsc --noEmit, strict, node16 modules)", async () => {
    writeFileSync(join(project, "check.mts"), [
      'import { WorkerClient, WorkerError, type GetArtifactResult } from "@agentworks/artifact-worker-client";',
      "export async function size(w: WorkerClient): Promise<number> {",
      '  const r: GetArtifactResult = await w.getArtifact({ ref: "artifact:x", service_id: "gpt-4o" });',
      "  return r.metadata.size;",
      "}",
      'export const code = (e: unknown): string | undefined => (e instanceof WorkerError ? e.code : undefined);',
    ].join("\n"));
    const tsc = join(pkg, "node_modules", "typescript", "bin", "tsc");
    try {
      await run(process.execPath, [tsc, "--noEmit", "--strict", "--module", "node16", "--moduleResolution", "node16", "--target", "es2022", "--types", "", "--skipLibCheck", "check.mts"], { cwd: project, timeout: 60_000 });
    } catch (err) {
      assert.fail(`tsc failed:\n${err.stdout}${err.stderr}`);
    }
  });
});
