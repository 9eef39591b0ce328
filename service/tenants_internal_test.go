package service

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/objectstore"
)

// TestTenantKeysProperty draws tenants and references (artifact ids, workspace files, names one
// tenant's prefix could be mistaken for) and stores each under one tenant: every tenant's view
// reads back its own bytes, and every other view (the other tenants', the pool's own) finds
// nothing, even for the same id with other bytes; a tenant's subject names that tenant only.
func TestTenantKeysProperty(t *testing.T) {
	t.Parallel()
	local, err := objectstore.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(26, 2))
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_-"
	name := func(n int) string {
		b := make([]byte, 1+rng.IntN(n))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		b[0] = alphabet[rng.IntN(36)] // tenant names start with a letter or digit
		return string(b)
	}
	ctx := context.Background()
	for range 200 {
		tenants := []string{name(8), name(8), "a" + name(6)}
		if tenants[0] == tenants[1] || tenants[1] == tenants[2] || tenants[0] == tenants[2] {
			continue
		}
		for _, tn := range tenants {
			if err := contracts.ValidateTenant(tn); err != nil {
				t.Fatal(err)
			}
			for _, s := range contracts.RequestSubjects {
				if got, base := contracts.SplitTenant(contracts.TenantSubject(tn, s)); got != tn || base != s {
					t.Fatalf("SplitTenant(TenantSubject(%q, %q)) = %q, %q", tn, s, got, base)
				}
			}
		}
		var key string
		switch rng.IntN(3) {
		case 0:
			key = objectstore.ArtifactKey(name(20))
		case 1:
			key = objectstore.WorkspaceKey(name(10), name(10)+"/"+name(10)+".md")
		default: // an id that spells another tenant's prefix
			key = objectstore.ArtifactKey(strings.TrimSuffix(contracts.TenantKeys(tenants[1]), "/"))
		}
		owner := rng.IntN(len(tenants))
		views := map[string]Store{"": local}
		for _, tn := range tenants {
			views[tn] = tenantStore{inner: local, prefix: contracts.TenantKeys(tn)}
		}
		data := "bytes of " + tenants[owner] + " " + key
		if _, err := views[tenants[owner]].Put(ctx, key, strings.NewReader(data), int64(len(data)), "text/plain", nil); err != nil {
			t.Fatal(err)
		}
		for tn, v := range views {
			b, info, err := v.ReadAll(ctx, key, 1<<20)
			switch {
			case tn == tenants[owner]:
				if err != nil || string(b) != data || info.Key != key {
					t.Fatalf("tenant %s reads its %s: %q %q %v", tn, key, b, info.Key, err)
				}
			case !errors.Is(err, objectstore.ErrNotFound):
				t.Fatalf("view %q reads %s stored by tenant %s: %q, %v (want not found)", tn, key, tenants[owner], b, err)
			}
		}
		// Clean up so that the next draw's key is stored by its own owner only.
		if err := local.Delete(ctx, contracts.TenantKeys(tenants[owner])+key); err != nil {
			t.Fatal(err)
		}
	}
}
