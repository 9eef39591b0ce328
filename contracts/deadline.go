package contracts

import (
	"fmt"
	"time"
)

// HeaderDeadline on a request is the time after which its caller no longer waits for the reply
// (the caller's timeout: the Go client sets it from its context's deadline, `worker call` from
// --timeout). The worker checks it before it starts work on each delivery: a request whose
// deadline has passed is not executed; it is answered CodeExpired (and counted), acked, and not
// dead-lettered. The value is an RFC 3339 timestamp in UTC with milliseconds (DeadlineLayout,
// "2026-11-26T10:00:00.000Z"); the worker accepts any RFC 3339 time. A value that is not one
// makes the request invalid_request (field HeaderDeadline), dead-lettered. A request without the
// header gets DefaultRequestTimeout from the time JetStream stored it.
//
// The deadline is compared with the worker's clock: keep clocks in step (NTP); a caller's clock
// that runs ahead shortens its requests' lives by as much.
const HeaderDeadline = "Artifact-Worker-Deadline"

// HeaderScope is the request header that says what a call may read and write: "*", or a
// comma-separated list of "ws:<workspaceId>" (that workspace's files) and "artifact:<prefix>*"
// (artifacts whose id starts with prefix). The runtime sets it, never the model. A reference outside
// the scope is answered exactly as one that does not exist (artifact_not_found, image_not_found); a
// malformed header is invalid_request. Without the header a call reads everything, unless the worker
// requires it (REQUIRE_SCOPE). contracts/README.md gives the grammar.
const HeaderScope = "Artifact-Worker-Scope"

// DeadlineLayout formats HeaderDeadline values: RFC 3339, UTC, milliseconds.
const DeadlineLayout = "2006-01-02T15:04:05.000Z07:00"

// DefaultRequestTimeout is the deadline of a request without HeaderDeadline, counted from the time
// JetStream stored it. It covers the worker's own retries of a transient failure (about a minute
// over five deliveries).
const DefaultRequestTimeout = 5 * time.Minute

// FormatDeadline returns t as a HeaderDeadline value (UTC, milliseconds; sub-millisecond time is
// truncated).
func FormatDeadline(t time.Time) string { return t.UTC().Format(DeadlineLayout) }

// ParseDeadline reads a HeaderDeadline value: any RFC 3339 time.
func ParseDeadline(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("header %s %q is not an RFC 3339 time (like %q)", HeaderDeadline, truncate(s, 64), FormatDeadline(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)))
	}
	return t, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// CodeExpired answers a request whose deadline (HeaderDeadline, or DefaultRequestTimeout after it was
// stored) passed before a worker started it: it was not executed. Its caller has normally given up
// already; one that still listens (its clock ahead of the worker's) learns that nothing ran. Not
// retryable as it is: send a new request with a new deadline.
const CodeExpired = "expired"
