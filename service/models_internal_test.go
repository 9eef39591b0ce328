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
	if due, first := m.due("acme-1"); !due || !first {
		t.Fatal("the first sighting is logged and counted as a new name")
	}
	if due, first := m.due("acme-1"); due || first {
		t.Fatal("the second at once is neither logged nor a new name")
	}
	if due, first := m.due("acme-2"); !due || !first {
		t.Fatal("another name is logged and counted on its own")
	}
	now = now.Add(UnresolvedLogEvery - time.Second)
	if due, _ := m.due("acme-1"); due {
		t.Fatal("logged again before UnresolvedLogEvery")
	}
	now = now.Add(time.Second)
	if due, first := m.due("acme-1"); !due || first {
		t.Fatal("not logged again after UnresolvedLogEvery, or counted again though remembered")
	}
	logged := 0
	for i := range 2 * maxUnresolvedNames {
		if due, _ := m.due(fmt.Sprint("flood-", i)); due {
			logged++
		}
	}
	if len(m.logged) > maxUnresolvedNames {
		t.Errorf("%d names remembered, want at most %d", len(m.logged), maxUnresolvedNames)
	}
	if logged > maxUnresolvedNames {
		t.Errorf("%d of %d new names logged within UnresolvedLogEvery, want at most %d", logged, 2*maxUnresolvedNames, maxUnresolvedNames)
	}
	if due, _ := m.due("acme-1"); due {
		t.Error("a flood of new names made acme-1 loggable again before UnresolvedLogEvery")
	}
	now = now.Add(UnresolvedLogEvery)
	if due, _ := m.due("flood-0"); !due {
		t.Error("once UnresolvedLogEvery passed, a remembered name is logged again")
	}
}
