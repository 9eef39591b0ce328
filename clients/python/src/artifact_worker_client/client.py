"""The worker client: requests stored in JetStream (or sent on the plain request/reply path), claim
check both ways, duplicate request_id detection, a deadline on every request, and store retries
that ride out a JetStream leader failover."""

from __future__ import annotations

import asyncio
import json
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any, Mapping, Optional

import nats
import nats.errors
import nats.js.errors
from nats.js import api

from .contract import (
    CLAIM_CHECK_BUCKET,
    CODE_DUPLICATE_REQUEST,
    CODE_INTERNAL,
    CODE_UNAVAILABLE,
    HEADER_CLAIM_CHECK,
    HEADER_DEADLINE,
    HEADER_MSG_ID,
    HEADER_REPLY_TO,
    HEADER_SERVICE_ERROR_CODE,
    HEADROOM,
    REQUEST_REPLY_PREFIX,
    Subjects,
)
from .errors import DuplicateRequestError, StoreError, WorkerError, WorkerTimeoutError

#: Seconds a call waits by default (as the Go and JavaScript clients).
DEFAULT_TIMEOUT = 60.0
#: Seconds one attempt at storing a request waits for JetStream's acknowledgement before the
#: client tries again (within the call's timeout).
STORE_ATTEMPT_TIMEOUT = 3.0
_CLAIM_TTL = 3600.0
_BACKOFF_FIRST, _BACKOFF_MAX = 0.05, 1.0

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
    ``WorkerTimeoutError``, ``StoreError``.

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
    ) -> None:
        if transport not in ("jetstream", "request"):
            raise ValueError(f'transport must be "jetstream" or "request", not {transport!r}')
        self.nc = nc
        self.js = nc.jetstream()
        self.timeout = timeout
        self.transport = transport
        self.store_attempt_timeout = store_attempt_timeout
        self._owns_connection = False
        self._claims = None

    @classmethod
    async def connect(cls, servers: Any = "nats://127.0.0.1:4222", **options: Any) -> "WorkerClient":
        """Connects to NATS (reconnecting for ever) and returns a client that closes the connection.

        ``options``: the client's own (``timeout``, ``transport``, ``store_attempt_timeout``); the
        others go to ``nats.connect``."""
        own = {k: options.pop(k) for k in ("timeout", "transport", "store_attempt_timeout") if k in options}
        options.setdefault("name", "artifact-worker-py")
        options.setdefault("max_reconnect_attempts", -1)
        nc = await nats.connect(servers, **options)
        client = cls(nc, **own)
        client._owns_connection = True
        return client

    async def close(self) -> None:
        """Closes the connection if this client opened it."""
        if self._owns_connection and not self.nc.is_closed:
            await self.nc.close()

    async def __aenter__(self) -> "WorkerClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    # One method per subject. A request is a mapping, keyword arguments, or both.

    async def get_artifact(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, **fields: Any) -> dict:
        """tool.get_artifact. Without ``media`` (absent or None) it asks for ``"assembly"``: the media
        comes once, in ``assembly``, ready for the model (and ``assemble_turn``); ``imageUrl`` and
        ``file`` are absent. Ask for ``media="result"`` or ``"both"`` to read them."""
        return await self.call(Subjects.GET_ARTIFACT, _with_media(request, fields), timeout=timeout)

    async def get_history_image(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, **fields: Any) -> dict:
        """tool.get_history_image; like get_artifact, ``media`` defaults to ``"assembly"``
        (``content`` is then absent)."""
        return await self.call(Subjects.GET_HISTORY_IMAGE, _with_media(request, fields), timeout=timeout)

    async def file_written(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, **fields: Any) -> dict:
        """workspace.file_written: ``{"ok": True, "artifactId": "ws:...", "path": ...}``."""
        return await self.call(Subjects.FILE_WRITTEN, {**(request or {}), **fields}, timeout=timeout)

    async def preprocess(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, **fields: Any) -> dict:
        """context.preprocess: ``{"messages": [...], "stats": {...}}``."""
        return await self.call(Subjects.PREPROCESS, {**(request or {}), **fields}, timeout=timeout)

    async def metadata(self, request: Optional[Mapping[str, Any]] = None, /, *, timeout: Optional[float] = None, **fields: Any) -> dict:
        """artifact.metadata: the chat panel's metadata of an artifact or workspace file."""
        return await self.call(Subjects.METADATA, {**(request or {}), **fields}, timeout=timeout)

    async def call(self, subject: str, request: Mapping[str, Any], *, timeout: Optional[float] = None) -> Any:
        """Sends request (a mapping; a request_id is added when it has none) on subject and returns
        the reply's result. Raises WorkerError for ok=false, DuplicateRequestError,
        WorkerTimeoutError, StoreError."""
        req = dict(request)
        if not req.get("request_id"):
            req["request_id"] = new_request_id()
        rid = req["request_id"]
        raw = await self.call_raw(subject, json.dumps(req, ensure_ascii=False).encode(), timeout=timeout, request_id=rid)
        reply = json.loads(raw)
        if reply.get("ok"):
            return reply.get("result")
        error = reply.get("error") or {"code": CODE_INTERNAL, "message": "reply with ok=false and no error"}
        if error.get("code") == CODE_DUPLICATE_REQUEST:
            raise DuplicateRequestError(subject, rid, error)
        raise WorkerError(error, reply.get("request_id") or rid, subject)

    async def call_raw(self, subject: str, body: bytes, *, timeout: Optional[float] = None, request_id: Optional[str] = None) -> bytes:
        """Sends body (JSON bytes) on subject and returns the reply's body, claim check resolved.
        request_id (default: the body's) becomes the ``Nats-Msg-Id``."""
        timeout = self.timeout if timeout is None else timeout
        if request_id is None:
            request_id = _request_id_of(body)
        call = _Call(self, subject, request_id, timeout)
        return await call.run(body)

    async def claims(self):
        """The claim-check bucket, opened once (created with a 1 h TTL only if no worker made it yet)."""
        if self._claims is None:
            try:
                self._claims = await self.js.object_store(CLAIM_CHECK_BUCKET)
            except nats.js.errors.BucketNotFoundError:
                self._claims = await self.js.create_object_store(
                    CLAIM_CHECK_BUCKET,
                    config=api.ObjectStoreConfig(
                        description="bodies of worker requests and replies too large for one NATS message",
                        ttl=_CLAIM_TTL,
                        storage=api.StorageType.FILE,
                    ),
                )
        return self._claims

    async def resolve(self, msg: Any) -> bytes:
        """The real body of a reply: its data, or the claim-checked object its Claim-Check names."""
        name = (msg.headers or {}).get(HEADER_CLAIM_CHECK)
        if not name:
            return msg.data
        try:
            obj = await (await self.claims()).get(name)
        except nats.js.errors.ObjectNotFoundError:
            raise ValueError(f"claim-checked reply {name} is no longer in {CLAIM_CHECK_BUCKET} (expired)") from None
        return obj.data


class _Call:
    """One call: its deadline, its inbox, its attempts."""

    def __init__(self, client: WorkerClient, subject: str, request_id: str, timeout: float) -> None:
        self.c = client
        self.subject = subject
        self.request_id = request_id
        self.timeout = timeout
        loop = asyncio.get_running_loop()
        self.loop = loop
        self.deadline = loop.time() + timeout
        self.wall_deadline = datetime.now(timezone.utc) + timedelta(seconds=timeout)
        self.attempts = 0
        self.last_error: Optional[BaseException] = None

    def remaining(self) -> float:
        return self.deadline - self.loop.time()

    async def run(self, body: bytes) -> bytes:
        nc = self.c.nc
        inbox = nc.new_inbox()
        replies: asyncio.Queue = asyncio.Queue()

        async def on_reply(msg: Any) -> None:
            replies.put_nowait(msg)

        sub = await nc.subscribe(inbox, cb=on_reply)
        try:
            headers = {HEADER_DEADLINE: deadline_header(self.wall_deadline)}
            if self.request_id:
                headers[HEADER_MSG_ID] = self.request_id
            if len(body) > nc.max_payload - HEADROOM:
                name = "claim_" + secrets.token_hex(16)
                await self._retry_store(lambda t: self._put_claim(name, body, t))
                headers[HEADER_CLAIM_CHECK] = name
                body = b""
            if self.c.transport == "jetstream":
                headers[HEADER_REPLY_TO] = inbox
                msg = await self._jetstream(body, headers, replies)
            else:
                msg = await self._plain(body, headers, inbox, replies)
            return await self.c.resolve(msg)
        finally:
            try:
                await sub.unsubscribe()
            except nats.errors.Error:
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
                self.last_error = err
            except nats.js.errors.APIError as err:
                raise StoreError(
                    f"{self.subject} request_id {json.dumps(self.request_id)}: JetStream refused the request "
                    f"({err.description or err}); it is not stored",
                    subject=self.subject,
                    request_id=self.request_id,
                ) from err
            await asyncio.sleep(max(0.0, min(backoff, self.remaining())))
            backoff = min(backoff * 2, _BACKOFF_MAX)

    def _store_timeout(self) -> WorkerTimeoutError:
        detail = ""
        if isinstance(self.last_error, (nats.errors.NoRespondersError, nats.js.errors.NoStreamResponseError)):
            detail = "no stream answered: is JetStream enabled?"
        elif self.last_error is not None:
            detail = "last: " + (str(self.last_error) or type(self.last_error).__name__)
        return WorkerTimeoutError(
            subject=self.subject, request_id=self.request_id, timeout=self.timeout,
            stage="store", stored=False, attempts=self.attempts, detail=detail,
        )

    async def _jetstream(self, body: bytes, headers: dict, replies: asyncio.Queue) -> Any:
        first = self.attempts + 1

        async def publish(attempt_timeout: float):
            return await self.c.js.publish(self.subject, body, timeout=attempt_timeout, headers=dict(headers))

        ack = await self._retry_store(publish)
        if ack.duplicate:
            if self.attempts == first:
                raise DuplicateRequestError(self.subject, self.request_id)
            # An earlier attempt of this call was stored (its acknowledgement was lost): its reply
            # comes to the same inbox.
        try:
            return await asyncio.wait_for(replies.get(), max(0.0, self.remaining()))
        except asyncio.TimeoutError:
            raise WorkerTimeoutError(
                subject=self.subject, request_id=self.request_id, timeout=self.timeout,
                stage="reply", stored=True, stream_seq=ack.seq, attempts=self.attempts,
            ) from None

    async def _plain(self, body: bytes, headers: dict, inbox: str, replies: asyncio.Queue) -> Any:
        """The plain request/reply path: the worker's front stores the request and answers by
        itself only when it could not (unavailable: tried again; duplicate_request: on a later
        attempt, the earlier one is stored and its reply comes to the same inbox)."""
        subject = REQUEST_REPLY_PREFIX + self.subject
        backoff = _BACKOFF_FIRST
        detail = ""

        def timeout() -> WorkerTimeoutError:
            return WorkerTimeoutError(
                subject=self.subject, request_id=self.request_id, timeout=self.timeout,
                stage="reply", stored=None, attempts=self.attempts, detail=detail,
            )

        while True:
            self.attempts += 1
            try:
                await self.c.nc.publish(subject, body, reply=inbox, headers=dict(headers))
            except _TRANSIENT as err:
                detail = "not sent: " + (str(err) or type(err).__name__)
            else:
                msg = await self._plain_answer(replies, subject)
                if msg is None:
                    raise timeout()
                if not isinstance(msg, str):
                    return msg
                detail = msg
            if self.remaining() <= 0:
                raise timeout()
            await asyncio.sleep(max(0.0, min(backoff, self.remaining())))
            backoff = min(backoff * 2, _BACKOFF_MAX)

    async def _plain_answer(self, replies: asyncio.Queue, subject: str) -> Any:
        """The answer to one plain attempt: the reply (a message), None at the deadline, or why
        the request was not stored (a string: try again)."""
        while True:
            try:
                msg = await asyncio.wait_for(replies.get(), max(0.0, self.remaining()))
            except asyncio.TimeoutError:
                return None
            hdr = msg.headers or {}
            if hdr.get(api.Header.STATUS) == "503" and not msg.data:
                return f"no worker serves {subject}"
            if hdr.get(HEADER_SERVICE_ERROR_CODE) is None:
                return msg  # the worker's reply
            code = _error_code(msg.data)
            if code == CODE_UNAVAILABLE:
                return "the worker could not store it"
            if code == CODE_DUPLICATE_REQUEST and self.attempts > 1:
                continue  # an earlier attempt of this call is stored: its reply comes here
            return msg  # call() raises DuplicateRequestError for a first attempt


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


def _error_code(data: bytes) -> str:
    try:
        return (json.loads(data).get("error") or {}).get("code") or ""
    except (ValueError, AttributeError):
        return ""
