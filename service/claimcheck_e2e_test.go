package service_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/claimcheck"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// bucketBytes reads the claim-check bucket's size and limit from the worker's /metrics.
func bucketBytes(t *testing.T, w *servicetest.Worker) (size, limit float64) {
	t.Helper()
	f := scrape(t, w)
	size, ok1 := value(f, "worker_claim_check_bucket_size_bytes", nil)
	limit, ok2 := value(f, "worker_claim_check_bucket_limit_bytes", nil)
	if !ok1 || !ok2 {
		t.Fatal("worker_claim_check_bucket_size_bytes or _limit_bytes missing from /metrics")
	}
	return size, limit
}

// TestClaimChecksAreDeletedOnceRead: a claim-checked request is deleted by the worker once answered
// (or expired), a claim-checked reply by the Go client once read: the bucket is empty again after
// each, long before its TTL.
func TestClaimChecksAreDeletedOnceRead(t *testing.T) {
	t.Parallel()
	w := startWorker(t)
	if size, limit := bucketBytes(t, w); size != 0 || limit != claimcheck.DefaultMaxBytes {
		t.Fatalf("at start the bucket holds %v bytes of %v, want 0 of %d", size, limit, claimcheck.DefaultMaxBytes)
	}
	empty := func(what string) {
		t.Helper()
		servicetest.WaitFor(t, 20*time.Second, "the claim-check bucket empty after "+what, func() bool {
			size, _ := bucketBytes(t, w)
			return size == 0
		})
	}
	big := bytes.Repeat([]byte("claim checks are deleted once read\n"), 50_000) // 1.75 MB
	w.PutArtifact("big", "text/plain", "big.txt", big)
	rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "big", ServiceID: "text-model"})
	if !rep.OK || res.Content != string(big) {
		t.Fatalf("claim-checked reply: %+v", rep.Error)
	}
	empty("a claim-checked reply")

	content := strings.Repeat("a request too large for one message\n", 40_000) // 1.4 MB
	ws := "cc-" + randomHex(4)
	if rep := w.Call(contracts.SubjectFileWritten, contracts.FileWrittenRequest{RequestID: ws, WorkspaceID: ws, Path: "big.txt", MimeType: "text/plain", Content: &content}); !rep.OK {
		t.Fatalf("claim-checked request: %+v", rep.Error)
	}
	empty("a claim-checked request")

	body, _ := json.Marshal(contracts.FileWrittenRequest{RequestID: ws + "-late", WorkspaceID: ws, Path: "late.txt", MimeType: "text/plain", Content: &content})
	if rep := callWithDeadline(t, w, contracts.SubjectFileWritten, body, contracts.FormatDeadline(time.Now().Add(-time.Second))); rep.OK || rep.Error.Code != contracts.CodeExpired {
		t.Fatalf("expired claim-checked request: %+v", rep)
	}
	empty("an expired claim-checked request")
}

// TestFullClaimBucket: a reply that does not fit the bucket's limit is retried, then answered
// unavailable saying the bucket is full, and counted.
func TestFullClaimBucket(t *testing.T) {
	t.Parallel()
	w := startWorker(t, func(c *service.Config) { c.ClaimMaxBytes = 1 << 20; c.MaxDeliver = 2 })
	big := bytes.Repeat([]byte("too large for a 1 MiB bucket\n"), 50_000) // 1.45 MB
	w.PutArtifact("big", "text/plain", "big.txt", big)
	rep, _ := getArtifact(t, w, contracts.GetArtifactRequest{Ref: "big", ServiceID: "text-model"})
	if rep.OK || rep.Error.Code != contracts.CodeUnavailable || !rep.Error.Retryable || !strings.Contains(rep.Error.Message, "is full") {
		t.Fatalf("reply over the bucket's limit: %+v, want unavailable saying the bucket is full", rep.Error)
	}
	if v, _ := value(scrape(t, w), "worker_claim_check_full_total", nil); v < 1 {
		t.Errorf("worker_claim_check_full_total %v, want at least 1", v)
	}
	if _, limit := bucketBytes(t, w); limit != 1<<20 {
		t.Errorf("limit %v, want %d", limit, 1<<20)
	}
}
