package contracts

import (
	"fmt"
	"strings"
)

// Tenants of a shared worker pool (contracts/README.md, "Tenants"). A worker started with a list of
// tenants (TENANTS) serves, besides the request subjects, each tenant's own copy of them:
// "tenant.<tenant>.<subject>" on JetStream and RequestReplyPrefix + that on the plain path. The
// tenant of a request is the token of the subject it was published on, which the NATS server's
// permissions let only that tenant's users publish; nothing in a header or a body names it.
const (
	// TenantSubjectPrefix starts every tenant's request subjects: tenant.acme.tool.get_artifact.
	TenantSubjectPrefix = "tenant."
	// TenantInboxPrefix starts every tenant's reply subjects: a tenant's callers use the inbox
	// prefix TenantInbox(tenant) ("_INBOX.acme"), and the worker answers a tenant's request only on
	// a subject under it.
	TenantInboxPrefix = "_INBOX."
	// TenantClaimCheckBucketPrefix starts a tenant's claim-check bucket: WORKER_CLAIMS_acme.
	TenantClaimCheckBucketPrefix = ClaimCheckBucket + "_"
	// TenantKeyPrefix starts the storage keys of a tenant's artifacts and workspace files:
	// tenants/acme/artifacts/{id}, tenants/acme/workspaces/{workspaceId}/{path}.
	TenantKeyPrefix = "tenants/"
	// MaxTenantLen is the longest tenant name.
	MaxTenantLen = 32
)

// ValidateTenant reports why name is not a tenant name: 1..MaxTenantLen of a-z, 0-9, '_' and '-',
// starting with a letter or digit (a subject token, a bucket name's suffix and a key segment alike).
func ValidateTenant(name string) error {
	if name == "" || len(name) > MaxTenantLen {
		return fmt.Errorf("tenant %q: 1..%d characters", name, MaxTenantLen)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || i > 0 && (c == '_' || c == '-')) {
			return fmt.Errorf("tenant %q: only a-z, 0-9, '_' and '-' (not first)", name)
		}
	}
	return nil
}

// TenantSubject is tenant's copy of a request subject: tenant.<tenant>.<subject>.
func TenantSubject(tenant, subject string) string {
	return TenantSubjectPrefix + tenant + "." + subject
}

// SplitTenant returns the tenant and the request subject of a tenant's subject
// (tenant.acme.tool.get_artifact: "acme", "tool.get_artifact"), or "" and subject itself for any
// other subject.
func SplitTenant(subject string) (tenant, base string) {
	rest, ok := strings.CutPrefix(subject, TenantSubjectPrefix)
	if !ok {
		return "", subject
	}
	t, b, ok := strings.Cut(rest, ".")
	if !ok || t == "" || b == "" {
		return "", subject
	}
	return t, b
}

// TenantInbox is the inbox prefix of tenant's callers (nats.CustomInboxPrefix): _INBOX.<tenant>.
func TenantInbox(tenant string) string { return TenantInboxPrefix + tenant }

// TenantClaimCheckBucket is tenant's claim-check bucket: WORKER_CLAIMS_<tenant>.
func TenantClaimCheckBucket(tenant string) string { return TenantClaimCheckBucketPrefix + tenant }

// TenantKeys is the prefix of tenant's storage keys: tenants/<tenant>/.
func TenantKeys(tenant string) string { return TenantKeyPrefix + tenant + "/" }
