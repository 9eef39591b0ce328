"""Errors of the client. Every one says whether sending the request again is safe (``retry_safe``)."""

from __future__ import annotations

import json
from typing import Any, Mapping, Optional

from .contract import STREAM


class ClientError(Exception):
    """Base class of the client's errors.

    ``retry_safe`` is True when sending the request again is safe and may succeed: after a store
    timeout with the same ``request_id`` (``err.request_id``; JetStream stores a request_id at most
    once), after a WorkerError the worker calls ``retryable`` with a new one (this one is spent).
    False otherwise: the request ran or is stored and will run, it expired, it is a duplicate, or
    JetStream refused it (it would be refused again). This is what the Go client's ``RetrySafe`` and
    the JavaScript client's ``retrySafe`` say.
    """

    retry_safe = False

    def __init__(self, message: str, *, subject: str = "", request_id: str = "") -> None:
        super().__init__(message)
        self.subject = subject
        self.request_id = request_id


class WorkerError(ClientError):
    """The worker answered ``ok: false``.

    ``code`` is stable (contracts/README.md, "Error codes"); ``message`` is for people; ``field``
    names the offending request field or header, ``ref`` the artifact reference; ``retryable`` is
    the worker's word that the same request may succeed later, sent with a new request_id (this one
    is spent); ``retry_safe`` follows it. ``error`` is the error object as sent;
    ``assembly`` (tool subjects) is the tool result to give the model instead of content.
    """

    def __init__(self, error: Mapping[str, Any], request_id: str = "", subject: str = "") -> None:
        error = dict(error)
        self.code: str = error.get("code") or ""
        self.message: str = error.get("message") or ""
        self.field: Optional[str] = error.get("field")
        self.ref: Optional[str] = error.get("ref")
        self.retryable: bool = bool(error.get("retryable"))
        self.error = error
        super().__init__(f"{self.code}: {self.message}", subject=subject, request_id=request_id)
        self.retry_safe = self.retryable and self.code not in ("expired", "duplicate_request")

    @property
    def assembly(self) -> Optional[dict]:
        """The tool result the worker made for the model (``error.assembly``), if any."""
        return self.error.get("assembly")


class DuplicateRequestError(WorkerError):
    """JetStream already holds a request with this request_id (it drops a repeated ``Nats-Msg-Id``
    for two minutes): the request was not stored again and its reply went to the first sender.
    Send a new request_id to ask again."""

    def __init__(self, subject: str, request_id: str, error: Optional[Mapping[str, Any]] = None) -> None:
        message = (
            f"duplicate request_id {json.dumps(request_id)} on {subject}: it was already sent within the "
            "de-duplication window (2 minutes) and its reply went to the first sender; use a new request_id"
        )
        super().__init__({**(error or {}), "code": "duplicate_request", "message": message}, request_id, subject)


class ExpiredError(WorkerError):
    """The worker answered ``expired``: the request's deadline passed before a worker started it,
    and it was not executed: nothing ran. Send it again with a new request_id (and so a new
    deadline)."""


class WorkerTimeoutError(ClientError, TimeoutError):
    """A call ran out of time (its ``timeout``, sent to the worker as the request's deadline).

    ``stage`` says where:

    - ``"store"``: JetStream did not acknowledge the request before the deadline although the client
      kept trying (``attempts``; ``__cause__`` is the last failure); on the plain path, no worker
      took it (no responders every time). ``stored`` is False: it may be stored, but no attempt
      was acknowledged. ``retry_safe``: sending it again with the same request_id stores it at
      most once.
    - ``"reply"``: the request is stored (``stored`` True, as ``stream_seq``), but no reply came in
      time. A worker will not run it past its deadline. Asking again needs a new request_id.
      On the plain request/reply path, once an attempt went unanswered (or the worker could not
      tell), the client cannot see the store: ``stored`` is None and ``retry_safe`` True (a repeat
      with the same request_id is answered ``duplicate_request`` if the first was stored).
    """

    def __init__(
        self,
        *,
        subject: str,
        request_id: str,
        timeout: float,
        stage: str,
        stored: Optional[bool],
        stream_seq: Optional[int] = None,
        attempts: int = 1,
        detail: str = "",
    ) -> None:
        secs = f"{timeout:g}s"
        rid = json.dumps(request_id)
        consumer = "worker_" + subject.replace(".", "_")
        if stage == "store":
            message = (
                f"{subject} request_id {rid}: JetStream did not acknowledge the request within {secs} "
                f"({attempts} attempt{'s' if attempts != 1 else ''}{': ' + detail if detail else ''}); "
                f"it may not be stored. Is NATS reachable and has a worker created the stream {STREAM}? "
                "Retrying with the same request_id is safe."
            )
        elif stored:
            message = (
                f"{subject} request_id {rid}: stored in {STREAM} (seq {stream_seq}) but no reply within {secs}. "
                f"A worker handles it unless its deadline has passed (is one running? `nats consumer info "
                f"{STREAM} {consumer}` shows what is pending); a late reply to this call is dropped. "
                "Asking again needs a new request_id."
            )
        else:
            message = (
                f"{subject} request_id {rid}: no reply within {secs}{' (' + detail + ')' if detail else ''}; "
                "it may be stored and handled until its deadline. Retrying with the same request_id is safe "
                "(a stored request is answered duplicate_request, not run again)."
            )
        super().__init__(message, subject=subject, request_id=request_id)
        self.timeout = timeout
        self.stage = stage
        self.stored = stored
        self.stream_seq = stream_seq
        self.attempts = attempts
        self.retry_safe = not stored


class ClaimCheckError(ClientError):
    """A claim-checked reply names an object that is no longer in the bucket (expired after its
    TTL, or deleted): the request ran, but its reply is gone. Ask again with a new request_id."""


class StoreError(ClientError):
    """JetStream refused to store the request (an API error other than unavailable, e.g. a body
    over the stream's limits, a full claim-check bucket): it is not stored, and ``retry_safe`` is
    False (the same request would be refused again). ``__cause__`` is nats-py's error."""
