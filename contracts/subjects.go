package contracts

import "strings"

// Version is the wire contract version this package describes.
const Version = "1"

// Request subjects served by the worker. Requests are published to JetStream (the worker's stream
// captures these subjects), never with core request/reply: see README.md.
const (
	SubjectGetArtifact     = "tool.get_artifact"
	SubjectGetHistoryImage = "tool.get_history_image"
	SubjectFileWritten     = "workspace.file_written"
	SubjectPreprocess      = "context.preprocess"
	SubjectMetadata        = "artifact.metadata"
)

// RequestSubjects lists every request subject of contract v1.
var RequestSubjects = []string{
	SubjectGetArtifact,
	SubjectGetHistoryImage,
	SubjectFileWritten,
	SubjectPreprocess,
	SubjectMetadata,
}

// DeadLetterPrefix prefixes the subject of a dead-lettered request: a poison message received on
// tool.get_artifact is republished on deadletter.tool.get_artifact with the reason in headers.
const DeadLetterPrefix = "deadletter."

// Headers read or written by the worker.
const (
	// HeaderReplyTo names the core NATS subject the reply is published to. Requests without it are
	// processed (their side effects happen) but nobody is answered.
	HeaderReplyTo = "Reply-To"
	// HeaderMsgID is JetStream's de-duplication header; publishers set it to the request_id.
	HeaderMsgID = "Nats-Msg-Id"
	// HeaderClaimCheck on a request or reply means the body is empty and the real body is the object
	// named by the header's value in the claim-check Object Store bucket (see ClaimCheckBucket).
	HeaderClaimCheck = "Claim-Check"
	// HeaderTraceparent carries the caller's W3C trace context.
	HeaderTraceparent = "traceparent"
	// HeaderTracestate carries the caller's W3C trace state.
	HeaderTracestate = "tracestate"
	// HeaderContractVersion is set by the worker on every reply.
	HeaderContractVersion = "Contract-Version"
	// HeaderServiceErrorCode is set by the plain request/reply front (NATS micro's error header) on
	// the answers it gives itself: 409 (a duplicate request_id), 503 (JetStream unavailable).
	HeaderServiceErrorCode = "Nats-Service-Error-Code"

	// Dead-letter headers, set on messages republished under DeadLetterPrefix.
	HeaderDeadLetterReason  = "Dead-Letter-Reason"
	HeaderOriginalSubject   = "Original-Subject"
	HeaderStreamSequence    = "Stream-Sequence"
	HeaderDeliveryCount     = "Delivery-Count"
	HeaderDeadLetterReplyTo = "Original-Reply-To"
)

// RequestStream is the worker's stream of requests (its default name): it captures the request
// subjects, and the worker's consumer of each is ConsumerName(subject).
const RequestStream = "WORKER_REQUESTS"

// ConsumerName is the worker's durable pull consumer of subject: "worker_" + subject with dots
// replaced by underscores (tool.get_artifact -> worker_tool_get_artifact). KEDA's scaler names it,
// and the clients read its delivered sequence (whether a stored request was handed to a worker).
func ConsumerName(subject string) string {
	return "worker_" + strings.NewReplacer(".", "_", "*", "_", ">", "_").Replace(subject)
}

// Headroom is the number of bytes kept free under the server's max_payload for headers and protocol
// overhead when deciding whether a body fits one message: a body larger than max_payload - Headroom
// goes by claim check. The worker and every client apply the same rule.
const Headroom = 16 * 1024

// ClaimCheckBucket is the JetStream Object Store bucket holding request and reply bodies too large
// for one NATS message. Objects expire with the bucket's TTL (one hour by default).
const ClaimCheckBucket = "WORKER_CLAIMS"

// ReplyBucket is the worker's JetStream KV bucket of reply records: the reply of each request that
// ran, keyed by a digest of the request, so that a request asked again (a client re-ask, a
// redelivery, a caller's retry) is answered with it instead of running again. Only the worker reads
// and writes it.
const ReplyBucket = "WORKER_REPLIES"
