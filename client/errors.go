package client

import (
	"errors"
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
)

// Stages of a call, as CallError.Stage.
const (
	// StageStore: JetStream did not acknowledge the request before the caller's deadline, although
	// the client kept trying (or it refused the request).
	StageStore = "store"
	// StageReply: the request is stored, but no reply came before the caller's deadline.
	StageReply = "reply"
)

// CallError is a call that ended without a reply from the worker. errors.Is(err, ErrNoReply) holds
// for StageReply; Err is the last failure (ctx.Err() for StageReply).
type CallError struct {
	Subject   string
	RequestID string
	Stage     string // StageStore or StageReply
	// Stored reports that JetStream acknowledged the request (as StreamSeq): a worker answers it
	// until its deadline, to this call's inbox, which is gone. Sending it again needs a new
	// request_id, or the stream drops it as a duplicate for 2 minutes.
	Stored    bool
	StreamSeq uint64
	// Attempts counts the publishes made to store the request.
	Attempts int
	Err      error
}

func (e *CallError) Error() string {
	if e.Stored {
		return fmt.Sprintf("client: %s request_id %q stored (stream sequence %d) but no reply before the deadline: %v", e.Subject, e.RequestID, e.StreamSeq, e.Err)
	}
	return fmt.Sprintf("client: %s request_id %q not stored after %d attempts: %v", e.Subject, e.RequestID, e.Attempts, e.Err)
}

func (e *CallError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrNoReply) hold for a stored request without a reply.
func (e *CallError) Is(target error) bool { return target == ErrNoReply && e.Stage == StageReply }

// RetrySafe reports whether sending the request again, with the same request_id, is safe: it
// cannot run twice and may succeed. It holds when the request is not known to be stored
// (StageStore: JetStream stores a request_id at most once) and the stream did not refuse it for
// good (too large, bad header).
func (e *CallError) RetrySafe() bool { return !e.Stored && e.Stage == StageStore && transient(e.Err) }

// RetrySafe reports whether sending the request that returned err again is safe and may succeed:
//   - a *CallError whose RetrySafe holds: the request is not stored; send it with the same
//     request_id (JetStream stores it at most once);
//   - a worker error reply marked retryable (contracts.Error.Retryable, e.g. unavailable after every
//     delivery): the request had no effect; send it again under a new request_id (the stream drops
//     a repeated one for 2 minutes).
//
// ErrDuplicate, ErrExpired, a stored request without a reply (ErrNoReply: a worker may still run it)
// and every other error are not.
func RetrySafe(err error) bool {
	if errors.Is(err, ErrDuplicate) || errors.Is(err, ErrExpired) {
		return false
	}
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.RetrySafe()
	}
	var we *contracts.Error
	return errors.As(err, &we) && we.Retryable
}
