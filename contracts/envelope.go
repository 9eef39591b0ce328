package contracts

import "encoding/json"

// Reply is the envelope of every reply. Exactly one of Result (when OK) or Error (when not OK) is set.
type Reply struct {
	// RequestID is the request's request_id; for a request without one (an invalid_request reply)
	// it is the request's Nats-Msg-Id header, or empty.
	RequestID string          `json:"request_id"`
	OK        bool            `json:"ok"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *Error          `json:"error,omitempty"`
}

// Error is the error object of a failed reply. Code is stable and meant for programs; Message is for
// people and may change. Field names the offending request field (or header: Reply-To, Claim-Check)
// for invalid_request; Ref echoes the artifact reference for artifact errors.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Field   string `json:"field,omitempty"`
	Ref     string `json:"ref,omitempty"`
	// Retryable tells the caller that sending the same request again later may succeed.
	Retryable bool `json:"retryable,omitempty"`
	// Assembly is set on every error reply of tool.get_artifact and tool.get_history_image: the
	// tool result to give the model instead of the content, in the request's dialect and locale,
	// with the same shape as a result's assembly. The runtime forwards it as it forwards a result's.
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
