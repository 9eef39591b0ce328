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
	logged := 0
	for i := range 2 * maxUnresolvedNames {
		if m.due(fmt.Sprint("flood-", i)) {
			logged++
		}
	}
	if len(m.logged) > maxUnresolvedNames {
		t.Errorf("%d names remembered, want at most %d", len(m.logged), maxUnresolvedNames)
	}
	if logged > maxUnresolvedNames {
		t.Errorf("%d of %d new names logged within UnresolvedLogEvery, want at most %d", logged, 2*maxUnresolvedNames, maxUnresolvedNames)
	}
	if m.due("acme-1") {
		t.Error("a flood of new names made acme-1 loggable again before UnresolvedLogEvery")
	}
	now = now.Add(UnresolvedLogEvery)
	if !m.due("flood-0") {
		t.Error("once UnresolvedLogEvery passed, a remembered name is logged again")
	}
}
