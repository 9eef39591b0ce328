package service_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/testcerts"
	"github.com/agentworks/artifact-worker/service"
)

// Certificate, key and credentials files that cannot be read or do not hold what they must are bad
// settings found by Validate, before any connection is tried, each named.
func TestValidateChecksTLSAndCredentialsFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cert, key := testcerts.SelfSigned(t)
	_, otherKey := testcerts.SelfSigned(t)
	certFile, keyFile, otherKeyFile := write("cert.pem", cert), write("key.pem", key), write("other-key.pem", otherKey)
	creds := write("user.creds", testcerts.UserCreds(t))
	notPEM := write("not.pem", []byte("this is not PEM\n"))
	unreadable := filepath.Join(dir, "missing.pem")

	valid := service.Config{NATSURL: "tls://nats:4222", NATSTLSCA: certFile, NATSTLSCert: certFile, NATSTLSKey: keyFile, NATSCreds: creds,
		S3Endpoint: "minio:9000", S3AccessKey: "k", S3SecretKey: "s", S3UseSSL: true, S3CAFile: certFile}
	valid.SetDefaults()
	if err := valid.Validate(); err != nil {
		t.Fatalf("valid files refused: %v", err)
	}
	for _, tt := range []struct {
		name    string
		mutate  func(*service.Config)
		setting string
	}{
		{"CA not PEM", func(c *service.Config) { c.NATSTLSCA = notPEM }, "NATS_TLS_CA"},
		{"CA a key", func(c *service.Config) { c.NATSTLSCA = keyFile }, "NATS_TLS_CA"},
		{"CA unreadable", func(c *service.Config) { c.NATSTLSCA = unreadable }, "NATS_TLS_CA"},
		{"client certificate not PEM", func(c *service.Config) { c.NATSTLSCert = notPEM }, "NATS_TLS_CERT"},
		{"client key not PEM", func(c *service.Config) { c.NATSTLSKey = notPEM }, "NATS_TLS_KEY"},
		{"client key of another certificate", func(c *service.Config) { c.NATSTLSKey = otherKeyFile }, "NATS_TLS_KEY"},
		{"creds not a creds file", func(c *service.Config) { c.NATSCreds = notPEM }, "NATS_CREDS"},
		{"S3 CA not PEM", func(c *service.Config) { c.S3CAFile = notPEM }, "S3_CA_FILE"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := valid
			tt.mutate(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.setting+":") {
				t.Fatalf("Validate() = %v, want an error naming %s", err, tt.setting)
			}
		})
	}
}
