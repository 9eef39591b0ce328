package service

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

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
	case errors.Is(err, nats.ErrSecureConnWanted):
		return &SettingError{Settings: "NATS_URL/NATS_TLS_CA", Err: fmt.Errorf("TLS is asked for (a tls:// URL or NATS_TLS_*) but the NATS server does not offer it: %w", err)}
	}
	return nil
}

// JetStream API error codes the start-up tells apart.
const (
	jsInsufficientResources  jetstream.ErrorCode = 10023 // a stream's replicas cannot be placed (yet)
	jsReplicasNotInCluster   jetstream.ErrorCode = 10074 // replicas > 1 on a server that is not clustered
	jsNotEnabledForAccount                       = jetstream.JSErrCodeJetStreamNotEnabledForAccount
	jsNotEnabledOnThisServer                     = jetstream.JSErrCodeJetStreamNotEnabled
)

// jsErrorCode returns the JetStream API error code err carries, or 0.
func jsErrorCode(err error) jetstream.ErrorCode {
	var api *jetstream.APIError
	if errors.As(err, &api) {
		return api.ErrorCode
	}
	return 0
}

// jetStreamSettingError classifies an error of creating the topology: a server or account without
// JetStream, or replicas on a server that is not clustered, is a SettingError; anything else nil
// (retried: a cluster electing its leaders, replicas racing).
func jetStreamSettingError(err error) *SettingError {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jetstream.ErrJetStreamNotEnabled), jsErrorCode(err) == jsNotEnabledOnThisServer:
		return &SettingError{Settings: "NATS_URL", Err: fmt.Errorf("the NATS server has no JetStream, which the worker needs: enable it (jetstream {} in the server's config, or -js): %w", err)}
	case errors.Is(err, jetstream.ErrJetStreamNotEnabledForAccount), jsErrorCode(err) == jsNotEnabledForAccount:
		return &SettingError{Settings: "NATS_CREDS", Err: fmt.Errorf("the worker's NATS account has no JetStream: enable it for the account: %w", err)}
	case jsErrorCode(err) == jsReplicasNotInCluster:
		return &SettingError{Settings: "JETSTREAM_REPLICAS", Err: fmt.Errorf("the NATS server is not clustered: use 1: %w", err)}
	}
	return nil
}

// storageSettingError classifies an error of opening the store: refused credentials, an untrusted
// certificate and a TLS/plain mismatch are a SettingError naming the settings, anything else nil
// (transient).
func storageSettingError(err error, cfg Config) *SettingError {
	var (
		verify   *tls.CertificateVerificationError
		hostname x509.HostnameError
		record   tls.RecordHeaderError
	)
	keys := "S3_ACCESS_KEY/S3_SECRET_KEY"
	if cfg.S3Credentials == S3CredentialsChain {
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
	case cfg.S3UseSSL && (errors.As(err, &record) || strings.Contains(err.Error(), "server gave HTTP response to HTTPS client")):
		return &SettingError{Settings: "S3_USE_SSL", Err: fmt.Errorf("S3_USE_SSL is true but S3_ENDPOINT %s speaks plain HTTP: %w", cfg.S3Endpoint, err)}
	}
	return nil
}

// speaksTLS reports whether a TLS handshake with addr succeeds (its certificate unchecked: only the
// protocol is in question; nothing is sent over it).
func speaksTLS(ctx context.Context, addr string) bool {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // a protocol probe, no data is sent
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return false
	}
	_ = c.Close()
	return true
}

// unreachable reports whether err is a failure to reach an address at all (refused, unresolvable,
// timed out connecting), as opposed to an answer.
func unreachable(err error) bool {
	var (
		op  *net.OpError
		dns *net.DNSError
	)
	return errors.As(err, &op) && op.Op == "dial" || errors.As(err, &dns)
}
