package service_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// TestMemoryBudget: with a 16 MiB budget, each read of a ~3 MB image is charged more than the whole
// budget (such requests run alone: messaging.TestMemoryBudgetBoundsLargeRequests); eight sent at once
// are all answered (none waits forever), and once they are, nothing is charged any more.
func TestMemoryBudget(t *testing.T) {
	t.Parallel()
	w := startWorker(t, func(c *service.Config) { c.MemoryBudget = 16 << 20 })
	img := testfiles.NoisyPNG(1000, 800) // ~3 MB: charged 8x, over the budget
	if len(img) < 2<<20 {
		t.Fatalf("fixture is %d bytes, want over 2 MiB", len(img))
	}
	w.PutArtifact("big", "image/png", "big.png", img)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rep, res := getArtifact(t, w, contracts.GetArtifactRequest{RequestID: fmt.Sprintf("mb-%d-%s", i, randomHex(4)), Ref: "big", ServiceID: "vision-model", Media: contracts.MediaAssembly})
			if !rep.OK || res.ContentType != "image" {
				t.Errorf("request %d: %+v", i, rep.Error)
			}
		}()
	}
	wg.Wait()
	f := scrape(t, w)
	if v, _ := value(f, "worker_memory_budget_bytes", nil); v != 16<<20 {
		t.Errorf("worker_memory_budget_bytes %v, want %d", v, 16<<20)
	}
	servicetest.WaitFor(t, 10*time.Second, "nothing charged once every request was answered", func() bool {
		v, ok := value(scrape(t, w), "worker_memory_reserved_bytes", nil)
		return ok && v == 0
	})
}
