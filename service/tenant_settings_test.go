package service_test

import (
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/service"
)

// Tenant settings out of range are bad settings found by Validate, each named with what it must
// be; the limits' "no limit" (-1) and the smallest allowed values pass.
func TestValidateChecksTenantSettings(t *testing.T) {
	valid := func() service.Config {
		c := service.Config{S3Endpoint: "minio:9000", S3AccessKey: "k", S3SecretKey: "s", Tenants: "acme,globex"}
		c.SetDefaults()
		return c
	}
	ok := valid()
	ok.TenantHistoryMaxBytes, ok.TenantWorkspaceMaxBytes, ok.TenantWorkSlots = -1, 1024, 1
	if err := ok.Validate(); err != nil {
		t.Fatalf("valid tenant settings refused: %v", err)
	}
	for _, tt := range []struct {
		name    string
		mutate  func(*service.Config)
		setting string
		says    string
	}{
		{"tenant listed twice", func(c *service.Config) { c.Tenants = "acme,acme" }, "TENANTS", "listed twice"},
		{"no tenant concurrency", func(c *service.Config) { c.TenantConcurrency = -1 }, "TENANT_CONCURRENCY", "must be 1..256"},
		{"no work slots", func(c *service.Config) { c.TenantWorkSlots = -2 }, "TENANT_WORK_SLOTS", "must be 1..1024"},
		{"too many work slots", func(c *service.Config) { c.TenantWorkSlots = 1025 }, "TENANT_WORK_SLOTS", "must be 1..1024"},
		{"history limit too small", func(c *service.Config) { c.TenantHistoryMaxBytes = 1023 }, "TENANT_HISTORY_MAX_BYTES", "at least 1024 bytes, or -1"},
		{"workspace limit negative", func(c *service.Config) { c.TenantWorkspaceMaxBytes = -5 }, "TENANT_WORKSPACE_MAX_BYTES", "at least 1024 bytes, or -1"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := valid()
			tt.mutate(&c)
			err := c.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.setting+": ") || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Validate = %v, want an error naming %s that says %q", err, tt.setting, tt.says)
			}
		})
	}
}
