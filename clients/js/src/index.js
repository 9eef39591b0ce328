// JavaScript client of the artifact worker, wire contract v1 (see contracts/README.md in the
// repository). Types: index.d.ts and contract.d.ts beside this file.
import { connect, createInbox, headers, TimeoutError } from "@nats-io/transport-node";
import { jetstream, jetstreamManager } from "@nats-io/jetstream";
import { Objm } from "@nats-io/obj";
import { DIALECT_TABLE, TURN_NOTES } from "./dialects.js";

// The contract's names (subjects, stream, bucket, headers, headroom) are generated from the Go
// constants (constants.js); the ones the package always exported are exported again here.
import {
  CLAIM_CHECK_BUCKET, CONTRACT_VERSION, HEADER_CLAIM_CHECK, HEADER_DEADLINE, HEADER_MSG_ID, HEADER_REPLY_TO, HEADER_SCOPE, HEADROOM,
  REQUEST_REPLY_PREFIX, STREAM, Subjects, TENANT_CLAIM_CHECK_BUCKET_PREFIX, TENANT_INBOX_PREFIX, TENANT_SUBJECT_PREFIX,
} from "./constants.js";
export { CLAIM_CHECK_BUCKET, CONTRACT_VERSION, HEADER_DEADLINE, HEADER_SCOPE, REQUEST_REPLY_PREFIX, STREAM, Subjects };

const DEFAULT_TIMEOUT_MS = 60_000;
/** Milliseconds one attempt at storing a request waits for JetStream's acknowledgement (then it is tried again, until the call's deadline). */
const STORE_ATTEMPT_TIMEOUT_MS = 3_000;
const BACKOFF_FIRST_MS = 50;
const BACKOFF_MAX_MS = 1_000;
/** How often a call waiting for its reply checks whether its connection reconnected. */
const RECONNECT_CHECK_MS = 500;
/**
 * Milliseconds after a reconnect a call waiting for its reply asks again at the latest, answered
 * or not (a reply sent while the connection reconnected is lost), as the Go and Python clients.
 */
const AFTER_RECONNECT_MS = 2_000;
/**
 * Milliseconds a call waits for its reply before it looks whether the worker's consumer saw the
 * request answered, and then asks again (then 10 s, 20 s, ...), as the Go and Python clients: a
 * reply dropped between two servers leaves no trace on this connection.
 */
const REPLY_QUIET_MS = 5_000;
/**
 * Milliseconds JetStream may go unanswered (timeouts, no responders, 503) through the connection's
 * server, while the connection is up, before the client reconnects it to another server of the
 * cluster: a server cut off from the rest of its cluster keeps its clients connected while nothing
 * they store or ask reaches the streams (the Go client's SetSwitchAfter, the worker's
 * NATS_SWITCH_AFTER).
 */
const SWITCH_AFTER_MS = 4_000;
/** How long a call waits for its reply before it proves that JetStream answers through its server. */
const PROBE_AFTER_MS = 2_000;
/** nats-server's error code of a write a stream's store refused (a full bucket): an answer. */
const ERR_CODE_STORE_FAILED = 10077;
/**
 * nats-server's error code of a publish whose Nats-Msg-Id an earlier publish, not yet stored,
 * carries (409, "duplicate message id is in process"): tried again, and unanswered (a stream leader
 * cut off from its cluster answers so until it steps down).
 */
const ERR_CODE_DUPLICATE_IN_PROCESS = 10158;

const CLAIM_TTL_NS = 3600 * 1e9;

/** A reply with ok=false: `code` is stable (contracts/README.md, Error codes), `message` is for people. */
export class WorkerError extends Error {
  constructor(error, requestId) {
    super(`${error.code}: ${error.message}`);
    this.name = "WorkerError";
    this.code = error.code;
    this.field = error.field;
    this.ref = error.ref;
    this.retryable = Boolean(error.retryable);
    this.requestId = requestId;
    /** The error object of the reply as sent (it may carry fields this client does not know). */
    this.error = error;
    /**
     * Sending the request again is safe and may succeed: the worker marked the error retryable (the
     * request had no effect, e.g. unavailable after every delivery). Send it under a new
     * request_id: this one is spent (the stream drops a repeated one for two minutes).
     */
    this.retrySafe = this.retryable && this.code !== "expired";
  }
}

/**
 * JetStream already holds a request with this request_id (it drops a repeated Nats-Msg-Id for two
 * minutes): the request was not stored again and its reply went to the first sender.
 */
export class DuplicateRequestError extends Error {
  constructor(subject, requestId) {
    super(`duplicate request_id ${JSON.stringify(requestId)} on ${subject}: it was already sent within the de-duplication window (2 minutes) and its reply went to the first sender; use a new request_id`);
    this.name = "DuplicateRequestError";
    this.code = "duplicate_request";
    this.subject = subject;
    this.requestId = requestId;
    /** False: the request is stored (by the first sender); sending it again needs a new request_id. */
    this.retrySafe = false;
  }
}

/**
 * JetStream refused to store the request (an API error other than "unavailable", e.g. a body over
 * the stream's limits): it is not stored, and `retrySafe` is false (the same request would be
 * refused again). `cause` is nats.js's JetStreamApiError.
 */
export class StoreError extends Error {
  constructor({ subject, requestId, cause }) {
    super(`${subject} request_id ${JSON.stringify(requestId)}: JetStream refused the request (${cause.message}); it is not stored`, { cause });
    this.name = "StoreError";
    this.subject = subject;
    this.requestId = requestId;
    this.retrySafe = false;
  }
}

/**
 * A call ran out of time (its timeout, which is also the deadline the request carries). `stage`
 * says where:
 *   - "store": JetStream did not acknowledge the request, although the client kept trying until
 *     the deadline (`attempts`; `cause` is the last failure). It may or may not be stored;
 *     `retrySafe` is true: sent again with the same request_id, it is stored at most once.
 *   - "reply": the request is stored as `streamSeq`, but no reply came in time. A worker does not
 *     start it after its deadline. `retrySafe` is false: asking again needs a new request_id.
 */
export class WorkerTimeoutError extends Error {
  constructor({ subject, requestId, timeoutMs, stage, streamSeq, attempts = 1, detail = "", cause }) {
    const s = Math.round(timeoutMs / 100) / 10;
    const consumer = "worker_" + subject.replaceAll(".", "_");
    const tries = `${attempts} attempt${attempts === 1 ? "" : "s"}${detail ? `: ${detail}` : ""}`;
    const message = stage === "store"
      ? `${subject} request_id ${JSON.stringify(requestId)}: JetStream did not acknowledge the request within ${s}s (${tries}); it may not be stored. Is NATS reachable and has a worker created the stream ${STREAM}? Retrying with the same request_id is safe.`
      : `${subject} request_id ${JSON.stringify(requestId)}: stored in ${STREAM} (seq ${streamSeq}) but no reply within ${s}s. A worker does not start it after its deadline, the end of this call (is one running? \`nats consumer info ${STREAM} ${consumer}\` shows what is pending); a late reply to this call is dropped. Asking again needs a new request_id.`;
    super(message, cause ? { cause } : undefined);
    this.name = "WorkerTimeoutError";
    this.subject = subject;
    this.requestId = requestId;
    this.timeoutMs = timeoutMs;
    this.stage = stage;
    this.streamSeq = streamSeq;
    this.attempts = attempts;
    this.retrySafe = stage === "store";
  }
}

/** A new request_id: "js-" and 24 hex digits. */
export function newRequestId() {
  return "js-" + randomHex(12);
}

function randomHex(n) {
  const b = new Uint8Array(n);
  crypto.getRandomValues(b);
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/**
 * WorkerClient sends requests to the worker: it publishes each to JetStream with a Reply-To inbox and
 * its request_id as Nats-Msg-Id, and waits for the reply, moving bodies too large for one message
 * through the claim-check bucket in both directions. Safe for concurrent calls. It closes the
 * connection only if it opened it (WorkerClient.connect).
 */
export class WorkerClient {
  /**
   * @param {import("@nats-io/transport-node").NatsConnection} nc
   * @param {{timeout?: number, storeAttemptTimeout?: number, scope?: string, switchAfter?: number, tenant?: string}} [opts] timeout: default milliseconds a
   *   call waits (60 000); storeAttemptTimeout: milliseconds one attempt at storing a request waits
   *   for JetStream's acknowledgement before it is tried again (3 000); scope: the
   *   Artifact-Worker-Scope of every call that does not give its own; switchAfter: milliseconds
   *   JetStream may go unanswered through the connection's server while the connection is up
   *   before the client reconnects it to another server of the cluster (4 000; negative: never);
   *   tenant: the tenant of a worker pool shared by tenants (the worker's TENANTS): calls go to
   *   tenant.<tenant>.<subject>, large bodies through WORKER_CLAIMS_<tenant>, replies under
   *   _INBOX.<tenant> (connect nc with `inboxPrefix: "_INBOX.<tenant>"` too, for JetStream's acks)
   */
  constructor(nc, opts = {}) {
    this.nc = nc;
    this.js = jetstream(nc);
    this.timeout = opts.timeout ?? DEFAULT_TIMEOUT_MS;
    this.storeAttemptTimeout = opts.storeAttemptTimeout ?? STORE_ATTEMPT_TIMEOUT_MS;
    this.scope = opts.scope ?? "";
    // A tenant of a shared pool (the worker's TENANTS): its subjects, claim-check bucket and inbox prefix.
    this.tenant = opts.tenant ?? "";
    if (this.tenant && !/^[a-z0-9][a-z0-9_-]{0,31}$/.test(this.tenant)) {
      throw new Error(`tenant ${JSON.stringify(this.tenant)}: 1..32 of a-z, 0-9, '_' and '-' (not first)`);
    }
    this.claimBucket = this.tenant ? TENANT_CLAIM_CHECK_BUCKET_PREFIX + this.tenant : CLAIM_CHECK_BUCKET;
    this.ownsConnection = false;
    this.claimsPromise = null;
    this.lastMaxPayload = nc.info?.max_payload;
    // Replies come on one subscription, `<inbox>.*`, made here before the first request (as nats.js
    // requests do): each call's reply subject is a token under it. A subscription per call would put
    // the server's interest in flight with each request, and in a cluster a reply published before
    // that interest crossed the route is dropped.
    this.inboxPrefix = createInbox(this.tenant ? TENANT_INBOX_PREFIX + this.tenant : undefined) + ".";
    /** @type {Map<string, (msg: any) => void>} calls waiting, by reply token */
    this.waiting = new Map();
    this.replySub = nc.subscribe(this.inboxPrefix + "*", {
      callback: (_err, msg) => {
        if (msg) this.waiting.get(msg.subject.slice(this.inboxPrefix.length))?.(msg);
      },
    });
    /** Reconnects of nc seen so far (a call asks again after one: a reply sent meanwhile is lost). */
    this.reconnects = 0;
    /** Whether nc is connected (nats.js says so only through its status events). */
    this.connected = true;
    (async () => {
      for await (const st of nc.status()) {
        if (st.type === "reconnect") {
          this.reconnects++;
          this.connected = true;
          this.leaving = "";
        } else if (st.type === "disconnect") {
          this.connected = false;
        }
      }
    })().catch(() => {});
    // Moves the connection to another server when JetStream stops answering through its server
    // while the connection is up (a server cut off from its cluster).
    /** The server ("host:port") a move off a cut-off server leaves, until the reconnect ("": none). */
    this.leaving = "";
    this.quorum = new QuorumTracker(() => this.connected && !nc.isClosed(), () => {
      this.leaving = nc.getServer();
      return nc.reconnect();
    }, opts.switchAfter ?? SWITCH_AFTER_MS);
  }

  /**
   * Connects to NATS (options as for nats.js `connect`, e.g. `{servers: "nats://127.0.0.1:4222"}`).
   * A move off a server cut from its cluster goes to another server of the list: nats.js would
   * otherwise dial the one it first connected to again (its first server pick does not rotate the
   * list), and the move would take switchAfter once more. A `reconnectToServer` given is asked first.
   */
  static async connect(connectOptions = {}, opts = {}) {
    let c;
    const own = connectOptions.reconnectToServer;
    const nc = await connect({
      name: "artifact-worker-js", ...connectOptions,
      reconnectToServer: (pool, info) => own?.(pool, info) ?? c?.elsewhere(pool) ?? null,
    });
    c = new WorkerClient(nc, opts);
    c.ownsConnection = true;
    return c;
  }

  /**
   * The server's max payload: nats.js has no server info while it reconnects, so the last one
   * seen stands in (1 MiB, the server default, before any).
   */
  maxPayload() {
    const n = this.nc.info?.max_payload;
    if (n) this.lastMaxPayload = n;
    return this.lastMaxPayload ?? 1024 * 1024;
  }

  /** The server of pool to dial on a move off a cut-off server, when nats.js would pick the one left (null: nats.js's pick). */
  elsewhere(pool) {
    if (!this.leaving || pool.length < 2 || pool[0].listen !== this.leaving) return null;
    return pool.find((s) => s.listen !== this.leaving) ?? null;
  }

  /** Removes the reply subscription, and closes the connection if this client opened it. */
  async close() {
    if (!this.nc.isClosed()) this.replySub.unsubscribe();
    if (this.ownsConnection) await this.nc.close();
  }

  /** The claim-check bucket, opened once (created with a 1 h TTL only if no worker made it yet). */
  claims() {
    if (!this.claimsPromise) {
      // Without the account check ($JS.API.INFO), which a caller's permissions need not allow.
      const objm = new Objm(jetstream(this.nc, { checkAPI: false }));
      this.claimsPromise = objm.open(this.claimBucket).catch(() =>
        objm.create(this.claimBucket, { ttl: CLAIM_TTL_NS, description: "artifact worker claim checks" }));
      this.claimsPromise.catch(() => { this.claimsPromise = null; });
    }
    return this.claimsPromise;
  }

  /**
   * Sends request (an object; a request_id is added when it has none) on subject and returns the
   * result. Throws WorkerError for ok=false, DuplicateRequestError, WorkerTimeoutError.
   * @param {string} subject
   * @param {object} request
   * @param {{timeout?: number}} [opts]
   */
  async call(subject, request, opts = {}) {
    const req = { ...request };
    if (!req.request_id) req.request_id = newRequestId();
    const reply = await this.callRaw(subject, enc.encode(JSON.stringify(req)), { ...opts, requestId: req.request_id });
    return unwrap(JSON.parse(dec.decode(reply)), req.request_id);
  }

  /**
   * tool.get_artifact. A request without `media` (absent, undefined or null) asks for "assembly"
   * (as the Go client does): the media comes once, in `assembly`, ready for the model (and for
   * assembleTurn); imageUrl and file are absent. Ask for media "result" or "both" to read them.
   */
  getArtifact(request, opts) { return this.call(Subjects.getArtifact, withMedia(request), opts); }
  /** tool.get_history_image; like getArtifact, media defaults to "assembly" (content is then absent). */
  getHistoryImage(request, opts) { return this.call(Subjects.getHistoryImage, withMedia(request), opts); }
  fileWritten(request, opts) { return this.call(Subjects.fileWritten, request, opts); }
  preprocess(request, opts) { return this.call(Subjects.preprocess, request, opts); }
  metadata(request, opts) { return this.call(Subjects.metadata, request, opts); }

  /**
   * Publishes body (JSON bytes) on subject and returns the reply body, claim check resolved. The
   * request carries its deadline (now + timeout) in Artifact-Worker-Deadline. Storing it (the
   * claim-checked body, then the request) is tried again under the same request_id, with back-off,
   * until the deadline while JetStream does not answer, has no responders or is unavailable (503),
   * as during a stream leader failover: JetStream stores a request_id once, so a repeat is safe.
   * A call still waiting for its reply after a reconnect asks again under `<request_id>.again-<n>`
   * once the worker's consumer saw it answered, or 2 s after the reconnect at the latest (the
   * worker answers an ask of a request still running with that run's reply, not a second run); one
   * still waiting 5 s after it was stored (then 10 s, 20 s, ...) asks again only once the worker's
   * consumer saw it answered: a reply lost on its way is not the end, and a request queued behind a
   * backlog or still being worked on is not asked again for being slow.
   * @param {string} subject
   * @param {Uint8Array} body
   * @param {{timeout?: number, requestId?: string, scope?: string}} [opts] scope: this call's
   *   Artifact-Worker-Scope (default: the client's)
   * @returns {Promise<Uint8Array>}
   */
  async callRaw(subject, body, opts = {}) {
    if (this.tenant && Object.values(Subjects).includes(subject)) subject = TENANT_SUBJECT_PREFIX + this.tenant + "." + subject;
    const timeoutMs = opts.timeout ?? this.timeout;
    const scope = opts.scope || this.scope;
    const requestId = opts.requestId ?? requestIdOf(body);
    const deadline = Date.now() + timeoutMs;
    const store = new StoreRetry({ subject, requestId, timeoutMs, deadline, attemptMs: this.storeAttemptTimeout });
    // The reply comes on the client's reply subscription, under this call's token.
    const token = randomHex(12);
    const inbox = this.inboxPrefix + token;
    let gotReply;
    const reply = new Promise((resolve) => { gotReply = resolve; });
    this.waiting.set(token, (msg) => gotReply(msg));
    // Stores the request under msgId: the claim-checked body first when it is too large for one message.
    const storeRequest = async (msgId) => {
      const h = headers();
      h.set(HEADER_REPLY_TO, inbox);
      h.set(HEADER_DEADLINE, new Date(deadline).toISOString());
      if (scope) h.set(HEADER_SCOPE, scope);
      if (msgId) h.set(HEADER_MSG_ID, msgId);
      let data = body;
      if (body.length > this.maxPayload() - HEADROOM) {
        const name = "claim_" + randomHex(16);
        await store.run(async () => (await this.claims()).putBlob({ name }, body));
        h.set(HEADER_CLAIM_CHECK, name);
        data = new Uint8Array(0);
      }
      return store.run(async (ms) => {
        try {
          const ack = await this.js.publish(subject, data, { headers: h, timeout: ms });
          this.quorum.report();
          return ack;
        } catch (err) {
          if (Date.now() < deadline) this.quorum.report(err);
          throw err;
        }
      });
    };
    try {
      let reconnects = this.reconnects;
      let reconnectedAt = 0; // when this call saw its connection's latest reconnect (0: none since it last asked)
      let ack = await storeRequest(requestId);
      // A duplicate on a later attempt is an earlier attempt of this call whose acknowledgement was
      // lost: it is stored, and its reply comes to this inbox.
      if (ack.duplicate && store.attempts === 1) throw new DuplicateRequestError(subject, requestId);
      let quiet = REPLY_QUIET_MS;
      let sent = Date.now();
      let askAt = sent + quiet;
      for (let asked = 0; ;) {
        const msg = await within(reply, Math.min(RECONNECT_CHECK_MS, deadline - Date.now()));
        if (msg) {
          this.quorum.report();
          return await this.resolve(msg);
        }
        if (Date.now() >= deadline) {
          throw new WorkerTimeoutError({ subject, requestId, timeoutMs, stage: "reply", streamSeq: ack.seq, attempts: store.attempts });
        }
        // A reply published while the connection was reconnecting is lost (core NATS): ask again,
        // once per reconnect, under a new Nats-Msg-Id (the stream drops a repeated one). So is one
        // dropped between two servers, which this connection never hears of: ask again when the
        // reply is overdue too. The worker answers with the same request_id, and requests are
        // idempotent (contracts/README.md).
        // An overdue reply is asked for only once the worker's consumer saw the request (the last
        // one asked) answered: asking again for one queued behind a backlog, or still being worked
        // on, would only add work.
        // A reply slow to come may mean the connection's server is cut off from its cluster: prove
        // that JetStream answers through it (at most once a second per client); the quorum tracker
        // moves the connection to another server when it does not for switchAfter.
        if (Date.now() - sent >= PROBE_AFTER_MS && Date.now() - this.quorum.last >= 1000 && this.connected) {
          await this.answered(ack.stream, subject, ack.seq);
        }
        const n = this.reconnects;
        if (n !== reconnects && !reconnectedAt) reconnectedAt = Date.now();
        const overdue = Date.now() >= askAt;
        if (overdue) {
          quiet *= 2;
          askAt = Date.now() + quiet;
        }
        if (!requestId || this.nc.isClosed() || !this.connected) continue;
        // After a reconnect, the request is asked again once the worker answered it, or at the
        // latest AFTER_RECONNECT_MS later: the ack floor that says "answered" can be held below it
        // for ACK_WAIT by one slow request from before a failover (one taken on a server cut off
        // from its cluster), and a reply lost meanwhile would wait for that. Asked again while its
        // first run still runs, the worker does not run it a second time: the ask waits for that
        // run's recorded reply (its running marker, docs/operations.md "One execution per request").
        const afterReconnectDue = n !== reconnects && reconnectedAt > 0 && Date.now() - reconnectedAt >= AFTER_RECONNECT_MS;
        if ((n !== reconnects || overdue) && (afterReconnectDue || await this.answered(ack.stream, subject, ack.seq))) {
          reconnects = n;
          reconnectedAt = 0;
          asked++;
          // Storing it again may run into the deadline: the stored request is then what the
          // caller hears about (the reply timeout above), not this attempt.
          const stored = await storeRequest(`${requestId}.again-${asked}`).catch((err) => {
            if (Date.now() < deadline) throw err;
          });
          if (stored) {
            ack = stored;
            sent = Date.now();
          }
        }
      }
    } finally {
      this.waiting.delete(token);
    }
  }

  /**
   * The real body of a reply: its data, or the claim-checked object its Claim-Check header names,
   * which is then deleted from the bucket: this client is its only reader, so it leaves now, not at
   * the bucket's TTL (a failed delete leaves it to the TTL).
   */
  async resolve(msg) {
    const name = msg.headers?.get(HEADER_CLAIM_CHECK);
    if (!name) return msg.data;
    const claims = await this.claims();
    const data = await claims.getBlob(name);
    if (data === null) throw new Error(`claim-checked reply ${name} is no longer in ${this.claimBucket} (expired)`);
    await this.deleteClaim(claims, name).catch(() => {});
    return data;
  }

  /**
   * Whether the worker's consumer of subject (`worker_` + subject, dots as underscores) on stream,
   * the stream that stored the request, saw the request seq acknowledged: its ack floor (below
   * which every request was answered) has reached seq, so the reply was sent. An error
   * (JetStream's API unavailable, as during a failover, or no permission to read the consumer's
   * info) is false: the next check tries again.
   */
  async answered(stream, subject, seq) {
    try {
      const info = await bounded((await this.jsm()).consumers.info(stream, "worker_" + subject.replaceAll(".", "_")), this.storeAttemptTimeout);
      // A consumer leader cut off from its group with this server still answers, until it steps
      // down: its answer proves nothing, and its ack floor no longer moves.
      this.quorum.report(isCutOff(info.cluster) ? CUT_OFF : undefined);
      return info.ack_floor.stream_seq >= seq;
    } catch (err) {
      // A caller not allowed to read the consumer gets no answer either: that is not a lost quorum.
      if (!isPermissionError(err)) this.quorum.report(err);
      return false;
    }
  }

  /** The JetStream manager, without the account check (a caller's permissions need not include $JS.API.INFO). */
  jsm() {
    this.jsmPromise ??= jetstreamManager(this.nc, { checkAPI: false });
    return this.jsmPromise;
  }

  // deleteClaim removes a claim's chunks and metadata from the bucket's stream, leaving nothing
  // behind (the object store's delete keeps a marker until the TTL), as the worker does.
  async deleteClaim(claims, name) {
    const info = await claims.info(name);
    if (!info) return;
    const jsm = await this.jsm();
    const stream = "OBJ_" + this.claimBucket;
    if (info.nuid) await jsm.streams.purge(stream, { filter: `$O.${this.claimBucket}.C.${info.nuid}` });
    const meta = btoa(String.fromCharCode(...enc.encode(name))).replaceAll("+", "-").replaceAll("/", "_");
    await jsm.streams.purge(stream, { filter: `$O.${this.claimBucket}.M.${meta}` });
  }
}

// withMedia is request with media "assembly" unless it names one: an explicit undefined (or null)
// is no choice, and would otherwise reach the worker as an absent field, whose default is "both".
function withMedia(request) {
  return { ...request, media: request?.media ?? "assembly" };
}

function requestIdOf(body) {
  try {
    return JSON.parse(dec.decode(body)).request_id ?? "";
  } catch {
    return "";
  }
}

function unwrap(reply, requestId) {
  if (reply.ok) return reply.result;
  if (reply.error?.code === "duplicate_request") throw new DuplicateRequestError("", requestId);
  throw new WorkerError(reply.error ?? { code: "internal_error", message: "reply with ok=false and no error" }, reply.request_id ?? requestId);
}

// within is what promise resolves to within ms, or null.
async function within(promise, ms) {
  let timer;
  const timeout = new Promise((resolve) => { timer = setTimeout(() => resolve(null), Math.max(0, ms)); });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// bounded is promise, or a nats.js TimeoutError once ms passed (the promise is left to settle alone).
async function bounded(promise, ms) {
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new TimeoutError()), Math.max(0, ms)); });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

// StoreRetry runs the attempts at storing one call's request until one succeeds, a failure is not
// transient, or the call's deadline passes (WorkerTimeoutError, stage "store"). attempts counts the
// attempts of the last run (the request's publish).
class StoreRetry {
  constructor({ subject, requestId, timeoutMs, deadline, attemptMs }) {
    Object.assign(this, { subject, requestId, timeoutMs, deadline, attemptMs });
    this.attempts = 0;
  }

  async run(attempt) {
    this.attempts = 0;
    let backoff = BACKOFF_FIRST_MS;
    let last;
    for (;;) {
      const remaining = this.deadline - Date.now();
      if (remaining <= 0) {
        const detail = isNoResponders(last)
          ? `no JetStream stream captures this subject (or JetStream is not enabled): start a worker on this NATS; it creates the stream ${STREAM}`
          : last ? `last: ${last.message || last.name}` : "";
        throw new WorkerTimeoutError({ subject: this.subject, requestId: this.requestId, timeoutMs: this.timeoutMs, stage: "store", attempts: this.attempts, detail, cause: last });
      }
      this.attempts++;
      try {
        // An attempt that outlives the call (a claim-checked body still uploading) ends it too.
        return await bounded(attempt(Math.max(1, Math.min(remaining, this.attemptMs))), remaining);
      } catch (err) {
        if (!isTransient(err)) {
          if (err?.name === "JetStreamApiError") throw new StoreError({ subject: this.subject, requestId: this.requestId, cause: err });
          throw err;
        }
        // An attempt the deadline cut short says less than the failure before it: keep that one.
        if (!(last && isTimeout(err) && Date.now() >= this.deadline)) last = err;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, Math.min(backoff, this.deadline - Date.now()))));
      backoff = Math.min(backoff * 2, BACKOFF_MAX_MS);
    }
  }
}

/**
 * QuorumTracker counts how long JetStream has gone unanswered through the connection's server, from
 * the outcomes of the calls reported to it, and reconnects the connection to another server (nats.js
 * `reconnect()`, which dials the next server of the pool) once that lasted switchAfter while the
 * connection was up, as the Go client's (internal/quorum). An answer, even an error one (not
 * found, a refused write), starts the count again; an error that says nothing about the server
 * (a closed connection) is ignored.
 */
class QuorumTracker {
  constructor(connected, reconnect, afterMs) {
    Object.assign(this, { connected, reconnect, afterMs });
    this.since = 0; // the first unanswered call since the last answer; 0 while JetStream answers
    this.last = 0; // when the last call was reported
  }

  /** Reports one JetStream call's outcome: no error (an answer) or its error. */
  report(err) {
    const now = Date.now();
    const unanswered = err !== undefined && isUnanswered(err);
    if (err !== undefined && !unanswered && !isApiError(err)) return;
    this.last = now;
    if (!unanswered || !this.connected()) {
      this.since = 0;
      return;
    }
    if (this.since === 0) this.since = now;
    if (this.afterMs > 0 && now - this.since >= this.afterMs) {
      this.since = 0;
      this.reconnect().catch(() => {});
    }
  }
}

// CUT_OFF is the answer of a stream's or consumer's leader that has not heard from a quorum of its
// group (isCutOff): taken for an unanswered call.
const CUT_OFF = new Error("the answering leader has not heard from a quorum of its group");

// PEER_SILENCE_MS is how long a group's leader may go without hearing from a peer before the peer is
// taken for unreachable: a leader's heartbeats go out every second and every peer answers them.
const PEER_SILENCE_MS = 3000;

// isCutOff: the cluster info a stream's or consumer's leader gave shows it cut off from its group
// (fewer than a quorum, the leader counted, heard within PEER_SILENCE_MS), as the Go client's
// quorum.CutOff. A leader left on the small side of a partition answers reads until it steps down
// for lost quorum, 10-20 s after the cut. A group of one is never cut off.
function isCutOff(cluster) {
  const replicas = cluster?.replicas ?? [];
  if (replicas.length === 0) return false;
  // active is nanoseconds since the leader last heard from the peer.
  const heard = 1 + replicas.filter((r) => !r.offline && (r.active ?? 0) / 1e6 < PEER_SILENCE_MS).length;
  return heard < Math.floor((replicas.length + 1) / 2) + 1;
}

// isUnanswered: JetStream did not answer at all (a timeout, no responders, 503 unavailable), as when
// the server cannot reach the stream's leader or quorum, or answered from a leader cut off from its
// group; a 503 of a store that refused the write (a full bucket) is an answer.
function isUnanswered(err) {
  if (err === CUT_OFF || isNoResponders(err)) return true;
  if (isApiError(err)) return (err.status === 503 && err.code !== ERR_CODE_STORE_FAILED) || err.code === ERR_CODE_DUPLICATE_IN_PROCESS;
  return isTimeout(err);
}

// isApiError: an answer of JetStream's API (JetStreamApiError or one of its kinds: not found, ...).
function isApiError(err) {
  return typeof err?.apiError === "function";
}

// isPermissionError: the server refused the call's subject to this connection.
function isPermissionError(err) {
  return err?.name === "PermissionViolationError" || err?.cause?.name === "PermissionViolationError" || /permissions violation/i.test(err?.message ?? "");
}

// isTransient: a failure to store that may pass (a stream leader being elected, a reconnect): no
// acknowledgement in time, no responders, JetStream's "unavailable" (status 503), or an earlier
// attempt of the same request still being stored (409, err_code 10158).
function isTransient(err) {
  return isTimeout(err) || isNoResponders(err) || (isApiError(err) && (err.status === 503 || err.code === ERR_CODE_DUPLICATE_IN_PROCESS));
}

// isTimeout recognises nats.js's own timeout (TimeoutError: a request, here JetStream's publish
// acknowledgement, that got no answer in time), also as the cause of another error; not an error that
// merely mentions a timeout (a JetStream API error's description, for one).
function isTimeout(err) {
  return err instanceof TimeoutError || err?.cause instanceof TimeoutError;
}

// nats.js reports a publish nobody acknowledges (no stream captures the subject) as
// JetStreamNotEnabled: JetStream cannot tell the two apart.
function isNoResponders(err) {
  return err?.name === "JetStreamNotEnabled" || err?.name === "NoRespondersError" || err?.cause?.name === "NoRespondersError" || (typeof err?.isNoResponders === "function" && err.isNoResponders());
}

/** The dialects assembleTurn answers a turn in (contracts/README.md, "Dialects"), from the Go table. */
const DIALECTS = Object.keys(DIALECT_TABLE);

/**
 * Builds the messages (for openai-responses, the input items) that answer one assistant turn with
 * several tool calls, from the worker's results, in call order, in the dialect of their `assembly`;
 * the same as `client.Turn` of the Go client (contracts/README.md, "Several tool calls in one turn"):
 *
 *   - openai-chat: one tool message per call, then every follow-up message in call order (OpenAI
 *     needs every tool message before any other message).
 *   - openai-responses: one function_call_output item per call.
 *   - anthropic: one user message holding a tool_result block per call (is_error for a failed call).
 *   - gemini: one user content holding a functionResponse part per call (id and name set here: a
 *     gemini call needs its `name`), then every follow-up content in call order (media for models
 *     that take none inside a function response: toolResultMedia "followUp", Gemini 2.x).
 *   - bedrock-converse: one user message holding a toolResult block per call (status "success",
 *     "error" for a failed call).
 *   - langchain: one tool message per call (tool_call_id, name when given, content).
 *
 * A call that failed (`error`) is answered with the tool result the worker put in the error
 * (`error.assembly`, when its dialect is the turn's), else with the error's text assembled as the
 * worker assembles a text, so the model learns what happened.
 *
 * The turn stays within the per-request limits of the model's provider (the assemblies'
 * `requestLimits`, or `opts.limits`): media past a limit (images per request, image or request
 * bytes, PDF pages) is left out, a text part in its place saying so (in `opts.locale`, "zh" by
 * default). For bedrock-converse every document's name gets its call id ("report [call_1]"):
 * Converse refuses a request whose documents share a name.
 *
 * @param {Array<{id: string, name?: string, result?: {assembly?: {dialect: string, toolContent: any, followUp?: any[]}}, error?: Error}>} calls
 * @param {{dialect?: string, locale?: "zh" | "en", limits?: object}} [opts] the turn's dialect; by
 *   default the first result's, else the first worker error's assembly's, else openai-chat; the
 *   locale of the note for media left out; limits replacing the assemblies' requestLimits
 * @returns {any[]} messages to append after the assistant message
 * @throws {Error} no calls, a call without id, without result or error, a result without assembly
 *   or of another dialect, a gemini call without name, an unknown dialect
 */
export function assembleTurn(calls, opts = {}) {
  if (!Array.isArray(calls) || calls.length === 0) throw new Error("assembleTurn: no calls");
  const dialect = opts.dialect
    ?? calls.find((c) => c.result?.assembly)?.result.assembly.dialect
    ?? calls.map((c) => workerAssembly(c.error)).find(Boolean)?.dialect
    ?? "openai-chat";
  if (!DIALECTS.includes(dialect)) {
    throw new Error(`assembleTurn: dialect ${JSON.stringify(dialect)} is not supported (${DIALECTS.join(", ")})`);
  }
  const turn = turnShape(dialect);
  let limits = opts.limits;
  const answers = calls.map((c, i) => {
    if (!c.id) throw new Error(`assembleTurn: call ${i} has no id`);
    let a;
    if (c.result) {
      a = c.result.assembly;
      if (!a) throw new Error(`assembleTurn: call ${c.id} has no assembly (its request asked for media "result")`);
      if (a.dialect !== dialect) throw new Error(`assembleTurn: call ${c.id} has dialect ${a.dialect}, the turn ${dialect}`);
    } else if (c.error) {
      const wa = workerAssembly(c.error);
      a = wa?.dialect === dialect ? wa : textAssembly(errorMessage(c.error), dialect);
    } else {
      throw new Error(`assembleTurn: call ${c.id} has neither result nor error`);
    }
    if (a.toolContent === undefined) throw new Error(`assembleTurn: call ${c.id}: toolContent is missing`);
    if (turn.needsName && !c.name) {
      throw new Error(`assembleTurn: call ${c.id} has no name (${dialect}'s ${turn.answerName} needs it)`);
    }
    if (turn.contentObject && (a.toolContent === null || typeof a.toolContent !== "object" || Array.isArray(a.toolContent))) {
      throw new Error(`assembleTurn: call ${c.id}: ${dialect} toolContent is not an object`);
    }
    limits ??= a.requestLimits;
    const content = turn.documentName ? uniqueDocumentNames(a.toolContent, c.id, turn.documentName) : a.toolContent;
    return { id: c.id, name: c.name, content, followUp: a.followUp ?? [], failed: !c.result };
  });
  const out = answers.map((r) => render(turn.answer, r));
  const grouped = turn.group ? [{ role: "user", [turn.group]: out }] : out;
  const messages = [...grouped, ...answers.flatMap((r) => r.followUp)];
  if (!limits) return messages;
  const note = render(turn.note, {}, (v) => (v === "$text" ? (TURN_NOTES[opts.locale] ?? TURN_NOTES.zh) : v));
  return keepWithin(messages, limits, note);
}

// uniqueDocumentNames is content with every document's name followed by the call id (the
// characters a Bedrock name allows), as the Go client's dialects.Turn.UniqueDocumentNames does.
function uniqueDocumentNames(content, callId, member) {
  if (!Array.isArray(content)) return content;
  const id = Array.from(String(callId)).filter((ch) => /[A-Za-z0-9-]/.test(ch)).slice(0, 64).join("");
  if (!id) return content;
  return content.map((b) => {
    const doc = b?.[member];
    if (!doc || typeof doc !== "object" || typeof doc.name !== "string" || doc.name.endsWith(`[${id}]`)) return b;
    let name = `${doc.name} [${id}]`;
    if (Array.from(name).length > 200) {
      name = `${Array.from(doc.name).slice(0, Math.max(200 - id.length - 3, 1)).join("").trim()} [${id}]`;
    }
    return { ...b, [member]: { ...doc, name } };
  });
}

const PAYLOAD_KEYS = new Set(["data", "bytes", "base64", "url", "image_url", "file_data"]);

// mediaOf says whether a block is a media part (a payload reached through objects only) and what
// it is, as dialects.mediaOf in Go.
function mediaOf(block) {
  const m = { image: false, pdf: false, base64: "", hasMedia: false };
  let mime = "";
  const walk = (o, inImage) => {
    for (const [k, v] of Object.entries(o)) {
      if (v !== null && typeof v === "object") {
        if (!Array.isArray(v)) walk(v, inImage || k.includes("image"));
        continue;
      }
      if (PAYLOAD_KEYS.has(k)) {
        const str = typeof v === "string" ? v : "";
        if (str.startsWith("data:")) {
          const comma = str.indexOf(",");
          if (comma < 0) continue;
          mime = str.slice(5, comma).replace(/;base64$/, "");
          m.base64 = str.slice(comma + 1);
          m.hasMedia = true;
        } else if (str !== "" && (k === "data" || k === "bytes" || k === "base64")) {
          m.base64 = str;
          m.hasMedia = true;
        }
        if (m.hasMedia && (inImage || k.includes("image"))) m.image = true;
      } else if (k === "mimeType" || k === "mime_type" || k === "media_type") {
        mime = typeof v === "string" ? v : "";
      } else if (k === "type") {
        if (v === "image" || v === "image_url" || v === "input_image") {
          inImage = true;
          m.image ||= m.hasMedia;
        }
      } else if (k === "format" && v === "pdf") {
        mime = "application/pdf";
      }
    }
    if (inImage && m.hasMedia) m.image = true;
  };
  walk(block, false);
  if (mime.startsWith("image/")) m.image = true;
  m.pdf = mime === "application/pdf";
  return m;
}

// pdfPages counts the page objects of a base64 PDF (0 when it does not decode).
function pdfPages(b64) {
  let text;
  try {
    text = atob(b64);
  } catch {
    return 0;
  }
  return (text.match(/\/Type\s*\/Page\b/g) ?? []).length;
}

// keepWithin keeps the media parts of a turn's messages, in order, while they stay within limits,
// and puts note in place of every later one (dropping it inside a Gemini function response), as
// dialects.Turn.KeepWithin in Go. The messages given are not modified.
function keepWithin(messages, l, note) {
  const used = { images: 0, imageBytes: 0, all: 0, pages: 0 };
  const fits = (m) => {
    const size = m.base64.length;
    const images = used.images + (m.image ? 1 : 0);
    const imageBytes = used.imageBytes + (m.image ? size : 0);
    const pages = used.pages + (m.pdf && l.maxPdfPages > 0 ? pdfPages(m.base64) : 0);
    if ((l.maxImages > 0 && images > l.maxImages) || (l.maxImageBytes > 0 && imageBytes > l.maxImageBytes)
      || (l.maxBytes > 0 && used.all + size > l.maxBytes) || (l.maxPdfPages > 0 && pages > l.maxPdfPages)) return false;
    Object.assign(used, { images, imageBytes, pages, all: used.all + size });
    return true;
  };
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const walk = (v) => {
    if (Array.isArray(v)) {
      return v.map((c) => {
        if (!isObject(c)) return c;
        const m = mediaOf(c);
        if (m.hasMedia) return fits(m) ? c : note;
        return walk(c);
      });
    }
    if (!isObject(v)) return v;
    const out = {};
    for (const [k, c] of Object.entries(v)) {
      if (k === "parts" && Array.isArray(c) && "response" in v) { // a Gemini functionResponse: media only
        const kept = c.filter((p) => { const m = isObject(p) ? mediaOf(p) : {}; return !m.hasMedia || fits(m); });
        if (kept.length > 0) out[k] = kept;
        continue;
      }
      out[k] = walk(c);
    }
    return out;
  };
  return messages.map(walk);
}

// turnShape is a dialect's turn template from the table, with what it asks of a call.
function turnShape(dialect) {
  const t = DIALECT_TABLE[dialect].turn;
  const json = JSON.stringify(t.answer);
  return { ...t, needsName: json.includes('"$name"'), contentObject: json.includes('"...":"$content"'), answerName: Object.keys(t.answer)[0] };
}

// render fills an answer template (dialects.Turn in Go) for one call: "$id", "$name", "$name?"
// (left out without a name), "$content", "$failed" (true, or left out), "$status", and "..."
// (the content's members spread in).
function render(tmpl, r, slot) {
  const out = {};
  for (const [k, v] of Object.entries(tmpl)) {
    if (v !== null && typeof v === "object") { out[k] = render(v, r, slot); continue; }
    if (slot) { out[k] = slot(v); continue; }
    switch (v) {
      case "$id": out[k] = r.id; break;
      case "$name": out[k] = r.name; break;
      case "$name?": if (r.name) out[k] = r.name; break;
      case "$content": if (k === "...") Object.assign(out, r.content); else out[k] = r.content; break;
      case "$failed": if (r.failed) out[k] = true; break;
      case "$status": out[k] = r.failed ? "error" : "success"; break;
      default: out[k] = v;
    }
  }
  return out;
}

// workerAssembly is the tool result the worker made for a failed call (error.assembly), if any.
function workerAssembly(err) {
  return err instanceof WorkerError ? err.error.assembly : undefined;
}

// errorMessage is what the model reads for a failed call without a worker assembly in the turn's
// dialect: the worker's message (localised), else the client-side error's message.
function errorMessage(err) {
  if (err instanceof WorkerError) return err.error.message;
  return err.message ?? String(err);
}

// textAssembly is a text's tool content in a dialect, as the worker's routing.AssembleText builds
// it: the dialect's text shape in the table.
function textAssembly(text, dialect) {
  switch (DIALECT_TABLE[dialect].text) {
    case "blocks":
      return { dialect, toolContent: text ? [{ type: "text", text }] : [] };
    case "geminiResponse":
      return { dialect, toolContent: { response: { output: text } } };
    case "bedrockBlocks": // Converse requires a content block, and a text one not blank
      return { dialect, toolContent: [{ text: text || "(empty)" }] };
    default: // "string"
      return { dialect, toolContent: text };
  }
}
