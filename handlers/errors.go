package handlers

import (
	"context"
	"errors"
	"unicode/utf8"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/workspace"
)

// refError attaches the artifact reference a failure is about. Its message quotes the reference by
// its first 64 bytes (the contract's rule for echoed input), so that what went wrong, after it,
// survives the message's bound however long the reference is.
type refError struct {
	ref string
	err error
}

func (e *refError) Error() string { return quote(e.ref) + ": " + e.err.Error() }
func (e *refError) Unwrap() error { return e.err }

func withRef(ref string, err error) error {
	if err == nil {
		return nil
	}
	return &refError{ref: ref, err: err}
}

// MapError turns a handler's error into its wire code: sentinel and typed errors of objectstore,
// workspace and historyimage are mapped here, a *contracts.Error a handler built is passed on (with
// the ref added), anything else is internal_error. The pipeline's own codes (a request it cannot
// read, exhausted deliveries, a panic) are built in messaging. It returns the error for the caller and
// whether the failure is transient (retry, then dead-letter) rather than permanent (answer now).
// What the error echoes of the request is bounded: message to contracts.MaxErrorMessageLen, ref to
// contracts.MaxRefLen, field to contracts.MaxErrorFieldLen bytes.
func MapError(err error) (*contracts.Error, bool) {
	wire, transient := mapError(err)
	wire.Message = cut(wire.Message, contracts.MaxErrorMessageLen)
	wire.Ref = cut(wire.Ref, contracts.MaxRefLen)
	wire.Field = cut(wire.Field, contracts.MaxErrorFieldLen)
	return wire, transient
}

// cut shortens s to at most n bytes, at a rune boundary, marking the cut with "...".
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n - len("...")
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}

func mapError(err error) (*contracts.Error, bool) {
	var ref string
	var re *refError
	if errors.As(err, &re) {
		ref = re.ref
	}
	var we *contracts.Error
	switch {
	case errors.As(err, &we):
		out := *we
		if out.Ref == "" {
			out.Ref = ref
		}
		return &out, false
	case isTransient(err):
		return &contracts.Error{Code: contracts.CodeUnavailable, Message: err.Error(), Ref: ref, Retryable: true}, true
	case errors.Is(err, objectstore.ErrNotFound):
		return &contracts.Error{Code: contracts.CodeArtifactNotFound, Message: "artifact not found: " + ref, Ref: ref}, false
	case errors.Is(err, objectstore.ErrPermission):
		return &contracts.Error{Code: contracts.CodePermissionDenied, Message: "storage denied access: " + err.Error(), Ref: ref}, false
	case errors.Is(err, workspace.ErrMissingMimeType):
		return &contracts.Error{Code: contracts.CodeMissingMimeType, Message: err.Error(), Ref: ref}, false
	case errors.Is(err, workspace.ErrPathTraversal):
		return &contracts.Error{Code: contracts.CodePathTraversalBlocked, Message: err.Error(), Ref: ref}, false
	case errors.Is(err, workspace.ErrInvalidPath):
		return &contracts.Error{Code: contracts.CodeInvalidPath, Message: err.Error(), Ref: ref}, false
	case errors.Is(err, workspace.ErrNotWorkspaceID), errors.Is(err, workspace.ErrInvalidWorkspaceID),
		errors.Is(err, objectstore.ErrInvalidKey):
		return &contracts.Error{Code: contracts.CodeInvalidArtifactID, Message: err.Error(), Ref: ref}, false
	}
	return &contracts.Error{Code: contracts.CodeInternal, Message: err.Error(), Ref: ref}, false
}

// isTransient reports failures that a later attempt may not see: storage or NATS unavailable, a
// deadline that ran out.
func isTransient(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) && api.Code == 503 {
		return true // JetStream temporarily unavailable (leader election, cluster or account not ready)
	}
	switch {
	case errors.Is(err, objectstore.ErrUnavailable),
		errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, workspace.ErrConflict),
		errors.Is(err, nats.ErrTimeout),
		errors.Is(err, nats.ErrConnectionClosed),
		errors.Is(err, nats.ErrConnectionReconnecting),
		errors.Is(err, nats.ErrNoResponders),
		errors.Is(err, nats.ErrDisconnected),
		errors.Is(err, nats.ErrNoServers),
		errors.Is(err, nats.ErrReconnectBufExceeded),
		errors.Is(err, jetstream.ErrNoHeartbeat),
		errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, jetstream.ErrServerShutdown),
		errors.Is(err, jetstream.ErrJetStreamNotEnabled):
		return true
	}
	return false
}

// Policy is the worker's one handling policy (MapError, DecodeEnvelope, CompleteToolError): the
// pipeline, the request/reply front and replay all run the handlers with it.
var Policy = handling.Policy{MapError: MapError, Envelope: DecodeEnvelope, CompleteError: CompleteToolError}
