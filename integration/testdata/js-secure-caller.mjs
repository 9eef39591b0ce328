// A caller using the JavaScript client (clients/js) with exactly the client permissions
// docs/operations.md lists, over TLS with a creds file, for integration/security_test.go. It writes
// a 2 MiB file (its request travels by claim check), reads the history image IMAGE_MD5 back (its
// reply travels by claim check and is deleted once read), and prints
// {"calls":n,"failed":[...],"errors":[...]}: errors are what the server told the connection
// (a permissions violation among them).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { WorkerClient } from "../../clients/js/src/index.js";

// nats.js as clients/js has it installed.
const { credsAuthenticator } = createRequire(new URL("../../clients/js/package.json", import.meta.url))("@nats-io/transport-node");

const env = process.env;
const worker = await WorkerClient.connect({
  servers: env.NATS_URL,
  authenticator: credsAuthenticator(readFileSync(env.NATS_CREDS)),
  tls: { caFile: env.NATS_TLS_CA, certFile: env.NATS_TLS_CERT, keyFile: env.NATS_TLS_KEY },
});
const errors = [];
(async () => {
  for await (const s of worker.nc.status()) if (s.type === "error") errors.push(String(s.error ?? s.data));
})().catch(() => {});
const failed = [];
let calls = 0;
const call = async (what, f) => {
  calls++;
  try {
    await f();
  } catch (err) {
    failed.push(`${what}: ${err.name}: ${err.message}`);
  }
};
await call("file_written", async () => {
  const res = await worker.fileWritten({ request_id: `${env.PREFIX}-fw`, workspace_id: "team", path: "js/big.txt", mime_type: "text/plain", content: "0123456789abcdef".repeat((2 << 20) / 16) });
  if (!res.ok) throw new Error(JSON.stringify(res).slice(0, 200));
});
await call("get_history_image", async () => {
  const res = await worker.getHistoryImage({ request_id: `${env.PREFIX}-hi`, image_md5: env.IMAGE_MD5 });
  if (!JSON.stringify(res).includes(env.IMAGE_HEAD)) throw new Error("not the image");
});
await new Promise((resolve) => setTimeout(resolve, 500)); // a late permissions error arrives
console.log(JSON.stringify({ calls, failed, errors }));
await worker.close();
