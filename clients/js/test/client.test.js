// The client against a real worker (integration/js_test.go starts one and sets NATS_URL).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import {
  WorkerClient, WorkerError, DuplicateRequestError, WorkerTimeoutError, Subjects, REQUEST_REPLY_PREFIX, assembleTurn,
} from "../src/index.js";
import { natsURL, noisyPNG, randomId } from "./fixtures.js";

let client;
before(async () => { client = await WorkerClient.connect({ servers: natsURL }); });
after(async () => { await client?.close(); });

test("a text file comes back byte for byte", async () => {
  const text = "# Notes\n你好 🌍\n";
  const ws = randomId("js");
  const written = await client.fileWritten({ workspace_id: ws, path: "notes.md", mime_type: "text/markdown", agent_id: "js", content: text });
  assert.equal(written.ok, true);
  assert.match(written.artifactId, new RegExp(`^ws:${ws}:`));
  const res = await client.getArtifact({ ref: written.artifactId, service_id: "deepseek-chat" });
  assert.equal(res.contentType, "text");
  assert.equal(res.content, text);
  assert.equal(res.assembly.dialect, "openai-chat");
});

test("a 3 MB image travels by claim check both ways", async () => {
  // 700 x 1500 px: within what gpt-4o takes as it is (768 px short side, 2048 px long side), so it is sent unchanged.
  const png = noisyPNG(700, 1500);
  assert.ok(png.length > 3_000_000 && png.length > 2 * client.nc.info.max_payload, `fixture ${png.length} bytes`);
  const b64 = png.toString("base64");
  const written = await client.fileWritten({ workspace_id: randomId("js"), path: "big.png", mime_type: "image/png", content_base64: b64 });
  const res = await client.getArtifact({ ref: written.artifactId, service_id: "gpt-4o", media: "result" });
  assert.equal(res.contentType, "image");
  assert.equal(res.assembly, undefined, "media result still carried the assembly");
  assert.equal(res.routing, "image_url");
  assert.equal(res.metadata.size, png.length);
  assert.ok(res.imageUrl.image_url.url === "data:image/png;base64," + b64, "the image did not round-trip");
  assert.ok(!res.content.includes(b64.slice(0, 100)), "base64 in the text content");
  // The default asks for the assembly only: the image once, in the follow-up message.
  const asm = await client.getArtifact({ ref: written.artifactId, service_id: "gpt-4o" });
  assert.equal(asm.imageUrl, undefined);
  const [tool, followUp] = assembleTurn([{ id: "call_1", result: asm }]);
  assert.equal(tool.role, "tool");
  assert.ok(JSON.stringify(followUp).includes(b64), "the image is not in the follow-up");
});

test("an error reply is a WorkerError with its stable code", async () => {
  const ref = "artifact:" + randomId("missing");
  await assert.rejects(client.getArtifact({ ref, service_id: "gpt-4o" }), (err) => {
    assert.ok(err instanceof WorkerError);
    assert.equal(err.code, "artifact_not_found");
    assert.equal(err.ref, ref);
    assert.equal(err.retryable, false);
    // The tool result for the model: design document 000's not-found object, default dialect and locale.
    assert.deepEqual(err.error.assembly, {
      dialect: "openai-chat",
      toolContent: JSON.stringify({ error: "artifact_not_found", ref, message: "工件不存在或已被删除" }),
    });
    return true;
  });
});

test("a repeated request_id is detected at once", async () => {
  const ws = randomId("js");
  const req = { request_id: randomId("dup"), workspace_id: ws, path: "a.txt", mime_type: "text/plain", content: "a" };
  await client.fileWritten(req);
  const start = Date.now();
  await assert.rejects(client.fileWritten(req), (err) => {
    assert.ok(err instanceof DuplicateRequestError, String(err));
    assert.equal(err.requestId, req.request_id);
    assert.match(err.message, /use a new request_id/);
    return true;
  });
  assert.ok(Date.now() - start < 5000, "duplicate not reported at once");
});

test("timeouts say what happened", async (t) => {
  const jsm = await jetstreamManager(client.nc);
  const stream = randomId("JSTEST").toUpperCase().replaceAll("-", "_");
  const subject = "jstest." + stream.toLowerCase();
  await jsm.streams.add({ name: stream, subjects: [subject] });
  t.after(() => jsm.streams.delete(stream));
  await assert.rejects(client.call(subject, { ref: "x" }, { timeout: 400 }), (err) => {
    assert.ok(err instanceof WorkerTimeoutError, String(err));
    assert.equal(err.stage, "reply");
    assert.equal(err.streamSeq, 1);
    assert.match(err.message, /stored in WORKER_REQUESTS \(seq 1\) but no reply within 0\.4s/);
    return true;
  });
  await assert.rejects(client.call("jstest.nostream." + stream, { ref: "x" }, { timeout: 2000 }),
    /no JetStream stream captures this subject/);
});

test("only nats.js's timeout is a store timeout, not an error that mentions one", async (t) => {
  // A stand-in for JetStream on two subjects of this test: one never acknowledges, one answers with
  // a JetStream API error whose description mentions a timeout.
  const subject = "jstest.ack." + randomId("t").toLowerCase();
  const silent = client.nc.subscribe(subject + ".silent");
  const failing = client.nc.subscribe(subject + ".failing", {
    callback: (_err, m) => m.respond(JSON.stringify({ error: { code: 503, err_code: 10008, description: "stream write timeout in raft proposal" } })),
  });
  t.after(() => { silent.unsubscribe(); failing.unsubscribe(); });
  await assert.rejects(client.call(subject + ".silent", { ref: "x" }, { timeout: 300 }), (err) => {
    assert.ok(err instanceof WorkerTimeoutError, String(err));
    assert.equal(err.stage, "store");
    assert.equal(err.cause?.name, "TimeoutError");
    return true;
  });
  await assert.rejects(client.call(subject + ".failing", { ref: "x" }, { timeout: 5000 }), (err) => {
    assert.ok(!(err instanceof WorkerTimeoutError), `reported as a timeout: ${err}`);
    assert.equal(err.name, "JetStreamApiError");
    assert.equal(err.message, "stream write timeout in raft proposal");
    return true;
  });
});

test("media: undefined is no choice: getArtifact asks for the assembly, as without media", async () => {
  const written = await client.fileWritten({ workspace_id: randomId("js"), path: "dot.png", mime_type: "image/png", content_base64: noisyPNG(4, 4).toString("base64") });
  for (const media of [undefined, null]) {
    const res = await client.getArtifact({ ref: written.artifactId, service_id: "gpt-4o", media });
    assert.equal(res.contentType, "image", String(media));
    assert.ok(res.assembly, `media ${media}: no assembly`);
    assert.equal(res.imageUrl, undefined, `media ${media}: the image came twice (media "both", the worker's default)`);
  }
});

test("a plain core request from nats.js gets the worker's reply", async () => {
  const nc = await connect({ servers: natsURL });
  try {
    const written = await client.fileWritten({ workspace_id: randomId("js"), path: "p.txt", mime_type: "text/plain", content: "plain" });
    const id = randomId("plain");
    const msg = await nc.request(REQUEST_REPLY_PREFIX + Subjects.getArtifact,
      JSON.stringify({ request_id: id, ref: written.artifactId, service_id: "deepseek-chat" }), { timeout: 20_000 });
    const reply = msg.json();
    assert.equal(reply.ok, true);
    assert.equal(reply.request_id, id);
    assert.equal(reply.result.content, "plain");
    assert.equal(msg.headers?.get("Contract-Version"), "1");
    const dup = (await nc.request(REQUEST_REPLY_PREFIX + Subjects.getArtifact,
      JSON.stringify({ request_id: id, ref: written.artifactId }), { timeout: 5000 })).json();
    assert.equal(dup.ok, false);
    assert.equal(dup.error.code, "duplicate_request");
  } finally {
    await nc.close();
  }
});
