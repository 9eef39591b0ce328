"""The worker client: requests stored in JetStream (or sent on the plain request/reply path), claim
check both ways, duplicate request_id detection, a deadline on every request, and store retries
that ride out a JetStream leader failover."""

from __future__ import annotations

import asyncio
import base64
import json
import re
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Mapping, Optional, Tuple

import nats
import nats.errors
import nats.js.errors
from nats.js import api

from .contract import (
    CLAIM_CHECK_BUCKET,
    CODE_DUPLICATE_REQUEST,
    CODE_EXPIRED,
    CODE_INTERNAL_ERROR,
    CODE_UNAVAILABLE,
    HEADER_CLAIM_CHECK,
    HEADER_DEADLINE,
    HEADER_SCOPE,
    HEADER_MSG_ID,
    HEADER_REPLY_TO,
    HEADER_SERVICE_ERROR_CODE,
    HEADROOM,
    REQUEST_REPLY_PREFIX,
    STREAM,
    TENANT_CLAIM_CHECK_BUCKET_PREFIX,
    TENANT_INBOX_PREFIX,
    TENANT_SUBJECT_PREFIX,
    Subjects,
)
from .errors import ClaimCheckError, DuplicateRequestError, ExpiredError, StoreError, WorkerError, WorkerTimeoutError

#: Seconds a call waits by default (as the Go and JavaScript clients).
DEFAULT_TIMEOUT = 60.0
#: Seconds one attempt at storing a request waits for JetStream's acknowledgement before the
#: client tries again (within the call's timeout).
STORE_ATTEMPT_TIMEOUT = 3.0
_CLAIM_TTL = 3600.0
_DELETE_TIMEOUT = 5.0
#: The least time given to reading a claim-checked reply, even past the call's deadline.
_READ_GRACE = 5.0
#: nats-server's error code of a write a stream's store refused ("maximum bytes exceeded" when the
#: claim-check bucket is at its size limit): not retried.
_ERR_CODE_STORE_FAILED = 10077
#: nats-server's error code of a publish whose Nats-Msg-Id an earlier publish, not yet stored,
#: carries (409, "duplicate message id is in process"): tried again, and counted as unanswered (a
#: stream leader cut off from its cluster answers so until it steps down).
_ERR_CODE_DUPLICATE_IN_PROCESS = 10158
#: Seconds JetStream may go unanswered (timeouts, no responders, 503) through the connection's
#: server, while the connection is up, before the client reconnects it to another server of the
#: cluster (the Go client's SetSwitchAfter, the worker's NATS_SWITCH_AFTER).
SWITCH_AFTER = 4.0
#: Seconds a call waits for its reply before it proves that JetStream answers through its server.
_PROBE_AFTER = 2.0
_BACKOFF_FIRST, _BACKOFF_MAX = 0.05, 1.0
#: How often a call waiting for its reply looks whether its connection reconnected.
_RECONNECT_POLL = 0.25
#: Seconds after a reconnect a call waiting for its reply asks again at the latest, answered or not
#: (a reply sent while the connection reconnected is lost), as the Go and JavaScript clients.
AFTER_RECONNECT = 2.0
#: Seconds a call waits for its reply before it looks whether the worker's consumer saw the request
#: answered, and then asks again (then 10, 20, ...), as the Go and JavaScript clients: a reply
#: dropped between two servers leaves no trace on this connection, and a request queued behind a
#: backlog or still being worked on is not asked again.
REPLY_QUIET = 5.0
#: What _next returns when the call should ask again: its connection reconnected, or the reply is
#: overdue.
_ASK_AGAIN = object()
_FRONT_UNAVAILABLE = "the worker could not store it (JetStream did not acknowledge it in time; it may be stored)"

#: Headers the client sets itself: a caller's are dropped.
_OWN_HEADERS = frozenset((HEADER_MSG_ID, HEADER_REPLY_TO, HEADER_CLAIM_CHECK, HEADER_DEADLINE))

#: Failures of one attempt at storing a request that may pass (a stream leader being elected, a
#: reconnect): the attempt is made again until the call's deadline.
_TRANSIENT = (
    nats.errors.TimeoutError,
    asyncio.TimeoutError,
    nats.errors.NoRespondersError,
    nats.js.errors.NoStreamResponseError,
    nats.js.errors.ServiceUnavailableError,
    nats.errors.ConnectionReconnectingError,
    nats.errors.OutboundBufferLimitError,
    nats.errors.StaleConnectionError,
)


def new_request_id() -> str:
    """A new request_id: ``py-`` and 24 hex digits."""
    return "py-" + secrets.token_hex(12)


def deadline_header(deadline: datetime) -> str:
    """The deadline header's value: RFC 3339, UTC, milliseconds (``2026-01-02T03:04:05.678Z``)."""
    d = deadline.astimezone(timezone.utc)
    return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"


class WorkerClient:
    """Sends requests to the worker and returns their results.

    ``transport="jetstream"`` (the default, as the Go and JavaScript clients): each request is
    published to JetStream with a ``Reply-To`` inbox and its request_id as ``Nats-Msg-Id``; the
    client knows it is stored (the PubAck) before it waits for the reply. ``transport="request"``:
    a core NATS request on ``artifact-worker.<subject>``, which the worker stores itself.

    Either way a body too large for one message travels by claim check (both directions), every
    request carries its deadline (the call's timeout) in ``Artifact-Worker-Deadline``, and storing
    is retried under the same request_id until the deadline, so a JetStream leader failover or a
    reconnect costs time, not the call. Errors: ``WorkerError`` (ok=false), ``DuplicateRequestError``,
    ``ExpiredError``, ``WorkerTimeoutError``, ``StoreError``.

    A server cut off from the rest of its cluster keeps its clients connected while nothing they
    store or ask reaches the streams: when JetStream goes unanswered through the connection's server
    for ``switch_after`` seconds (4) while the connection is up, the client reconnects it to another
    server of the cluster, as the Go client and the worker do.

    Safe for concurrent calls from one event loop. It closes the connection only if it opened it
    (``WorkerClient.connect``).
    """

    def __init__(
        self,
        nc: nats.aio.client.Client,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        transport: str = "jetstream",
        store_attempt_timeout: float = STORE_ATTEMPT_TIMEOUT,
        scope: str = "",
        switch_after: float = SWITCH_AFTER,
        tenant: str = "",
    ) -> None:
        if transport not in ("jetstream", "request"):
            raise ValueError(f'transport must be "jetstream" or "request", not {transport!r}')
        if tenant and not re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,31}", tenant):
            raise ValueError(f"tenant {tenant!r}: 1..32 of a-z, 0-9, '_' and '-' (not first)")
        #: A tenant of a worker pool shared by tenants (the worker's TENANTS): calls go to
        #: tenant.<tenant>.<subject>, large bodies through WORKER_CLAIMS_<tenant>, replies under the
        #: inbox prefix _INBOX.<tenant>, which nc must have been connected with (``inbox_prefix``).
        self.tenant = tenant
        self.claim_bucket = TENANT_CLAIM_CHECK_BUCKET_PREFIX + tenant if tenant else CLAIM_CHECK_BUCKET
        self.nc = nc
        self.js = nc.jetstream()
        self.timeout = timeout
        self.transport = transport
        self.store_attempt_timeout = store_attempt_timeout
        #: Sent as ``Artifact-Worker-Scope`` on every call whose headers carry none ("": none).
        self.scope = scope
        self._owns_connection = False
        self._claims = None
        # Replies come on one subscription, ``<inbox>.*``, made before the first request (as
        # nats-py's own requests do): each call's reply subject is a token under it. A subscription
        # per call would put the server's interest in flight with each request, and in a cluster a
        # reply published before that interest crossed the route is dropped.
        self._inbox_prefix = nc.new_inbox() + "."
        if tenant and not self._inbox_prefix.startswith(TENANT_INBOX_PREFIX + tenant + "."):
            raise ValueError(f'tenant {tenant}: connect with inbox_prefix="{TENANT_INBOX_PREFIX}{tenant}": the worker answers the tenant\'s requests only under it')
        self._waiting: dict = {}  # reply token -> the call's asyncio.Queue
        self._reply_sub: Any = None
        self._reply_sub_lock = asyncio.Lock()
        #: Moves the connection to another server when JetStream stops answering through its
        #: server while the connection is up (a server cut off from its cluster): after
        #: ``switch_after`` seconds of that (negative: never).
        self.quorum = _Quorum(nc, switch_after)

    @classmethod
    async def connect(cls, servers: Any = "nats://127.0.0.1:4222", **options: Any) -> "WorkerClient":
        """Connects to NATS (reconnecting for ever) and returns a client that closes the connection.

        ``servers``: a URL, a list of them, or a comma-separated list (as ``NATS_URL`` is written
        for the worker). ``options``: the client's own (``timeout``, ``transport``,
        ``store_attempt_timeout``, ``scope``, ``switch_after``, ``tenant``: the connection then gets
        the tenant's inbox prefix); the others go to ``nats.connect``."""
        if isinstance(servers, str):
            servers = [u.strip() for u in servers.split(",") if u.strip()]
        own = {k: options.pop(k) for k in ("timeout", "transport", "store_attempt_timeout", "scope", "switch_after", "tenant") if k in options}
        if own.get("tenant"):
            options.setdefault("inbox_prefix", TENANT_INBOX_PREFIX + own["tenant"])
        options.setdefault("name", "artifact-worker-py")
        options.setdefault("max_reconnect_attempts", -1)
        nc = await nats.connect(servers, **options)
        client = cls(nc, **own)
        client._owns_connection = True
        return client

    async def close(self) -> None:
        """Removes the reply subscription, and closes the connection if this client opened it."""
        if self._reply_sub is not None and not self.nc.is_closed:
            try:
                await self._reply_sub.unsubscribe()
            except nats.errors.Error:
                pass
            self._reply_sub = None
        if self._owns_connection and not self.nc.is_closed:
            await self.nc.close()

    async def _reply_inbox(self) -> Tuple[str, "asyncio.Queue[Any]", Callable[[], None]]:
        """A new reply subject under the client's reply subscription (made on the first call), the
        queue its replies arrive on, and the function that stops routing them."""
        if self._reply_sub is None:
            async with self._reply_sub_lock:
                if self._reply_sub is None:
                    prefix = self._inbox_prefix

                    async def route(msg: Any) -> None:
                        queue = self._waiting.get(msg.subject[len(prefix):])
                        if queue is not None:
                            queue.put_nowait(msg)

                    self._reply_sub = await self.nc.subscribe(prefix + "*", cb=route)
        token = secrets.token_hex(12)
        queue: asyncio.Queue = asyncio.Queue()
        self._waiting[token] = queue
        return self._inbox_prefix + token, queue, lambda: self._waiting.pop(token, None)

    async def __aenter__(self) -> "WorkerClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # One method per subject. A request is a mapping, keyword arguments, or both.

    async def get_artifact(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, headers: Optional[Mapping[str, str]] = None, **fields: Any) -> dict:
        """tool.get_artifact. Without ``media`` (absent or None) it asks for ``"assembly"``: the media
        comes once, in ``assembly``, ready for the model (and ``assemble_turn``); ``imageUrl`` and
        ``file`` are absent. Ask for ``media="result"`` or ``"both"`` to read them."""
        return await self.call(Subjects.GET_ARTIFACT, _with_media(request, fields), timeout=timeout, headers=headers)

    async def get_history_image(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, headers: Optional[Mapping[str, str]] = None, **fields: Any) -> dict:
        """tool.get_history_image; like get_artifact, ``media`` defaults to ``"assembly"``
        (``content`` is then absent)."""
        return await self.call(Subjects.GET_HISTORY_IMAGE, _with_media(request, fields), timeout=timeout, headers=headers)

    async def file_written(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, headers: Optional[Mapping[str, str]] = None, **fields: Any) -> dict:
        """workspace.file_written: ``{"ok": True, "artifactId": "ws:...", "path": ...}``."""
        return await self.call(Subjects.FILE_WRITTEN, {**(request or {}), **fields}, timeout=timeout, headers=headers)

    async def preprocess(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, headers: Optional[Mapping[str, str]] = None, **fields: Any) -> dict:
        """context.preprocess: ``{"messages": [...], "stats": {...}}``."""
        return await self.call(Subjects.PREPROCESS, {**(request or {}), **fields}, timeout=timeout, headers=headers)

    async def metadata(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, headers: Optional[Mapping[str, str]] = None, **fields: Any) -> dict:
        """artifact.metadata: the chat panel's metadata of an artifact or workspace file."""
        return await self.call(Subjects.METADATA, {**(request or {}), **fields}, timeout=timeout, headers=headers)

    async def call(self, subject: str, request: Mapping[str, Any], *, timeout: Optional[float] = None,
                   headers: Optional[Mapping[str, str]] = None) -> Any:
        """Sends request (a mapping; a request_id is added when it has none) on subject and returns
        the reply's result. ``timeout``: seconds (default the client's), sent as the deadline.
        ``headers``: more request headers, stored with the request (``traceparent`` and
        ``tracestate`` for W3C trace context; ``Artifact-Worker-Scope``, this call's scope instead of
        the client's ``scope``); the client's own (``Nats-Msg-Id``, ``Reply-To``,
        ``Claim-Check``, the deadline) win. Raises WorkerError for ok=false
        (DuplicateRequestError, ExpiredError for their codes), WorkerTimeoutError, StoreError,
        ClaimCheckError."""
        req = dict(request)
        if not req.get("request_id"):
            req["request_id"] = new_request_id()
        rid = req["request_id"]
        raw = await self.call_raw(subject, json.dumps(req, ensure_ascii=False).encode(), timeout=timeout, request_id=rid, headers=headers)
        reply = json.loads(raw)
        if reply.get("ok"):
            return reply.get("result")
        error = reply.get("error") or {"code": CODE_INTERNAL_ERROR, "message": "reply with ok=false and no error"}
        if error.get("code") == CODE_DUPLICATE_REQUEST:
            raise DuplicateRequestError(subject, rid, error)
        if error.get("code") == CODE_EXPIRED:
            raise ExpiredError(error, reply.get("request_id") or rid, subject)
        raise WorkerError(error, reply.get("request_id") or rid, subject)

    async def call_raw(self, subject: str, body: bytes, *, timeout: Optional[float] = None, request_id: Optional[str] = None,
                       headers: Optional[Mapping[str, str]] = None) -> bytes:
        """Sends body (JSON bytes) on subject and returns the reply's body, claim check resolved.
        request_id (default: the body's) becomes the ``Nats-Msg-Id``; headers as for call."""
        timeout = self.timeout if timeout is None else timeout
        if request_id is None:
            request_id = _request_id_of(body)
        if self.tenant and subject in Subjects.ALL:
            subject = TENANT_SUBJECT_PREFIX + self.tenant + "." + subject
        call = _Call(self, subject, request_id, timeout)
        return await call.run(body, headers or {})

    async def claims(self):
        """The claim-check bucket, opened once (created with a 1 h TTL only if no worker made it yet)."""
        if self._claims is None:
            try:
                self._claims = await self.js.object_store(self.claim_bucket)
            except nats.js.errors.BucketNotFoundError:
                self._claims = await self.js.create_object_store(
                    self.claim_bucket,
                    config=api.ObjectStoreConfig(
                        description="bodies of worker requests and replies too large for one NATS message",
                        ttl=_CLAIM_TTL,
                        storage=api.StorageType.FILE,
                    ),
                )
        return self._claims

    async def resolve(self, msg: Any) -> bytes:
        """The real body of a reply: its data, or the claim-checked object its Claim-Check names,
        which is then deleted from the bucket (this client is its only reader; a failed delete
        leaves it to the bucket's TTL)."""
        name = (msg.headers or {}).get(HEADER_CLAIM_CHECK)
        if not name:
            return msg.data
        try:
            obj = await (await self.claims()).get(name)
        except nats.js.errors.ObjectNotFoundError:
            raise ClaimCheckError(f"the claim-checked reply {name} is no longer in {self.claim_bucket} (expired or deleted)") from None
        try:
            await asyncio.wait_for(self.delete_claim(name), _DELETE_TIMEOUT)
        except (nats.errors.Error, asyncio.TimeoutError):
            pass
        return obj.data

    async def delete_claim(self, name: str) -> None:
        """Removes a claim (a Claim-Check header's value) from the bucket, chunks and metadata,
        leaving nothing behind (nats-py's ObjectStore.delete keeps a delete marker until the TTL),
        as the Go client does. A claim that is already gone is not an error."""
        bucket = await self.claims()
        try:
            info = await bucket.get_info(name, show_deleted=True)
        except nats.js.errors.ObjectNotFoundError:
            return
        stream = "OBJ_" + self.claim_bucket
        if info.nuid:
            await self.js.purge_stream(stream, subject=f"$O.{self.claim_bucket}.C.{info.nuid}")
        meta = base64.urlsafe_b64encode(name.encode()).decode()
        await self.js.purge_stream(stream, subject=f"$O.{self.claim_bucket}.M.{meta}")


class _Call:
    """One call: its deadline, its inbox, its attempts.

    A reply is a core NATS message: one sent while this client's connection was down (its server
    killed, a network blip), or dropped between two servers, is lost although the request was
    handled. So while it waits, the call watches the connection's reconnects and the time; after a
    reconnect, or when no reply came for REPLY_QUIET (then twice as long each time), once the
    worker's consumer saw the request answered (on the plain path, which does not learn the
    request's sequence: once nothing waits in the consumer), and after a reconnect AFTER_RECONNECT
    later at the latest, it asks again: the same request (same request_id, same inbox) with a new
    Nats-Msg-Id, ``<request_id>.again-<n>``, as the contract allows (contracts/README.md, "Delivery
    semantics"). The worker answers an ask of a request that already ran from its recorded reply,
    and one of a request still running with that run's reply, not a second run.
    """

    def __init__(self, client: WorkerClient, subject: str, request_id: str, timeout: float) -> None:
        self.c = client
        self.subject = subject
        self.request_id = request_id
        self.timeout = timeout
        self.loop = asyncio.get_running_loop()
        self.deadline = self.loop.time() + timeout
        self.wall_deadline = datetime.now(timezone.utc) + timedelta(seconds=timeout)
        self.attempts = 0
        self.asked_again = 0
        self.last_error: Optional[BaseException] = None
        self.claims: list = []  # claim names this call stored
        self.reconnects = client.nc.stats["reconnects"]
        #: When this call saw its connection's latest reconnect (None: none since it last asked).
        self.reconnected_at: Optional[float] = None
        self.quiet = REPLY_QUIET
        self.ask_at = self.loop.time() + self.quiet  # reset once the request is sent (_sent)
        self.sent_at = self.loop.time()

    def remaining(self) -> float:
        return self.deadline - self.loop.time()

    def _sent(self) -> None:
        """Starts the wait for the reply: it is overdue self.quiet from now (storing may have
        taken long, through a failover)."""
        self.sent_at = self.loop.time()
        self.ask_at = self.sent_at + self.quiet

    async def run(self, body: bytes, extra: Mapping[str, str]) -> bytes:
        # The reply comes on the client's reply subscription, under this call's token.
        inbox, replies, done = await self.c._reply_inbox()
        try:
            headers = {k: v for k, v in extra.items() if k not in _OWN_HEADERS}
            headers[HEADER_DEADLINE] = deadline_header(self.wall_deadline)
            if self.c.scope and HEADER_SCOPE not in headers:
                headers[HEADER_SCOPE] = self.c.scope
            if self.request_id:
                headers[HEADER_MSG_ID] = self.request_id
            try:
                if self.c.transport == "jetstream":
                    headers[HEADER_REPLY_TO] = inbox
                    msg = await self._jetstream(body, headers, replies)
                else:
                    msg = await self._plain(body, headers, inbox, replies)
            except (DuplicateRequestError, StoreError) as err:
                await self._drop_claims()
                raise err
            except WorkerTimeoutError as err:
                if err.stage == "store":
                    await self._drop_claims()
                raise err
            return await self._resolve(msg)
        finally:
            done()

    async def _resolve(self, msg: Any) -> bytes:
        """The reply's body, a claim-checked one read from the bucket: tried again until the
        deadline when NATS does not answer (a failover), each read given at least _READ_GRACE (a
        reply that came just before the deadline is still read)."""
        backoff = _BACKOFF_FIRST
        while True:
            try:
                return await asyncio.wait_for(self.c.resolve(msg), max(self.remaining(), _READ_GRACE))
            except _TRANSIENT as err:
                if self.remaining() <= 0:
                    detail = f"its claim-checked body could not be read: {str(err) or type(err).__name__}"
                    raise self._reply_timeout(self.c.transport == "jetstream" or None, detail=detail) from err
            await asyncio.sleep(max(0.0, min(backoff, self.remaining())))
            backoff = min(backoff * 2, _BACKOFF_MAX)

    async def _message(self, body: bytes, headers: dict, again: bool) -> Tuple[bytes, dict]:
        """The body and headers of one attempt: a body too large for one message goes by claim
        check (stored again under a new name when asking again: the worker may have removed the
        first once it read it); asking again takes a new Nats-Msg-Id."""
        headers = dict(headers)
        if again and self.request_id:
            self.asked_again += 1
            headers[HEADER_MSG_ID] = f"{self.request_id}.again-{self.asked_again}"
        if len(body) > self.c.nc.max_payload - HEADROOM:
            name = "claim_" + secrets.token_hex(16)
            self.claims.append(name)
            await self._retry_store(lambda t: self._put_claim(name, body, t))
            headers[HEADER_CLAIM_CHECK] = name
            body = b""
        return body, headers

    async def _drop_claims(self) -> None:
        """Deletes the claims of a request no worker will read (not stored, or a duplicate), best
        effort: a claim left behind goes with the bucket's TTL."""
        for name in self.claims:
            try:
                await asyncio.wait_for(self.c.delete_claim(name), _DELETE_TIMEOUT)
            except (nats.errors.Error, asyncio.TimeoutError):
                pass

    async def _put_claim(self, name: str, body: bytes, attempt_timeout: float) -> None:
        bucket = await asyncio.wait_for(self.c.claims(), attempt_timeout)
        await bucket.put(name, body)

    async def _retry_store(self, attempt):
        """Runs attempt(timeout) until it succeeds, a failure is not transient, or the deadline
        passes (WorkerTimeoutError, stage store)."""
        backoff = _BACKOFF_FIRST
        while True:
            remaining = self.remaining()
            if remaining <= 0:
                raise self._store_timeout() from self.last_error
            self.attempts += 1
            try:
                return await asyncio.wait_for(attempt(min(remaining, self.c.store_attempt_timeout)), remaining)
            except _TRANSIENT as err:
                if _is_refused(err):
                    raise self._refused(err) from err
                self.last_error = err
            except nats.js.errors.APIError as err:
                if err.err_code != _ERR_CODE_DUPLICATE_IN_PROCESS:
                    raise self._refused(err) from err
                self.last_error = err  # an earlier attempt still being stored
            await asyncio.sleep(max(0.0, min(backoff, self.remaining())))
            backoff = min(backoff * 2, _BACKOFF_MAX)

    def _refused(self, err: nats.js.errors.APIError) -> StoreError:
        what = "the request"
        if err.err_code == _ERR_CODE_STORE_FAILED and "maximum bytes" in (err.description or ""):
            what = f"the request (the claim-check bucket {self.c.claim_bucket} is full)"
        return StoreError(
            f"{self.subject} request_id {json.dumps(self.request_id)}: JetStream refused {what} "
            f"({err.description or err}); it is not stored",
            subject=self.subject,
            request_id=self.request_id,
        )

    def _store_timeout(self, detail: str = "") -> WorkerTimeoutError:
        """The call's deadline passed before any attempt was stored; detail says why (by default
        the last failure)."""
        if not detail and isinstance(self.last_error, (nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError)):
            detail = "no stream answered: is JetStream enabled?"
        elif not detail and self.last_error is not None:
            detail = "last: " + (str(self.last_error) or type(self.last_error).__name__)
        return WorkerTimeoutError(
            subject=self.subject, request_id=self.request_id, timeout=self.timeout,
            stage="store", stored=False, attempts=self.attempts, detail=detail,
        )

    def _reply_timeout(self, stored: Optional[bool], stream_seq: Optional[int] = None, detail: str = "") -> WorkerTimeoutError:
        if self.asked_again:
            detail = (detail + "; " if detail else "") + f"asked again {self.asked_again}x (after reconnects or overdue replies)"
        return WorkerTimeoutError(
            subject=self.subject, request_id=self.request_id, timeout=self.timeout,
            stage="reply", stored=stored, stream_seq=stream_seq, attempts=self.attempts, detail=detail,
        )

    async def _next(self, replies: asyncio.Queue, answered) -> Any:
        """The next message on the call's inbox; None at the deadline; _ASK_AGAIN when the
        connection reconnected since the last look, or the reply is overdue, and
        ``await answered()`` says the worker's consumer saw the request answered (the reply may
        have been lost; one queued behind a backlog or being worked on is not asked again for being
        slow), and AFTER_RECONNECT after a reconnect whatever ``answered()`` says."""
        while True:
            remaining = self.remaining()
            if remaining <= 0:
                return None
            try:
                msg = await asyncio.wait_for(replies.get(), min(_RECONNECT_POLL, remaining))
                self.c.quorum.report(None)
                return msg
            except asyncio.TimeoutError:
                # A reply slow to come may mean the connection's server is cut off from its
                # cluster: prove that JetStream answers through it (at most once a second per
                # client); the quorum tracker moves the connection when it does not.
                await self._probe(answered)
                reconnects = self.c.nc.stats["reconnects"]
                if reconnects != self.reconnects and self.reconnected_at is None:
                    self.reconnected_at = self.loop.time()
                overdue = self.loop.time() >= self.ask_at
                if overdue:
                    self.quiet *= 2
                    self.ask_at = self.loop.time() + self.quiet
                if not self.c.nc.is_connected:
                    continue
                # After a reconnect, the request is asked again once the worker answered it, or at
                # the latest AFTER_RECONNECT later: the ack floor that says "answered" can be held
                # below it for ACK_WAIT by one slow request from before a failover (one taken on a
                # server cut off from its cluster), and a reply lost meanwhile would wait for that.
                # Asked again while its first run still runs, the worker does not run it a second
                # time: the ask waits for that run's recorded reply (its running marker,
                # docs/operations.md "One execution per request").
                after_reconnect_due = (
                    reconnects != self.reconnects
                    and self.reconnected_at is not None
                    and self.loop.time() - self.reconnected_at >= AFTER_RECONNECT
                )
                if (reconnects != self.reconnects or overdue) and (after_reconnect_due or await answered()):
                    self.reconnects = reconnects
                    self.reconnected_at = None
                    return _ASK_AGAIN

    async def _probe(self, look) -> None:
        """Calls ``look`` (a JetStream call that reports to the quorum tracker) when the call has
        waited _PROBE_AFTER since it was sent and no JetStream call was reported for a second."""
        now = self.loop.time()
        if now - self.sent_at >= _PROBE_AFTER and now - self.c.quorum.last >= 1.0 and self.c.nc.is_connected:
            await look()

    async def _consumer_info(self, stream: str) -> Any:
        """The info of the worker's consumer of the call's subject on stream; None when it cannot
        be read (JetStream's API unavailable, as during a failover, or no permission to read it:
        the next check tries again)."""
        consumer = "worker_" + self.subject.replace(".", "_")
        try:
            info = await self.c.js.consumer_info(stream, consumer, timeout=min(STORE_ATTEMPT_TIMEOUT, max(self.remaining(), 0.1)))
        except Exception as err:  # noqa: BLE001 - any failure means "not known now"
            # A caller not allowed to read the consumer gets no answer either (nats-py reports the
            # permission violation apart, and the request times out): that is not a lost quorum.
            denied = "CONSUMER.INFO" in str(getattr(self.c.nc, "last_error", None) or "")
            if self.remaining() > 0 and not denied:
                self.c.quorum.report(err)
            return None
        # A consumer leader cut off from its group with this server still answers, until it steps
        # down: its answer proves nothing, and its ack floor no longer moves.
        self.c.quorum.report(_CUT_OFF if _cut_off(getattr(info, "cluster", None)) else None)
        return info

    async def _answered(self, stream: str, seq: int) -> bool:
        """Whether the worker's consumer saw the request stored as seq in stream acknowledged: its
        ack floor (below which every request was answered) has reached seq."""
        info = await self._consumer_info(stream)
        return info is not None and info.ack_floor is not None and (info.ack_floor.stream_seq or 0) >= seq

    async def _queue_empty(self) -> bool:
        """Whether nothing waits in the worker's consumer of the call's subject (the plain path's
        stand-in for _answered: it does not learn its request's sequence; a request still being
        worked on may be asked again)."""
        info = await self._consumer_info(STREAM)
        return info is not None and info.num_pending == 0

    async def _jetstream(self, body: bytes, headers: dict, replies: asyncio.Queue) -> Any:
        data, hdr = await self._message(body, headers, again=False)
        first = self.attempts + 1
        ack = await self._retry_store(self._publish(data, hdr))
        self._sent()
        if ack.duplicate and self.attempts == first:
            raise DuplicateRequestError(self.subject, self.request_id)
        # A duplicate on a later attempt: an earlier attempt of this call was stored (its
        # acknowledgement was lost), and its reply comes to the same inbox.
        while True:
            msg = await self._next(replies, lambda: self._answered(ack.stream, ack.seq))
            if msg is None:
                raise self._reply_timeout(True, ack.seq)
            if msg is not _ASK_AGAIN:
                return msg
            try:
                data, hdr = await self._message(body, headers, again=True)
                ack = await self._retry_store(self._publish(data, hdr))  # the next check is on it
            except WorkerTimeoutError:
                raise self._reply_timeout(True, ack.seq) from None
            except StoreError:
                pass  # the stored request is still answered: wait for its reply

    def _publish(self, data: bytes, headers: dict):
        """One attempt at storing the request: a JetStream publish, its PubAck."""

        async def publish(attempt_timeout: float):
            try:
                ack = await self.c.js.publish(self.subject, data, timeout=attempt_timeout, headers=dict(headers))
            except Exception as err:
                self.c.quorum.report(err)
                raise
            self.c.quorum.report(None)
            return ack

        return publish

    async def _plain(self, body: bytes, headers: dict, inbox: str, replies: asyncio.Queue) -> Any:
        """The plain request/reply path: the worker's front stores the request and answers by
        itself only when it could not (unavailable, or no front: sent again, the same message;
        duplicate_request: on a later attempt, the earlier one is stored and its reply comes to
        the same inbox)."""
        subject = REQUEST_REPLY_PREFIX + self.subject
        backoff = _BACKOFF_FIRST
        detail = ""
        sent = 0
        maybe_stored = False  # an attempt went unanswered, or the front could not tell

        def timeout() -> WorkerTimeoutError:
            if maybe_stored:
                return self._reply_timeout(None, detail=detail)
            return self._store_timeout(detail)

        data, hdr = await self._message(body, headers, again=False)
        while True:
            self.attempts += 1
            sent += 1
            try:
                await self.c.nc.publish(subject, data, reply=inbox, headers=hdr)
            except _TRANSIENT as err:
                answer: Any = "not sent: " + (str(err) or type(err).__name__)
            else:
                self._sent()
                answer = await self._plain_answer(replies, subject, first=sent == 1)
                maybe_stored = maybe_stored or answer is None or answer is _ASK_AGAIN or answer == _FRONT_UNAVAILABLE
            if answer is None:
                raise timeout()
            if answer is _ASK_AGAIN:
                try:
                    data, hdr = await self._message(body, headers, again=True)
                except WorkerTimeoutError:
                    raise self._reply_timeout(None, detail=detail) from None
                except StoreError:
                    pass  # ask again with the message of before
                continue
            if not isinstance(answer, str):
                return answer
            detail = answer
            # Not stored (no worker's front answers, or it could not store): the connection's
            # server may be cut off from its cluster; prove that JetStream answers through it.
            await self._probe(self._queue_empty)
            if self.remaining() <= 0:
                raise timeout()
            await asyncio.sleep(max(0.0, min(backoff, self.remaining())))
            backoff = min(backoff * 2, _BACKOFF_MAX)
            if self.remaining() <= 0:
                raise timeout()

    async def _plain_answer(self, replies: asyncio.Queue, subject: str, first: bool) -> Any:
        """The answer to one plain attempt (the call's first or a later one): the reply (a
        message), None at the deadline, _ASK_AGAIN, or why the request was not stored (a
        string: try again)."""
        while True:
            msg = await self._next(replies, self._queue_empty)
            if msg is None or msg is _ASK_AGAIN:
                return msg
            hdr = msg.headers or {}
            if hdr.get(api.Header.STATUS) == "503" and not msg.data:
                return f"no worker serves {subject}"
            if hdr.get(HEADER_SERVICE_ERROR_CODE) is None:
                return msg  # the worker's reply
            error = _error_of(msg.data)
            code = error.get("code")
            if code == CODE_UNAVAILABLE:
                return _FRONT_UNAVAILABLE
            if code == CODE_DUPLICATE_REQUEST:
                if first:
                    raise DuplicateRequestError(self.subject, self.request_id, error)
                continue  # an earlier attempt of this call is stored: its reply comes here
            return msg


class _Quorum:
    """Counts how long JetStream has gone unanswered through a connection's server, from the
    outcomes of the calls reported to it, and reconnects the connection to another server of the
    cluster once that lasted ``after`` seconds while the connection was up (as the Go client's
    internal/quorum): an answer, even an error one (not found, a refused write), starts the count
    again; an error that says nothing about the server (a closed connection) is ignored."""

    def __init__(self, nc: Any, after: float) -> None:
        self.nc = nc
        self.after = after
        self.since: Optional[float] = None  # the first unanswered call since the last answer
        self.last = 0.0  # when the last call was reported (the loop's clock)

    def report(self, err: Optional[BaseException]) -> None:
        unanswered = err is not None and _unanswered(err)
        if err is not None and not unanswered and not isinstance(err, nats.js.errors.APIError):
            return
        now = asyncio.get_running_loop().time()
        self.last = now
        if not unanswered or not self.nc.is_connected:
            self.since = None
            return
        if self.since is None:
            self.since = now
        if self.after > 0 and now - self.since >= self.after:
            self.since = None
            asyncio.get_running_loop().create_task(_force_reconnect(self.nc))


class _CutOffError(Exception):
    """The answer of a stream's or consumer's leader that has not heard from a quorum of its group
    (_cut_off): taken for an unanswered call."""


_CUT_OFF = _CutOffError("the answering leader has not heard from a quorum of its group")

# How long a group's leader may go without hearing from a peer before the peer is taken for
# unreachable: a leader's heartbeats go out every second and every peer answers them.
_PEER_SILENCE = 3.0


def _cut_off(cluster: Any) -> bool:
    """Whether the cluster info a stream's or consumer's leader gave shows it cut off from its group
    (fewer than a quorum, the leader counted, heard within _PEER_SILENCE), as the Go client's
    quorum.CutOff: a leader left on the small side of a partition answers reads until it steps down
    for lost quorum, 10-20 s after the cut. A group of one is never cut off."""
    replicas = getattr(cluster, "replicas", None) or []
    if not replicas:
        return False
    # active is nanoseconds since the leader last heard from the peer.
    heard = 1 + sum(1 for r in replicas if not getattr(r, "offline", False) and (getattr(r, "active", 0) or 0) / 1e9 < _PEER_SILENCE)
    return heard < (len(replicas) + 1) // 2 + 1


def _unanswered(err: BaseException) -> bool:
    """JetStream did not answer at all (a timeout, no responders, 503 unavailable), as when the
    server cannot reach the stream's leader or quorum, or answered from a leader cut off from its
    group; a 503 of a store that refused the write (a full bucket) is an answer."""
    if isinstance(err, _CutOffError):
        return True
    if isinstance(err, nats.js.errors.APIError):
        return (err.code == 503 and err.err_code != _ERR_CODE_STORE_FAILED) or err.err_code == _ERR_CODE_DUPLICATE_IN_PROCESS
    return isinstance(err, (nats.errors.TimeoutError, asyncio.TimeoutError, nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError))


async def _force_reconnect(nc: Any) -> None:
    """Reconnects nc to the next server of its pool: nats-py's force_reconnect (2.10 and later),
    else what it does itself when a connection fails (older nats-py)."""
    try:
        if hasattr(nc, "force_reconnect"):
            await nc.force_reconnect()
        else:
            await nc._process_op_err(nats.errors.StaleConnectionError())
    except Exception:  # noqa: BLE001 - a connection closing meanwhile: nothing to move
        pass


def _is_refused(err: BaseException) -> bool:
    """A 503 that is not an outage: a store refusing the write (the claim-check bucket full)."""
    return isinstance(err, nats.js.errors.APIError) and err.err_code == _ERR_CODE_STORE_FAILED


def _with_media(request: Optional[Mapping[str, Any]], fields: Mapping[str, Any]) -> dict:
    """request with media "assembly" unless it names one (None is no choice: sent as absent, the
    worker's default would be "both")."""
    req = {**(request or {}), **fields}
    if req.get("media") is None:
        req["media"] = "assembly"
    return req


def _request_id_of(body: bytes) -> str:
    try:
        rid = json.loads(body).get("request_id")
    except (ValueError, AttributeError):
        return ""
    return rid if isinstance(rid, str) else ""


def _error_of(data: bytes) -> dict:
    """The error object of a reply body, or {}."""
    try:
        error = json.loads(data).get("error")
    except (ValueError, AttributeError):
        return {}
    return error if isinstance(error, dict) else {}
