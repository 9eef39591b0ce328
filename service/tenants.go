package service

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/workspace"
)

// Tenants in one worker pool (docs/operations.md, "Several tenants in one worker pool"). TENANTS
// lists them; each tenant gets the request subjects under contracts.TenantSubject, and everything a
// request of theirs touches is the tenant's own: its storage keys (under contracts.TenantKeys), its
// workspace metadata, history-image and claim-check buckets, its consumers with TENANT_CONCURRENCY
// slots each, and its reply records (keyed by the tenant's subject). Build makes one set of handlers
// per tenant on those, so no handler of one tenant holds anything of another: the tenant is the
// subject the NATS server let the caller publish on, never a header or a field.

// DefaultTenantConcurrency is TENANT_CONCURRENCY's default.
const DefaultTenantConcurrency = 4

// Defaults of TENANT_HISTORY_MAX_BYTES (each of a tenant's two history-image buckets) and
// TENANT_WORKSPACE_MAX_BYTES (a tenant's workspace metadata bucket).
const (
	DefaultTenantHistoryMaxBytes   = 1 << 30
	DefaultTenantWorkspaceMaxBytes = 256 << 20
)

// MaxTenants bounds TENANTS: each tenant adds five consumers, four buckets and the label values of
// its five subjects.
const MaxTenants = 64

// TenantList returns the tenants of TENANTS, in the order given (nil when none). Call it on a
// validated Config.
func (c Config) TenantList() []string {
	names, _ := parseTenants(c.Tenants)
	return names
}

func parseTenants(v string) ([]string, error) {
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	var out []string
	for _, f := range strings.Split(v, ",") {
		name := strings.TrimSpace(f)
		if err := contracts.ValidateTenant(name); err != nil {
			return nil, err
		}
		if slices.Contains(out, name) {
			return nil, fmt.Errorf("tenant %q is listed twice", name)
		}
		out = append(out, name)
	}
	if len(out) > MaxTenants {
		return nil, fmt.Errorf("%d tenants, at most %d", len(out), MaxTenants)
	}
	return out, nil
}

func validateTenantSettings(c Config, bad func(name, format string, args ...any)) {
	if _, err := parseTenants(c.Tenants); err != nil {
		bad("TENANTS", "%v (a comma-separated list of tenant names)", err)
	}
	if c.TenantConcurrency < 1 || c.TenantConcurrency > 256 {
		bad("TENANT_CONCURRENCY", "must be 1..256, got %d", c.TenantConcurrency)
	}
	for _, s := range []struct {
		name string
		v    int64
	}{{"TENANT_HISTORY_MAX_BYTES", c.TenantHistoryMaxBytes}, {"TENANT_WORKSPACE_MAX_BYTES", c.TenantWorkspaceMaxBytes}} {
		if s.v != -1 && s.v < 1024 {
			bad(s.name, "must be at least 1024 bytes, or -1 for no limit, got %d", s.v)
		}
	}
	if c.TenantWorkSlots < 1 || c.TenantWorkSlots > 1024 {
		bad("TENANT_WORK_SLOTS", "must be 1..1024, got %d", c.TenantWorkSlots)
	}
}

// tenantBuckets are the JetStream buckets of one tenant ("" : the pool's own, as without tenants).
type tenantBuckets struct {
	claims, files, historyKV, historyObjects string
}

func bucketsOf(tenant string) tenantBuckets {
	if tenant == "" {
		return tenantBuckets{contracts.ClaimCheckBucket, workspace.DefaultMetaBucket, historyimage.DefaultKVBucket, historyimage.DefaultObjectBucket}
	}
	return tenantBuckets{
		claims:         contracts.TenantClaimCheckBucket(tenant),
		files:          workspace.DefaultMetaBucket + "_" + tenant,
		historyKV:      historyimage.DefaultKVBucket + "_" + tenant,
		historyObjects: historyimage.DefaultObjectBucket + "_" + tenant,
	}
}

// tenantStore is a tenant's view of the object store: every key is under the tenant's prefix
// (contracts.TenantKeys), and the keys it reports are the tenant's own, without it. It lists every
// method of Store itself (no embedding), so no call can reach the store with a key outside the
// prefix.
type tenantStore struct {
	inner  Store
	prefix string
}

var _ Store = tenantStore{}

func (s tenantStore) unprefixed(info objectstore.Info) objectstore.Info {
	info.Key = strings.TrimPrefix(info.Key, s.prefix)
	return info
}

func (s tenantStore) ReadAll(ctx context.Context, key string, max int64) ([]byte, objectstore.Info, error) {
	b, info, err := s.inner.ReadAll(ctx, s.prefix+key, max)
	return b, s.unprefixed(info), err
}

func (s tenantStore) Stat(ctx context.Context, key string) (objectstore.Info, error) {
	info, err := s.inner.Stat(ctx, s.prefix+key)
	return s.unprefixed(info), err
}

func (s tenantStore) Open(ctx context.Context, key string) (io.ReadCloser, objectstore.Info, error) {
	rc, info, err := s.inner.Open(ctx, s.prefix+key)
	return rc, s.unprefixed(info), err
}

func (s tenantStore) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string, meta map[string]string) (objectstore.Info, error) {
	info, err := s.inner.Put(ctx, s.prefix+key, r, size, contentType, meta)
	return s.unprefixed(info), err
}

func (s tenantStore) Delete(ctx context.Context, key string) error {
	return s.inner.Delete(ctx, s.prefix+key)
}

func (s tenantStore) Ping(ctx context.Context) error { return s.inner.Ping(ctx) }

// tenantSubjects returns the request subjects of the pool: nil without tenants (the topology's
// default, contracts.RequestSubjects), else those followed by every tenant's.
func tenantSubjects(tenants []string) []string {
	if len(tenants) == 0 {
		return nil
	}
	out := slices.Clone(contracts.RequestSubjects)
	for _, t := range tenants {
		for _, s := range contracts.RequestSubjects {
			out = append(out, contracts.TenantSubject(t, s))
		}
	}
	return out
}

// completeError is handlers.Policy.CompleteError on a tenant's subject as on the request subject it
// copies: a tenant's error replies are the same as the pool's own.
func completeError(subject string, body []byte, e *contracts.Error) *contracts.Error {
	_, base := contracts.SplitTenant(subject)
	return handlers.Policy.CompleteError(base, body, e)
}

// tenantPipeline completes the pipeline's configuration for the tenants of cfg: their subjects'
// slots (TENANT_CONCURRENCY), the work slots shared by the tenants in turn (TENANT_WORK_SLOTS;
// the pool's own subjects are one more group), their read-only subjects, and their claim-check
// buckets.
func tenantPipeline(cfg Config, c *Components, pc *messaging.Config, deps *messaging.Deps) {
	deps.SubjectClaims = c.SubjectClaims
	if len(cfg.TenantList()) > 0 {
		pc.WorkSlots = cfg.TenantWorkSlots
		pc.Group = func(subject string) string {
			tenant, _ := contracts.SplitTenant(subject)
			return tenant
		}
	}
	readOnly := slices.Clone(pc.ReadOnly)
	for _, t := range cfg.TenantList() {
		for _, s := range contracts.RequestSubjects {
			ts := contracts.TenantSubject(t, s)
			if pc.SubjectConcurrency == nil {
				pc.SubjectConcurrency = map[string]int{}
			}
			pc.SubjectConcurrency[ts] = cfg.TenantConcurrency
			if slices.Contains(readOnly, s) {
				pc.ReadOnly = append(pc.ReadOnly, ts)
			}
		}
	}
}
