// The package's TypeScript types compile against typical use (tsc from the pinned typescript).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");

test("types: tsc --noEmit accepts typical use and refuses what the contract refuses", async () => {
  const tsc = join(pkg, "node_modules", "typescript", "bin", "tsc");
  try {
    await promisify(execFile)(process.execPath, [tsc, "-p", join(pkg, "test", "typecheck", "tsconfig.json")], { cwd: pkg, timeout: 60_000 });
  } catch (err) {
    assert.fail(`tsc failed:\n${err.stdout}${err.stderr}`);
  }
});

test("types: the package's own declaration files compile (skipLibCheck off for them)", async () => {
  const tsc = join(pkg, "node_modules", "typescript", "bin", "tsc");
  let out = "";
  try {
    await promisify(execFile)(process.execPath, [tsc, "-p", join(pkg, "test", "typecheck", "tsconfig.json"), "--skipLibCheck", "false"], { cwd: pkg, timeout: 60_000 });
  } catch (err) {
    out = `${err.stdout}${err.stderr}`; // the frameworks' own declarations have errors of their own
  }
  const ours = out.split("\n").filter((l) => /^(src|test)\//.test(l));
  assert.deepEqual(ours, [], "errors in the package's declarations");
});
