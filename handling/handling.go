// Package handling holds what a request handler sees and returns, free of any transport: the
// Request, the Handler signature, an already-encoded result, and the policy that turns a handler's
// errors into wire errors. The handlers package implements them; messaging (JetStream) and replay
// run them. It imports nothing but the contract, so a handler's dependency graph holds no NATS or
// Watermill package.
package handling

import (
	"context"

	"github.com/agentworks/artifact-worker/contracts"
)

// Request is what a Handler receives: the resolved (claim checks fetched) JSON body of a request
// whose envelope was decoded and whose request_id is present.
type Request struct {
	Subject   string
	RequestID string
	Body      []byte
	// Delivery counts deliveries of this message, 1 on the first.
	Delivery uint64
}

// Handler answers one request. The result is marshalled to JSON into the reply's "result". An error
// is mapped by the ErrorMapper: permanent errors are answered at once; transient ones are retried.
type Handler func(ctx context.Context, req Request) (result any, err error)

// Encoded is a handler result that is already valid, compact JSON; the runner puts it into the reply
// as it is. Handlers whose results carry megabytes of base64 use it to skip encoding/json's second
// pass over every byte (it validates and compacts embedded json.RawMessage values).
type Encoded []byte

// ErrorMapper turns a handler error into the wire error sent to the caller and says whether the
// failure is transient (worth retrying: storage or NATS unavailable, a timeout) or permanent (the
// same request will fail the same way: reply at once, never retry).
type ErrorMapper func(error) (wire *contracts.Error, transient bool)

// ErrorCompleter completes an error reply before it is sent, whichever step produced it (the
// handler, the runner's own checks, a panic, exhausted deliveries): for instance it adds the tool
// result the model gets instead of content (contracts.Error.Assembly). body is the request body
// as far as it is known: nil or unreadable when the request could not be read, empty when it was
// claim-checked and the claim was not resolved. It must not modify e; it returns e or a copy.
type ErrorCompleter func(subject string, body []byte, e *contracts.Error) *contracts.Error

// EnvelopeDecoder returns the request_id of a request body, or an error that makes it poison.
type EnvelopeDecoder func(body []byte) (requestID string, err error)

// Policy is how a runner treats requests around their handlers: how errors map to wire codes, how
// the envelope is read, how error replies are completed. The handlers package provides the one
// policy (handlers.Policy); every runner (the pipeline, the request/reply front, replay) uses it.
type Policy struct {
	MapError      ErrorMapper
	Envelope      EnvelopeDecoder
	CompleteError ErrorCompleter
}
