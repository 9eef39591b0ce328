package service

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/objectstore"
)

// Refused credentials and untrusted certificates are bad settings (exit 2, named); a dependency
// that is down is not (it is waited for).
func TestSettingErrors(t *testing.T) {
	untrusted := &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}
	wrongHost := &tls.CertificateVerificationError{Err: x509.HostnameError{Host: "nats"}}
	tests := []struct {
		name    string
		nats    bool // natsSettingError, else storageSettingError
		err     error
		setting string // "": not a setting error
	}{
		{"nats authorization", true, fmt.Errorf("NATS_URL x: %w", nats.ErrAuthorization), "NATS_CREDS"},
		{"nats revoked", true, nats.ErrAuthRevoked, "NATS_CREDS"},
		{"nats permission", true, fmt.Errorf("%w: Permissions Violation for Publish to \"$JS.API.INFO\"", nats.ErrPermissionViolation), "NATS_CREDS"},
		{"nats untrusted certificate", true, fmt.Errorf("%w: %w", nats.ErrTLS, untrusted), "NATS_TLS_CA"},
		{"nats certificate for another host", true, fmt.Errorf("%w: %w", nats.ErrTLS, wrongHost), "NATS_URL"},
		{"nats plain URL on a TLS server", true, nats.ErrSecureConnRequired, "NATS_URL"},
		{"nats down", true, fmt.Errorf("NATS_URL x: %w", syscall.ECONNREFUSED), ""},
		{"nats no servers", true, nats.ErrNoServers, ""},
		{"nats nothing", true, nil, ""},
		{"s3 refused keys", false, fmt.Errorf("S3_BUCKET b: %w", objectstore.ErrPermission), "S3_ACCESS_KEY/S3_SECRET_KEY"},
		{"s3 untrusted certificate", false, fmt.Errorf("get: %w", untrusted), "S3_CA_FILE"},
		{"s3 down", false, fmt.Errorf("S3_BUCKET b: %w", objectstore.ErrUnavailable), ""},
		{"nats TLS URL on a plain server", true, nats.ErrSecureConnWanted, "NATS_URL/NATS_TLS_CA"},
		{"s3 https to a plain endpoint", false, fmt.Errorf("get: %w", tls.RecordHeaderError{Msg: "first record does not look like a TLS handshake"}), "S3_USE_SSL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var se *SettingError
			if tt.nats {
				se = natsSettingError(tt.err)
			} else {
				se = storageSettingError(tt.err, Config{S3Credentials: S3CredentialsStatic, S3UseSSL: true})
			}
			switch {
			case tt.setting == "" && se != nil:
				t.Fatalf("%v classified as a bad setting %s", tt.err, se)
			case tt.setting != "" && (se == nil || se.Settings != tt.setting):
				t.Fatalf("%v: got %v, want a SettingError naming %s", tt.err, se, tt.setting)
			case se != nil && !errors.Is(se, tt.err):
				t.Fatalf("%v does not wrap %v", se, tt.err)
			}
		})
	}
	if se := storageSettingError(objectstore.ErrPermission, Config{S3Credentials: S3CredentialsChain}); se == nil || se.Settings == "S3_ACCESS_KEY/S3_SECRET_KEY" {
		t.Fatalf("chain credentials named as %v", se)
	}
}

// A server or account without JetStream, or replicas on a single server, is a bad setting; a
// cluster still electing leaders or placing replicas is not.
func TestJetStreamSettingErrors(t *testing.T) {
	for _, tt := range []struct {
		err     error
		setting string
	}{
		{fmt.Errorf("stream: %w", jetstream.ErrJetStreamNotEnabled), "NATS_URL"},
		{jetstream.ErrJetStreamNotEnabledForAccount, "NATS_CREDS"},
		{fmt.Errorf("stream: %w", &jetstream.APIError{ErrorCode: 10074, Code: 500, Description: "replicas > 1 not supported in non-clustered mode"}), "JETSTREAM_REPLICAS"},
		{&jetstream.APIError{ErrorCode: 10023, Code: 503, Description: "insufficient resources"}, ""},
		{context.DeadlineExceeded, ""},
		{nats.ErrTimeout, ""},
	} {
		se := jetStreamSettingError(tt.err)
		if (se == nil) != (tt.setting == "") || (se != nil && se.Settings != tt.setting) {
			t.Errorf("%v: got %v, want setting %q", tt.err, se, tt.setting)
		}
	}
}
