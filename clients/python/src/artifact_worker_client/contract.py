"""Names of the worker's wire contract v1 (contracts/README.md in the repository)."""

CONTRACT_VERSION = "1"


class Subjects:
    """Request subjects of contract v1 (the worker's stream WORKER_REQUESTS captures them)."""

    GET_ARTIFACT = "tool.get_artifact"
    GET_HISTORY_IMAGE = "tool.get_history_image"
    FILE_WRITTEN = "workspace.file_written"
    PREPROCESS = "context.preprocess"
    METADATA = "artifact.metadata"

    ALL = (GET_ARTIFACT, GET_HISTORY_IMAGE, FILE_WRITTEN, PREPROCESS, METADATA)


#: Prefix of the plain request/reply subjects: ``artifact-worker.tool.get_artifact``, ...
REQUEST_REPLY_PREFIX = "artifact-worker."

#: The worker's JetStream stream and its claim-check Object Store bucket.
STREAM = "WORKER_REQUESTS"
CLAIM_CHECK_BUCKET = "WORKER_CLAIMS"

# Headers (NATS header names are case-sensitive).
HEADER_REPLY_TO = "Reply-To"
HEADER_MSG_ID = "Nats-Msg-Id"
HEADER_CLAIM_CHECK = "Claim-Check"
#: The caller's deadline (its timeout), an RFC 3339 UTC time with milliseconds; the worker does not
#: run a request past it.
HEADER_DEADLINE = "Artifact-Worker-Deadline"
#: Set by the worker's plain request/reply front on the answers it gives itself (409, 503).
HEADER_SERVICE_ERROR_CODE = "Nats-Service-Error-Code"

#: Bytes kept free for headers when deciding whether a body fits one message, as the worker does.
HEADROOM = 16 * 1024

#: Codes of the worker's error replies that this client treats specially.
CODE_DUPLICATE_REQUEST = "duplicate_request"
CODE_UNAVAILABLE = "unavailable"
CODE_INTERNAL = "internal_error"
CODE_EXPIRED = "expired"
