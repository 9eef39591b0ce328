package routing_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// bigPDF is a PDF of about n bytes (one page of text operators).
func bigPDF(n int) []byte {
	return testfiles.PDFPage(strings.Repeat("BT /F1 12 Tf 20 40 Td (Hello) Tj ET\n", n/36))
}

// measureAlloc is the fewest bytes one call of f allocates in calls calls (the fewest: encoding/json
// reuses its buffers between calls, until a collection drops them).
func measureAlloc(calls int, f func()) uint64 {
	least := uint64(1<<64 - 1)
	for range calls {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// TestFileDataURLBuiltOnce: Route builds a PDF's data URL once, with file.data its tail, and
// Assemble puts that URL in the OpenAI dialects' file parts instead of building another copy of the
// base64: the assembly is byte for byte what it is for the same result read from JSON (where the URL
// is not: it is never on the wire), with about one copy of the base64 fewer allocated.
func TestFileDataURLBuiltOnce(t *testing.T) {
	res := routing.Route(routing.Input{ID: "a1", Filename: "r.pdf", Content: bigPDF(1 << 20), Capabilities: fileCap})
	if res.Routing != contracts.RouteFile {
		t.Fatalf("routing %s, want file", res.Routing)
	}
	f := res.File.File
	if f.DataURL != "data:application/pdf;base64,"+f.Data {
		t.Fatalf("DataURL %.60q is not data:application/pdf;base64,{data}", f.DataURL)
	}
	wire, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count(wire, []byte(f.Data[:64])) != 1 || bytes.Contains(wire, []byte("DataURL")) {
		t.Fatalf("the data URL is on the wire")
	}
	var read contracts.ContentRouteResult
	if err := json.Unmarshal(wire, &read); err != nil || read.File.File.DataURL != "" || read.File.File.Data != f.Data {
		t.Fatalf("read back: %v, DataURL %.20q", err, read.File.File.DataURL)
	}
	stale := res
	stale.File = &contracts.FilePart{Type: "file", File: f}
	stale.File.File.DataURL = "data:application/pdf;base64,JVBERi0xLjQK" // not the URL of Data: ignored
	for _, d := range contracts.Dialects {
		want, _ := json.Marshal(routing.Assemble(read, d, "", routing.Formats{}))
		for name, r := range map[string]contracts.ContentRouteResult{"routed": res, "stale DataURL": stale} {
			if got, _ := json.Marshal(routing.Assemble(r, d, "", routing.Formats{})); !bytes.Equal(got, want) {
				t.Errorf("%s, %s: the assembly differs from the one without the URL", d, name)
			}
		}
	}
	for _, d := range []string{contracts.DialectOpenAIChat, contracts.DialectOpenAIResponses} {
		shared := measureAlloc(10, func() { routing.Assemble(res, d, "", routing.Formats{}) })
		built := measureAlloc(10, func() { routing.Assemble(read, d, "", routing.Formats{}) })
		t.Logf("%s: Assemble of a %d-byte data URL allocates %d bytes (URL built: %d)", d, len(f.DataURL), shared, built)
		if built < shared+uint64(len(f.DataURL))*9/10 {
			t.Errorf("%s: Assemble allocates %d bytes with Route's URL, %d building it: want one URL (%d bytes) fewer", d, shared, built, len(f.DataURL))
		}
	}
}
