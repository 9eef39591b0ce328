package contracts

import "encoding/json"

// Reply is the envelope of every reply the worker publishes to a request's Reply-To subject (with
// the header Contract-Version: 1). ok true: result holds the subject's result (see
// <subject>.result.json). ok false: error is set. Exactly one of result and error is set. Consumers
// must ignore properties they do not know.
//
//schema:if {"properties": {"ok": {"const": true}}}
//schema:then {"required": ["result"], "not": {"required": ["error"]}}
//schema:else {"required": ["error"], "not": {"required": ["result"]}}
//ts:params <R = unknown>
type Reply struct {
	// The request's request_id. When the request had none (an invalid_request reply), the request's
	// Nats-Msg-Id, or "".
	RequestID string `json:"request_id"`
	OK        bool   `json:"ok"`
	// Present when ok is true; its shape depends on the subject.
	//
	//ts:type R
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Error          `json:"error,omitempty"`
}

// Error is the error object of a failed reply: code is stable and meant for programs, message is
// for people and may change.
//
//ts:name ErrorObject
type Error struct {
	// Stable, for programs. New codes may be added within v1: treat an unknown code as a permanent
	// failure unless retryable is true.
	//
	//schema:enum ErrorCodes
	Code string `json:"code"`
	// For people; may change. Localised (locale) for the history-image codes and for
	// artifact_not_found on tool.get_artifact. At most 1024 bytes: input is quoted by a short
	// prefix.
	Message string `json:"message"`
	// invalid_request: the offending request field or header (request_id, ref, dialect, Reply-To,
	// Claim-Check, ...); empty when the body is not JSON; for invalid UTF-8 the top-level field
	// (the message gives the path). At most 128 bytes.
	Field string `json:"field,omitempty"`
	// The artifact reference the error is about. At most 2048 bytes.
	Ref string `json:"ref,omitempty"`
	// Sending the request again later may succeed. Within 2 minutes of the first publish, a request
	// with the same Nats-Msg-Id is dropped by JetStream as a duplicate: retry with a new
	// request_id.
	Retryable bool `json:"retryable,omitempty"`
	// tool.get_artifact and tool.get_history_image: the tool result to give the model instead of
	// content, in the request's dialect and locale (defaults when the request could not be read):
	// get_artifact: the routing design's error object as text,
	// {"error":"artifact_not_found","ref":"...","message":"工件不存在或已被删除"} (every
	// code; ref when known); get_history_image: the history-image design's text,
	// [{"type":"text","text":"无效的图片标识符"}] with anthropic. Absent on other subjects.
	Assembly *Assembly `json:"assembly,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Stable error codes of contract v1.
const (
	CodeInvalidRequest       = "invalid_request"
	CodeArtifactNotFound     = "artifact_not_found"
	CodeInvalidArtifactID    = "invalid_artifact_id"
	CodePathTraversalBlocked = "path_traversal_blocked"
	CodeInvalidPath          = "invalid_path"
	CodeMissingMimeType      = "missing_mime_type"
	CodeFileNotFound         = "file_not_found"
	CodePermissionDenied     = "permission_denied"
	CodeWriteFailed          = "write_failed"
	// CodeMetadataNotRecorded: workspace.file_written stored the content (or found it in the
	// store) but could not record the file's metadata; error.ref is the file's artifact id.
	CodeMetadataNotRecorded = "metadata_not_recorded"
	CodeInvalidImageID      = "invalid_image_id"
	CodeImageNotFound       = "image_not_found"
	CodePayloadTooLarge     = "payload_too_large"
	CodeUnavailable         = "unavailable"
	CodeInternal            = "internal_error"
)

// HTTPCodeUnauthorized is the code of the error body the HTTP endpoints (/artifacts/...) answer
// with 401 when HTTP_TOKEN is set and the request lacks it. It never appears in a NATS reply (not in
// reply.json's enum, not in ErrorCodes).
const HTTPCodeUnauthorized = "unauthorized"

// ErrorCodes lists every Code* constant (the enum of reply.json), for callers that enumerate them
// (the worker's metrics create one series per code); a test keeps it equal to the schema's enum.
var ErrorCodes = []string{
	CodeInvalidRequest, CodeArtifactNotFound, CodeInvalidArtifactID, CodePathTraversalBlocked,
	CodeInvalidPath, CodeMissingMimeType, CodeFileNotFound, CodePermissionDenied, CodeWriteFailed,
	CodeMetadataNotRecorded, CodeInvalidImageID, CodeImageNotFound, CodePayloadTooLarge,
	CodeUnavailable, CodeInternal, CodeDuplicateRequest, CodeExpired,
}

// Envelope is the part every request shares; it is what the worker decodes first.
type Envelope struct {
	RequestID string `json:"request_id"`
}
