package objectstore

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"

	"github.com/minio/minio-go/v7"
)

func TestClassifyS3(t *testing.T) {
	resp := func(code string, status int) error {
		return minio.ErrorResponse{Code: code, StatusCode: status, Key: "artifacts/x"}
	}
	refused := &url.Error{Op: "Get", URL: "http://127.0.0.1:1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}}
	tests := []struct {
		name string
		err  error
		want error // nil: no sentinel
	}{
		{"NoSuchKey", resp("NoSuchKey", 404), ErrNotFound},
		{"404 without code body", minio.ErrorResponse{Code: "404 Not Found", StatusCode: 404, Key: "k"}, ErrNotFound},
		{"NoSuchBucket", resp("NoSuchBucket", 404), ErrUnavailable},
		{"AccessDenied", resp("AccessDenied", 403), ErrPermission},
		{"SignatureDoesNotMatch", resp("SignatureDoesNotMatch", 403), ErrPermission},
		{"InvalidAccessKeyId", resp("InvalidAccessKeyId", 403), ErrPermission},
		{"SlowDown", resp("SlowDown", 503), ErrUnavailable},
		{"InternalError", resp("InternalError", 500), ErrUnavailable},
		{"server not initialized", resp("XMinioServerNotInitialized", 503), ErrUnavailable},
		{"unknown 5xx", resp("Whatever", 502), ErrUnavailable},
		{"429", resp("TooMany", 429), ErrUnavailable},
		{"invalid object name", resp("XMinioInvalidObjectName", 400), ErrInvalidKey},
		{"other 4xx", resp("InvalidArgument", 400), nil},
		{"connection refused", refused, ErrUnavailable},
		{"wrapped connection refused", fmt.Errorf("x: %w", refused), ErrUnavailable},
		{"deadline", context.DeadlineExceeded, ErrUnavailable},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), nil},
		{"short content", fmt.Errorf("%w: 5 of 10 bytes", errShortContent), nil},
		{"plain error", errors.New("boom"), nil},
	}
	sentinels := []error{ErrNotFound, ErrTooLarge, ErrPermission, ErrInvalidKey, ErrUnavailable}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := s3Error("stat", "artifacts/x", tc.err)
			for _, s := range sentinels {
				if got := errors.Is(err, s); got != (s == tc.want) {
					t.Errorf("errors.Is(%v, %v) = %v", err, s, got)
				}
			}
			if !errors.Is(err, tc.err) {
				t.Errorf("%v does not keep its cause %v", err, tc.err)
			}
		})
	}
}
