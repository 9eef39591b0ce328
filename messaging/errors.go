package messaging

import (
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
)

// ErrorMapper turns a handler error into the wire error sent to the caller and says whether the
// failure is transient (worth retrying: storage or NATS unavailable, a timeout) or permanent (the same
// request will fail the same way: reply at once, never retry). The handlers package provides it
// (handlers.MapError): it maps the typed errors handlers return, and passes on the *contracts.Error
// some handlers build themselves. The pipeline builds the codes of the failures it finds around the
// handler: invalid_request and payload_too_large (RequestError), unavailable after MaxDeliver
// deliveries, internal_error after a panic.
type ErrorMapper = handling.ErrorMapper

// ErrorCompleter completes an error reply before it is sent, whichever step produced it (the
// handler, the pipeline's own checks, a panic, exhausted deliveries): for instance it adds the tool
// result the model gets instead of content (contracts.Error.Assembly). body is the request body
// as far as it is known: nil or unreadable when the request could not be read, empty when it was
// claim-checked and the claim was not resolved. It must not modify e; it returns e or a copy.
type ErrorCompleter = handling.ErrorCompleter

// RequestError is a failure detected by the pipeline itself before the handler ran: an undecodable
// body, a missing request_id, an expired claim check. Such a message is poison: it is answered with
// the error (when it names a Reply-To) and dead-lettered.
type RequestError struct {
	Wire *contracts.Error
}

func (e *RequestError) Error() string { return e.Wire.Error() }

func invalidRequest(field, format string, args ...any) error {
	return &RequestError{Wire: &contracts.Error{
		Code:    contracts.CodeInvalidRequest,
		Message: fmt.Sprintf(format, args...),
		Field:   field,
	}}
}
