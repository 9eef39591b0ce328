"""Python client of the artifact worker (wire contract v1), asyncio on nats-py.

    from artifact_worker_client import WorkerClient, WorkerError, assemble_turn

    worker = await WorkerClient.connect("nats://127.0.0.1:4222")
    result = await worker.get_artifact(ref="artifact:chart", service_id="gpt-4o")

See the repository's README.md ("Python") and contracts/README.md.
"""

from .client import DEFAULT_TIMEOUT, STORE_ATTEMPT_TIMEOUT, SWITCH_AFTER, WorkerClient, deadline_header, new_request_id
from .contract import (
    CLAIM_CHECK_BUCKET,
    CONTRACT_VERSION,
    HEADER_DEADLINE,
    HEADER_SCOPE,
    REQUEST_REPLY_PREFIX,
    STREAM,
    Subjects,
)
from .dialects import DIALECTS
from .errors import ClaimCheckError, ClientError, DuplicateRequestError, ExpiredError, StoreError, WorkerError, WorkerTimeoutError
from .turn import TurnError, assemble_turn

__version__ = "0.1.0"

__all__ = [
    "CLAIM_CHECK_BUCKET",
    "CONTRACT_VERSION",
    "DEFAULT_TIMEOUT",
    "DIALECTS",
    "HEADER_DEADLINE",
    "HEADER_SCOPE",
    "REQUEST_REPLY_PREFIX",
    "STORE_ATTEMPT_TIMEOUT",
    "STREAM",
    "SWITCH_AFTER",
    "ClaimCheckError",
    "ClientError",
    "DuplicateRequestError",
    "ExpiredError",
    "StoreError",
    "Subjects",
    "TurnError",
    "WorkerClient",
    "WorkerError",
    "WorkerTimeoutError",
    "assemble_turn",
    "deadline_header",
    "new_request_id",
]
