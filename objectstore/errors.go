package objectstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"

	"github.com/minio/minio-go/v7"
)

// Sentinel errors. Every error returned by S3 and Local wraps at most one of them; see the
// package documentation for what each means to a caller.
var (
	// ErrNotFound: no object has this key.
	ErrNotFound = errors.New("objectstore: object not found")
	// ErrTooLarge: the object is larger than the limit the caller gave; it was not downloaded.
	ErrTooLarge = errors.New("objectstore: object too large")
	// ErrPermission: access denied by the storage (credentials, policy, file permissions).
	ErrPermission = errors.New("objectstore: permission denied")
	// ErrInvalidKey: the key is not a valid object key.
	ErrInvalidKey = errors.New("objectstore: invalid key")
	// ErrUnavailable: the storage cannot serve the request right now; retry with back-off.
	ErrUnavailable = errors.New("objectstore: storage unavailable")
)

// S3 error codes that mean "this key has no object".
var s3NotFound = map[string]bool{
	minio.NoSuchKey: true, "NoSuchVersion": true, "XMinioObjectNotFound": true,
}

// S3 error codes that are the storage's or the credentials' fault, not the key's.
var s3Permission = map[string]bool{
	minio.AccessDenied: true, "AllAccessDisabled": true, "InvalidAccessKeyId": true,
	"SignatureDoesNotMatch": true, "AccountProblem": true, "InvalidToken": true,
	"ExpiredToken": true,
	// versitygw's answer (404) to an access key it does not know.
	"XAdminUserNotFound": true,
}

var s3InvalidKey = map[string]bool{
	minio.XMinioInvalidObjectName: true, "KeyTooLongError": true, "InvalidObjectName": true,
}

// S3 error codes that are transient. NoSuchBucket is here on purpose: a bucket that is missing
// is a deployment state (EnsureBucket has not run yet), not a property of the key, so it must
// neither be reported as "artifact not found" nor be final.
var s3Unavailable = map[string]bool{
	minio.NoSuchBucket: true, "SlowDown": true, "SlowDownRead": true, "SlowDownWrite": true,
	"InternalError": true, "ServiceUnavailable": true, "RequestTimeout": true,
	"Throttling": true, "ThrottlingException": true,
	"RequestLimitExceeded": true, "RequestThrottled": true, "XMinioServerNotInitialized": true,
	"XMinioReadQuorum": true, "XMinioWriteQuorum": true, "XMinioStorageFull": true,
	"OperationTimedOut": true, "XMinioBackendDown": true,
}

// s3Error wraps an error returned by minio-go (or by the network under it) for operation op on
// key, matching it to a sentinel. It is the single place where S3 errors are classified.
func s3Error(op, key string, err error) error {
	if err == nil {
		return nil
	}
	if kind := classifyS3(err); kind != nil {
		return &opError{op: op, key: key, kind: kind, err: err}
	}
	return &opError{op: op, key: key, err: err}
}

func classifyS3(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, errShortContent) {
		return nil
	}
	var er minio.ErrorResponse
	if errors.As(err, &er) && er.Code != "" {
		switch {
		case s3NotFound[er.Code]:
			return ErrNotFound
		case s3Permission[er.Code]:
			return ErrPermission
		case s3InvalidKey[er.Code]:
			return ErrInvalidKey
		case s3Unavailable[er.Code]:
			return ErrUnavailable
		}
		switch {
		case er.StatusCode == http.StatusNotFound && er.Key != "":
			return ErrNotFound
		case er.StatusCode == http.StatusForbidden:
			return ErrPermission
		case er.StatusCode >= 500, er.StatusCode == http.StatusTooManyRequests,
			er.StatusCode == http.StatusRequestTimeout:
			return ErrUnavailable
		}
		return nil
	}
	if isTransientNetErr(err) {
		return ErrUnavailable
	}
	return nil
}

// isTransientNetErr reports network failures: refused, reset, timeouts, truncated responses.
func isTransientNetErr(err error) bool {
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE),
		errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return true
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		// From the transport, EOF means the server closed the connection mid-exchange.
		return true
	case errors.As(err, &oe):
		return true
	case errors.As(err, &ne) && ne.Timeout():
		return true
	}
	return false
}

// opError is the error type of this package: the operation, the key, the sentinel it matches
// (kind, may be nil) and the underlying cause.
type opError struct {
	op   string
	key  string
	kind error
	err  error
}

func (e *opError) Error() string {
	var s string
	if e.key != "" {
		s = fmt.Sprintf("objectstore: %s %q", e.op, e.key)
	} else {
		s = "objectstore: " + e.op
	}
	switch {
	case e.kind != nil && e.err != nil:
		return fmt.Sprintf("%s: %s: %v", s, kindText(e.kind), e.err)
	case e.kind != nil:
		return s + ": " + kindText(e.kind)
	default:
		return fmt.Sprintf("%s: %v", s, e.err)
	}
}

// Unwrap returns the sentinel and the cause, so that errors.Is and errors.As see both.
func (e *opError) Unwrap() []error {
	errs := make([]error, 0, 2)
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.err != nil {
		errs = append(errs, e.err)
	}
	return errs
}

// kindText is a sentinel's message without the package prefix, to avoid stutter.
func kindText(kind error) string {
	const prefix = "objectstore: "
	s := kind.Error()
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):]
	}
	return s
}
