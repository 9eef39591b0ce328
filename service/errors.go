package service

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/objectstore"
)

// SettingError is a start-up failure that waiting cannot fix: a dependency refused the worker's
// credentials or certificates, or HTTP_ADDR cannot be listened on. Settings names the settings to fix; `worker run` exits 2 on it, as on
// a setting Validate rejects, instead of retrying as if the dependency were down.
type SettingError struct {
	Settings string // e.g. "S3_ACCESS_KEY/S3_SECRET_KEY"
	Err      error
}

func (e *SettingError) Error() string { return e.Settings + ": " + e.Err.Error() }
func (e *SettingError) Unwrap() error { return e.Err }

// natsSettingError classifies a NATS connection or JetStream error: an authentication,
// authorization or certificate failure is a SettingError, anything else nil (transient).
func natsSettingError(err error) *SettingError {
	var (
		verify   *tls.CertificateVerificationError
		hostname x509.HostnameError
	)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, nats.ErrAuthorization), errors.Is(err, nats.ErrAuthExpired), errors.Is(err, nats.ErrAuthRevoked),
		errors.Is(err, nats.ErrAccountAuthExpired):
		return &SettingError{Settings: "NATS_CREDS", Err: fmt.Errorf("the NATS server refused the worker's credentials: %w", err)}
	case errors.Is(err, nats.ErrPermissionViolation):
		return &SettingError{Settings: "NATS_CREDS", Err: fmt.Errorf("the worker's NATS user lacks a permission (docs/operations.md lists them): %w", err)}
	case errors.Is(err, os.ErrNotExist), errors.Is(err, os.ErrPermission):
		// nats.go reads NATS_CREDS and the TLS files when it connects.
		return &SettingError{Settings: "NATS_CREDS/NATS_TLS_CA/NATS_TLS_CERT/NATS_TLS_KEY", Err: err}
	case errors.As(err, &hostname):
		return &SettingError{Settings: "NATS_URL", Err: fmt.Errorf("the NATS server's certificate does not name the host: %w", err)}
	case errors.As(err, &verify):
		return &SettingError{Settings: "NATS_TLS_CA", Err: fmt.Errorf("the NATS server's certificate is not trusted: %w", err)}
	case errors.Is(err, nats.ErrSecureConnRequired):
		return &SettingError{Settings: "NATS_URL", Err: fmt.Errorf("the NATS server requires TLS (use tls:// and NATS_TLS_CA): %w", err)}
	}
	return nil
}

// storageSettingError classifies an error of opening the store: refused credentials are a
// SettingError naming the credential settings, anything else nil (transient).
func storageSettingError(err error, credentials string) *SettingError {
	var (
		verify   *tls.CertificateVerificationError
		hostname x509.HostnameError
	)
	keys := "S3_ACCESS_KEY/S3_SECRET_KEY"
	if credentials == S3CredentialsChain {
		keys = "S3_CREDENTIALS=chain (the AWS_*/MINIO_* environment, web identity or instance role)"
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, objectstore.ErrPermission):
		return &SettingError{Settings: keys, Err: fmt.Errorf("the storage refused the credentials: %w", err)}
	case errors.As(err, &hostname):
		return &SettingError{Settings: "S3_ENDPOINT", Err: fmt.Errorf("the S3 endpoint's certificate does not name the host: %w", err)}
	case errors.As(err, &verify):
		return &SettingError{Settings: "S3_CA_FILE", Err: fmt.Errorf("the S3 endpoint's certificate is not trusted: %w", err)}
	}
	return nil
}
