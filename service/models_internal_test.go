package service

import (
	"fmt"
	"testing"
	"time"
)

// TestUnresolvedLogRateLimit: a name that resolves to nothing is logged at most once per
// UnresolvedLogEvery, each name on its own, and the memory of logged names stays bounded.
func TestUnresolvedLogRateLimit(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	m := &models{now: func() time.Time { return now }, logged: map[string]time.Time{}}
	if !m.due("acme-1") || m.due("acme-1") {
		t.Fatal("the first sighting is logged, the second at once is not")
	}
	if !m.due("acme-2") {
		t.Fatal("another name is logged on its own")
	}
	now = now.Add(UnresolvedLogEvery - time.Second)
	if m.due("acme-1") {
		t.Fatal("logged again before UnresolvedLogEvery")
	}
	now = now.Add(time.Second)
	if !m.due("acme-1") {
		t.Fatal("not logged again after UnresolvedLogEvery")
	}
	for i := range 2 * maxUnresolvedNames {
		m.due(fmt.Sprint("flood-", i))
	}
	if len(m.logged) > maxUnresolvedNames {
		t.Errorf("%d names remembered, want at most %d", len(m.logged), maxUnresolvedNames)
	}
}
