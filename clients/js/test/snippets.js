// README code blocks run by the tests, and a check the framework adapter tests share.
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, rmSync } from "node:fs";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { natsURL } from "./fixtures.js";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkg, "..", "..");

/** The code block of README.md under `<!-- marker ... -->`. */
export function snippet(marker) {
  const readme = readFileSync(join(repo, "README.md"), "utf8");
  const m = readme.match(new RegExp(`<!-- ${marker} [^\\n]*-->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\\n\`\`\``));
  assert.ok(m, `README.md has no ${marker} block`);
  return m[1];
}

/**
 * Runs the README.md code block under `<!-- marker ... -->` as written, from the repository's root
 * (examples/ paths resolve), as a module inside the package (its imports of the package's own name
 * and subpaths resolve through package.json's exports), against the worker under test.
 */
export async function runSnippet(marker, env = {}) {
  const file = join(pkg, `.readme-${marker.replace(/\W/g, "-")}-${process.pid}.mjs`);
  writeFileSync(file, snippet(marker));
  try {
    return await promisify(execFile)(process.execPath, [file], { cwd: repo, env: { ...process.env, NATS_URL: natsURL, ...env }, timeout: 60_000 });
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * Fails if any string in value holds the media's base64 other than as the media itself: the
 * base64 alone, or a data URL of it. Media as JSON text in a tool message or text part is caught.
 */
export function assertNoBase64InText(value, b64) {
  const probe = b64.slice(0, 48);
  const walk = (v, path) => {
    if (typeof v === "string") {
      if (v.includes(probe) && v !== b64 && !/^data:[^,]+;base64,/.test(v)) {
        assert.fail(`base64 of the media inside text at ${path}: ${v.slice(0, 120)}...`);
      }
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, `${path}[${i}]`));
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(x, `${path}.${k}`);
    }
  };
  walk(value, "$");
}
