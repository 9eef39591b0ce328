package contracts

// Limits on request fields of contract v1, in bytes of UTF-8. A longer value is answered
// invalid_request naming the field (request_id: also dead-lettered, like a missing one). Every
// string of a request, anywhere in its body, must be valid UTF-8 (a lone UTF-16 surrogate escape
// such as "\ud800" is not): binary content goes in content_base64.
const (
	// MaxIDLen bounds identity fields: request_id, agent_id, message_id, service_id. (workspace_id
	// has its own, smaller limit of 128 characters of [A-Za-z0-9_-].)
	MaxIDLen = 256
	// MaxRefLen bounds an artifact reference (ref, id). The longest valid one, "artifact:ws:" with
	// a 128-character workspace id and the base64url of the longest workspace path, is about 1,320
	// bytes; a bare artifact id is at most 512.
	MaxRefLen = 2048
	// MaxMIMETypeLen bounds mime_type (RFC 6838 allows 127 characters per name, plus parameters).
	MaxMIMETypeLen = 255
	// MaxPagesLen bounds pages (a page selection such as "1-3,7").
	MaxPagesLen = 512
)

// Limits on what an error reply echoes of a request.
const (
	// MaxErrorMessageLen bounds error.message: a message quoting input quotes at most a short
	// prefix of it, so a megabyte of bad input gets a short answer.
	MaxErrorMessageLen = 1024
	// MaxErrorFieldLen bounds error.field.
	MaxErrorFieldLen = 128
)
