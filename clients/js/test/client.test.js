// The client against a real worker (integration/js_test.go starts one and sets NATS_URL).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { connect, headers } from "@nats-io/transport-node";
import { jetstreamManager } from "@nats-io/jetstream";
import {
  WorkerClient, WorkerError, DuplicateRequestError, WorkerTimeoutError, StoreError, Subjects, REQUEST_REPLY_PREFIX, HEADER_DEADLINE, STREAM, assembleTurn,
} from "../src/index.js";
import { createHash } from "node:crypto";
import { gatedProxy, natsURL, noisyPNG, randomId } from "./fixtures.js";

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

// Bytes held by the claim-check bucket's stream.
async function claimBytes() {
  const jsm = await jetstreamManager(client.nc);
  return (await jsm.streams.info("OBJ_WORKER_CLAIMS")).state.bytes;
}

test("a 3 MB image travels by claim check both ways", async () => {
  const before = await claimBytes().catch(() => 0);
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
  // Each claim leaves once read: the requests' by the worker, the replies' by this client.
  const deadline = Date.now() + 10_000;
  let held;
  while ((held = await claimBytes()) - before > 64 * 1024 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  assert.ok(held - before <= 64 * 1024, `the claim-check bucket holds ${held - before} bytes more than before the 3 MB round trips`);
});

test("an error reply is a WorkerError with its stable code", async () => {
  const ref = "artifact:" + randomId("missing");
  await assert.rejects(client.getArtifact({ ref, service_id: "gpt-4o" }), (err) => {
    assert.ok(err instanceof WorkerError);
    assert.equal(err.code, "artifact_not_found");
    assert.equal(err.ref, ref);
    assert.equal(err.retryable, false);
    assert.equal(err.retrySafe, false, "answered: its request_id is spent");
    // The tool result for the model: the routing design's not-found object, default dialect and locale.
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
    assert.equal(err.retrySafe, false);
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
    assert.equal(err.retrySafe, false);
    return true;
  });
  await assert.rejects(client.call("jstest.nostream." + stream, { ref: "x" }, { timeout: 2000 }),
    /no JetStream stream captures this subject/);
});

// A stand-in for JetStream on one subject of a test: each attempt at storing a request gets the
// answer of its turn (answers[i], the last one repeated): "silent" (no acknowledgement),
// {error} (a JetStream API error), or "ack" / "dup" (stored / a duplicate: then the worker's reply
// goes to the request's Reply-To, once). Records each attempt's headers.
function standIn(t, answers) {
  const subject = "jstest.store." + randomId("s").toLowerCase();
  const attempts = [];
  let replied = false;
  const sub = client.nc.subscribe(subject, {
    callback: (_err, m) => {
      attempts.push({ msgId: m.headers?.get("Nats-Msg-Id"), deadline: m.headers?.get("Artifact-Worker-Deadline"), at: Date.now() });
      const a = answers[Math.min(attempts.length, answers.length) - 1];
      if (a === "silent") return;
      if (a.error) return m.respond(JSON.stringify({ error: a.error }));
      m.respond(JSON.stringify({ stream: "STANDIN", seq: 7, ...(a === "dup" ? { duplicate: true } : {}) }));
      if (!replied) {
        replied = true;
        client.nc.publish(m.headers.get("Reply-To"), JSON.stringify({ request_id: m.headers.get("Nats-Msg-Id"), ok: true, result: { attempt: attempts.length } }));
      }
    },
  });
  t.after(() => sub.unsubscribe());
  return { subject, attempts };
}

const unavailable = { code: 503, err_code: 10008, description: "JetStream system temporarily unavailable" };

test("storing is tried again under the same request_id and deadline until JetStream acknowledges (failover)", async (t) => {
  const c = new WorkerClient(client.nc, { storeAttemptTimeout: 200 });
  const { subject, attempts } = standIn(t, ["silent", { error: unavailable }, "ack"]);
  const start = Date.now();
  const res = await c.call(subject, { request_id: "r-failover", ref: "x" }, { timeout: 10_000 });
  assert.deepEqual(res, { attempt: 3 });
  assert.equal(attempts.length, 3);
  for (const a of attempts) assert.deepEqual([a.msgId, a.deadline], ["r-failover", attempts[0].deadline]);
  // The deadline is the caller's: RFC 3339 UTC with milliseconds, the call's start plus its timeout.
  assert.match(attempts[0].deadline, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const late = Date.parse(attempts[0].deadline) - start;
  assert.ok(late >= 10_000 && late < 11_000, `deadline ${late} ms after the call started`);
});

test("a duplicate on a later attempt is this call's own earlier attempt: its reply is awaited", async (t) => {
  const c = new WorkerClient(client.nc, { storeAttemptTimeout: 200 });
  const { subject, attempts } = standIn(t, ["silent", "dup"]);
  // The silent attempt stands for a lost acknowledgement: the stand-in replies on the duplicate.
  assert.deepEqual(await c.call(subject, { ref: "x" }, { timeout: 10_000 }), { attempt: 2 });
  assert.equal(attempts.length, 2);
});

// A stream of its own capturing a fresh subject, with the worker's consumer of that subject (the
// client reads its delivered sequence before asking again for an overdue reply).
async function standInStream(prefix) {
  const jsm = await jetstreamManager(client.nc);
  const subject = `jstest.${prefix}.` + randomId("s").toLowerCase();
  const stream = "JSTEST_" + randomId(prefix).toUpperCase().replaceAll("-", "_");
  await jsm.streams.add({ name: stream, subjects: [subject] });
  const consumer = "worker_" + subject.replaceAll(".", "_");
  await jsm.consumers.add(stream, { durable_name: consumer, ack_policy: "explicit" });
  return { jsm, subject, stream, consumer, remove: () => jsm.streams.delete(stream).catch(() => {}) };
}

test("a call whose reply is overdue asks again under a new Nats-Msg-Id once the request was delivered (a reply dropped between servers is lost)", async (t) => {
  const c = new WorkerClient(client.nc);
  const s = await standInStream("overdue");
  t.after(s.remove);
  // A stand-in worker on the stream's consumer: the first reply is lost on its way (the caller's
  // connection never hears of it); the request asked again is answered.
  const seen = [];
  const messages = await (await client.js.consumers.get(s.stream, s.consumer)).consume();
  t.after(() => messages.stop());
  (async () => {
    for await (const m of messages) {
      const id = m.headers.get("Nats-Msg-Id");
      seen.push(id);
      if (id.endsWith(".again-1")) client.nc.publish(m.headers.get("Reply-To"), JSON.stringify({ request_id: "r-overdue", ok: true, result: { asked: id } }));
      m.ack();
    }
  })();
  assert.deepEqual(await c.call(s.subject, { request_id: "r-overdue", ref: "x" }, { timeout: 30_000 }), { asked: "r-overdue.again-1" });
  assert.deepEqual(seen, ["r-overdue", "r-overdue.again-1"]);
});

test("after a reconnect, a call whose request the worker's consumer saw answered asks again at once under a new Nats-Msg-Id (a reply sent meanwhile is lost)", async (t) => {
  const c = new WorkerClient(client.nc);
  const s = await standInStream("again");
  t.after(s.remove);
  // A stand-in worker: it answers the first delivery (acks it) but the reply is lost, as one
  // published while the caller's connection reconnected; the request asked again is answered.
  const seen = [];
  const messages = await (await client.js.consumers.get(s.stream, s.consumer)).consume();
  t.after(() => messages.stop());
  (async () => {
    for await (const m of messages) {
      const id = m.headers.get("Nats-Msg-Id");
      seen.push([id, m.headers.get("Artifact-Worker-Deadline")]);
      if (id.endsWith(".again-1")) client.nc.publish(m.headers.get("Reply-To"), JSON.stringify({ request_id: "r-again", ok: true, result: { asked: id } }));
      await m.ackAck();
    }
  })();
  const start = Date.now();
  const call = c.call(s.subject, { request_id: "r-again", ref: "x" }, { timeout: 20_000 });
  while (seen.length === 0) await new Promise((r) => setTimeout(r, 20));
  c.reconnects++; // what the client's status watcher counts when nats.js reports a reconnect
  assert.deepEqual(await call, { asked: "r-again.again-1" });
  assert.ok(Date.now() - start < 4_000, `asked again ${Date.now() - start} ms after the call, not at once after the reconnect`);
  assert.deepEqual(seen.map(([id]) => id), ["r-again", "r-again.again-1"]);
  assert.equal(seen[1][1], seen[0][1], "asked again with the same deadline");
});

test("a call whose request is not answered yet (taken, still being worked on) is not asked again when its reply is overdue", async (t) => {
  const c = new WorkerClient(client.nc);
  const s = await standInStream("working");
  t.after(s.remove);
  // A worker that takes the request and never finishes it.
  const taken = (await client.js.consumers.get(s.stream, s.consumer)).next({ expires: 5000 });
  // Past the 5 s after which a reply is overdue.
  const call = c.call(s.subject, { request_id: "r-queued", ref: "x" }, { timeout: 7_000 });
  assert.ok(await taken, "the stand-in worker took no request");
  await assert.rejects(call, (err) => err instanceof WorkerTimeoutError);
  assert.equal((await s.jsm.streams.info(s.stream)).state.messages, 1, "a request not answered was asked again");
});

// The key of a request's record and running marker in WORKER_REPLIES, as the worker computes it
// (messaging.ReplyKey) for a request without headers that change what it does.
function replyKey(subject, requestId, body) {
  const h = createHash("sha256");
  for (const f of [Buffer.from(subject), Buffer.from(requestId), Buffer.from(body)]) {
    h.update(`${f.length}:`);
    h.update(f);
  }
  return h.digest("hex");
}

// Marks the request of key as running on another worker (the marker a worker writes before it runs a
// request, and again with each heartbeat while it runs), or, with run false, takes the marker away
// as when its owner is gone: the worker's delivery of that request waits for the owner's reply until
// then, and then runs it.
async function markRunning(key, run = true) {
  const h = headers();
  if (!run) h.set("KV-Operation", "DEL");
  await client.js.publish("$KV.WORKER_REPLIES." + key, run ? "running 0 1" : new Uint8Array(0), { headers: h });
}

// The worker's deliveries of subject by outcome, from its metrics.
async function outcomes(subject) {
  const text = await (await fetch(`http://${process.env.WORKER_HTTP}/metrics`)).text();
  const n = {};
  for (const [, labels, v] of text.matchAll(/^worker_messages_total\{([^}]*)\} (\S+)$/gm)) {
    const outcome = /outcome="([^"]*)"/.exec(labels)?.[1];
    if (labels.includes(`subject="${subject}"`) && outcome) n[outcome] = (n[outcome] ?? 0) + Number(v);
  }
  return n;
}

async function until(what, cond, ms = 15_000) {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test("a reply lost as the connection moved is asked for again 2 s after the reconnect while one slow request holds the consumer's ack floor, and the request runs once", { skip: !process.env.WORKER_HTTP && "WORKER_HTTP is not set" }, async (t) => {
  const gate = await gatedProxy();
  t.after(() => gate.stop());
  const caller = await WorkerClient.connect({ servers: gate.url, reconnectTimeWait: 50, maxReconnectAttempts: -1 });
  t.after(() => caller.close());
  const jsm = await jetstreamManager(client.nc);
  const consumer = () => jsm.consumers.info(STREAM, "worker_" + Subjects.fileWritten.replaceAll(".", "_"));
  const ws = randomId("jsfloor");
  const request = (id, path) => new TextEncoder().encode(JSON.stringify({ request_id: id, workspace_id: ws, path, mime_type: "text/plain", content: id }));
  // The slow request: running on another worker (one cut off from its cluster) for the whole test,
  // its marker written again every second as that worker's heartbeat would. The worker's delivery
  // of it waits for its reply, so the consumer's ack floor stays below every later request.
  const slowId = randomId("slow"), slow = request(slowId, "slow.txt"), slowKey = replyKey(Subjects.fileWritten, slowId, slow);
  await markRunning(slowKey);
  const beat = setInterval(() => markRunning(slowKey).catch(() => {}), 1000);
  t.after(async () => {
    clearInterval(beat);
    await markRunning(slowKey, false); // then the worker runs it
  });
  const slowSeq = (await client.js.publish(Subjects.fileWritten, slow, { msgID: slowId })).seq;
  // The caller's request: held by a marker too until the caller's connection is down, so that its
  // reply is sent while the connection moves.
  const lostId = randomId("lost"), lost = request(lostId, "lost.txt"), lostKey = replyKey(Subjects.fileWritten, lostId, lost);
  await markRunning(lostKey);
  const before = await outcomes(Subjects.fileWritten);
  const call = caller.callRaw(Subjects.fileWritten, lost, { requestId: lostId, timeout: 20_000 });
  await until("both requests with the worker", async () => { const c = await consumer(); return c.num_ack_pending === 2 && c.num_pending === 0; });
  gate.close();
  await until("the caller's connection down", () => !caller.connected);
  const reconnects = caller.reconnects;
  await markRunning(lostKey, false);
  await until("the request run and acked, its reply lost", async () => (await consumer()).num_ack_pending === 1);
  gate.open();
  await until("the caller reconnected", () => caller.reconnects > reconnects);
  const reconnected = Date.now();
  const reply = JSON.parse(new TextDecoder().decode(await call));
  t.diagnostic(`answered ${Date.now() - reconnected} ms after the reconnect`);
  assert.equal(reply.ok, true, JSON.stringify(reply));
  assert.equal(reply.request_id, lostId);
  const floor = (await consumer()).ack_floor.stream_seq;
  assert.ok(floor < slowSeq, `the ack floor (${floor}) passed the slow request (${slowSeq}): the test did not hold it`);
  const after = await outcomes(Subjects.fileWritten);
  assert.equal((after.ok ?? 0) - (before.ok ?? 0), 1, "executions of the request (outcome ok)");
  assert.equal((after.replayed ?? 0) - (before.replayed ?? 0), 1, "asks answered from the recorded reply (outcome replayed)");
});

test("errors say whether a retry is safe", async (t) => {
  const c = new WorkerClient(client.nc, { storeAttemptTimeout: 100 });
  const silent = standIn(t, ["silent"]);
  await assert.rejects(c.call(silent.subject, { ref: "x" }, { timeout: 1000 }), (err) => {
    assert.ok(err instanceof WorkerTimeoutError, String(err));
    assert.equal(err.stage, "store");
    assert.equal(err.retrySafe, true);
    assert.ok(err.attempts >= 2 && err.attempts === silent.attempts.length, `${err.attempts} attempts, ${silent.attempts.length} seen`);
    assert.equal(err.cause?.name, "TimeoutError");
    assert.match(err.message, /within 1s \(\d+ attempts: last: .*\); it may not be stored.*Retrying with the same request_id is safe\./);
    return true;
  });
  const busy = standIn(t, [{ error: unavailable }]);
  await assert.rejects(c.call(busy.subject, { ref: "x" }, { timeout: 1000 }), (err) => {
    assert.ok(err instanceof WorkerTimeoutError, String(err));
    assert.equal(err.stage, "store");
    assert.equal(err.cause?.name, "JetStreamApiError", "the last failure is the cause");
    assert.ok(busy.attempts.length >= 2, `${busy.attempts.length} attempts`);
    return true;
  });
  // Any other JetStream API error is not passing: thrown at once, not a timeout.
  const refused = standIn(t, [{ error: { code: 400, err_code: 10054, description: "message size exceeds maximum allowed" } }]);
  await assert.rejects(c.call(refused.subject, { ref: "x" }, { timeout: 5000 }), (err) => {
    assert.ok(err instanceof StoreError, String(err));
    assert.equal(err.retrySafe, false, "refused for good");
    assert.equal(err.cause.name, "JetStreamApiError");
    assert.match(err.message, /JetStream refused the request \(message size exceeds maximum allowed\); it is not stored/);
    return true;
  });
  assert.equal(refused.attempts.length, 1);
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

test("the worker reads HEADER_DEADLINE: a request past it is answered expired, not run", async () => {
  const h = headers();
  h.set(HEADER_DEADLINE, new Date(Date.now() - 1000).toISOString());
  const ws = randomId("expired");
  const msg = await client.nc.request(REQUEST_REPLY_PREFIX + Subjects.fileWritten,
    JSON.stringify({ request_id: randomId("exp"), workspace_id: ws, path: "a.txt", mime_type: "text/plain", content: "a" }), { timeout: 20_000, headers: h });
  const reply = msg.json();
  assert.equal(reply.ok, false);
  assert.equal(reply.error.code, "expired");
  const err = new WorkerError(reply.error, reply.request_id);
  assert.deepEqual([err.retryable, err.retrySafe], [false, false]);
  await assert.rejects(client.metadata({ id: `ws:${ws}:YS50eHQ` }), (e) => e instanceof WorkerError && e.code === "artifact_not_found");
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

test("a scope (client option or per call) makes the worker answer another workspace's file as not found", async () => {
  const mine = randomId("jsmine"), theirs = randomId("jstheirs");
  const write = (ws) => client.fileWritten({ workspace_id: ws, path: "plan.md", mime_type: "text/markdown", agent_id: "js", content: "# " + ws });
  const own = await write(mine), other = await write(theirs);
  const scoped = new WorkerClient(client.nc, { scope: `ws:${mine}` });
  assert.equal((await scoped.getArtifact({ ref: own.artifactId, service_id: "deepseek-chat" })).content, "# " + mine);
  const notFound = (ref) => (err) => err instanceof WorkerError && err.code === "artifact_not_found" && err.ref === ref;
  await assert.rejects(scoped.getArtifact({ ref: other.artifactId, service_id: "deepseek-chat" }), notFound(other.artifactId));
  // A call's own scope wins over the client's; the tool adapters pass theirs (never the model's).
  assert.equal((await scoped.getArtifact({ ref: other.artifactId, service_id: "deepseek-chat" }, { scope: `ws:${theirs}` })).content, "# " + theirs);
  const { callTool } = await import("../src/tools.js");
  await assert.rejects(callTool(client, "get_artifact", { ref: other.artifactId }, { scope: `ws:${mine}` }), notFound(other.artifactId));
});

test("a tenant's client (tenant option) calls its tenant's subjects, bucket and inbox: the pool's own calls do not find its files", async () => {
  assert.throws(() => new WorkerClient(client.nc, { tenant: "Acme.x" }), /tenant "Acme.x"/);
  // integration/js_test.go starts the worker with TENANTS=jsacme.
  const nc = await connect({ servers: natsURL, inboxPrefix: "_INBOX.jsacme" });
  try {
    const acme = new WorkerClient(nc, { tenant: "jsacme" });
    assert.ok(acme.inboxPrefix.startsWith("_INBOX.jsacme."), acme.inboxPrefix);
    const ws = randomId("jstenant");
    // Over max_payload: the request goes through WORKER_CLAIMS_jsacme, where the worker looks for it.
    const big = "# tenant\n" + "y".repeat(3 << 20);
    const own = await acme.fileWritten({ workspace_id: ws, path: "plan.md", mime_type: "text/markdown", agent_id: "js", content: big });
    assert.equal((await acme.metadata({ id: own.artifactId })).size, big.length);
    assert.ok((await acme.getArtifact({ ref: own.artifactId, service_id: "deepseek-chat" })).content.startsWith("# tenant"));
    const notFound = (err) => err instanceof WorkerError && err.code === "artifact_not_found" && err.ref === own.artifactId;
    await assert.rejects(client.getArtifact({ ref: own.artifactId, service_id: "deepseek-chat" }), notFound);
  } finally {
    await nc.close();
  }
});

// A server where JetStream does not answer for the worker's streams (integration/js_test.go starts
// one beside the worker's: JetStream on, no stream), standing in for a server cut off from its
// cluster: the client's connection is up, every attempt at storing goes unanswered (no responders).
const cutOffURL = process.env.NATS_URL_CUT_OFF;

test("a client on a server where JetStream goes unanswered for switchAfter reconnects to another server and is answered there", { skip: !cutOffURL && "NATS_URL_CUT_OFF is not set" }, async () => {
  const c = await WorkerClient.connect({ servers: [cutOffURL, natsURL], noRandomize: true, reconnectTimeWait: 100 }, { switchAfter: 1000 });
  try {
    const start = Date.now();
    const written = await c.fileWritten({ workspace_id: randomId("js"), path: "moved.md", mime_type: "text/markdown", content: "moved" }, { timeout: 15_000 });
    assert.equal(written.ok, true);
    assert.equal(c.reconnects, 1, "one reconnect, to the server where JetStream answers");
    assert.ok(Date.now() - start >= 1000, `answered after ${Date.now() - start} ms, before switchAfter`);
  } finally {
    await c.close();
  }
  // switchAfter negative: the client stays, and the call times out storing.
  const stay = await WorkerClient.connect({ servers: [cutOffURL, natsURL], noRandomize: true, reconnectTimeWait: 100 }, { switchAfter: -1 });
  try {
    await assert.rejects(stay.fileWritten({ workspace_id: randomId("js"), path: "stayed.md", mime_type: "text/markdown", content: "x" }, { timeout: 2_500 }),
      (err) => err instanceof WorkerTimeoutError && err.stage === "store");
    assert.equal(stay.reconnects, 0);
  } finally {
    await stay.close();
  }
});
