package historyimage_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/llmservices"
)

// TestPreprocessCountsMediaItCannotTakeOutAtTheIssuesSize is issue 28's case at its size: a
// 55.8 MB Anthropic session for claude-sonnet-4 whose two older screenshots are too large to cache
// (over MAX_ARTIFACT_BYTES, here 12 MiB, as the e2e test sets it) reports both in over_limits, against the 32 MB a
// request that the registry gives claude-sonnet-4 (Anthropic's limit), and keeps the latest one.
// The bytes are generated (a PNG header and zeros), never committed.
func TestPreprocessCountsMediaItCannotTakeOutAtTheIssuesSize(t *testing.T) {
	if testing.Short() {
		t.Skip("a 55.8 MB session")
	}
	const session = 55_800_000 // bytes of JSON, the issue's 55.8 MB
	const maxPart = 12 << 20   // MAX_ARTIFACT_BYTES
	limits := llmservices.Default().Formats("claude-sonnet-4", "").Request
	if limits.MaxBytes != 32<<20 {
		t.Fatalf("claude-sonnet-4's request limit is %d bytes, want Anthropic's 32 MB", limits.MaxBytes)
	}
	// Two screenshots of 20.9 MB each (27.9 MB of base64: a PNG header, zeros, a seed), a small
	// latest one. The session is built with short markers that are then replaced: encoding 56 MB
	// of JSON under -race takes seconds, a replacement does not.
	head := testfiles.PNG(160, 90) // a screenshot's header: what follows its end is not read
	head = append(head, make([]byte, (3-len(head)%3)%3)...)
	big := func(seed byte) string {
		return base64.StdEncoding.EncodeToString(head) + strings.Repeat("A", session/2-4*len(head)/3-8) +
			base64.StdEncoding.EncodeToString([]byte{0, 0, seed})
	}
	media := []string{big(1), big(2), base64.StdEncoding.EncodeToString(testfiles.PNG(64, 48))}
	markers := []string{"QUFBQUJJRzE=", "QUFBQUJJRzI=", media[2]}
	in := agentsession.Build(agentsession.Session{Dialect: contracts.DialectAnthropic, Task: "Watch the form.", Turns: len(media),
		Media: func(i int) agentsession.Media { return agentsession.Media{MIME: "image/png", Base64: markers[i]} }})
	for i := range 2 {
		in = bytes.Replace(in, []byte(markers[i]), []byte(media[i]), 1)
	}
	if len(in) < session || len(in) > session+100_000 {
		t.Fatalf("the session is %d bytes, want the issue's 55.8 MB", len(in))
	}
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	out, rep, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{
		Dialect: contracts.DialectAnthropic, KeepTurns: 1, MaxPartBytes: maxPart, Limits: limits})
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	total := len(media[0]) + len(media[1]) + len(media[2])
	want := fmt.Sprintf("the request's media are %d bytes of base64, over the provider's %d", total, 32<<20)
	if len(rep.OverLimits) != 2 || rep.OverLimits[0].Path != "messages[2].content[0].content[1]" {
		t.Fatalf("over_limits %+v, want both large screenshots", rep.OverLimits)
	}
	for _, o := range rep.OverLimits {
		if !strings.HasPrefix(o.Reason, "left in (") || !strings.HasSuffix(o.Reason, want) {
			t.Errorf("over_limits reason %q, want it left in and %q", o.Reason, want)
		}
	}
	if !strings.Contains(string(out), media[2]) || len(out) < session {
		t.Error("the latest screenshot or the large ones were taken out")
	}
	// Memory-bounded: the walk reads the session in place; it does not copy it per medium.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*session {
		t.Errorf("preprocessing the %d-byte session allocated %d bytes", len(in), alloc)
	}
	t.Logf("%d bytes of session, %d of media; %d KB allocated while preprocessing", len(in), total, (after.TotalAlloc-before.TotalAlloc)>>10)
}
