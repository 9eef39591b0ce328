package dialects

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

func pdfOf(pages int) string {
	return base64.StdEncoding.EncodeToString([]byte("%PDF-1.4\n" + strings.Repeat("<< /Type /Page >>\n", pages) + "<< /Type /Pages >>\n%%EOF"))
}

// TestKeepWithinPDFPages: a request's PDFs keep to the page limit; the part that would pass it
// gives way to the note, and a later one that fits is still kept.
func TestKeepWithinPDFPages(t *testing.T) {
	if got := pdfPages(pdfOf(3)); got != 3 {
		t.Fatalf("pdfPages = %d, want 3 (/Pages is not a page)", got)
	}
	d, _ := Lookup(contracts.DialectAnthropic)
	doc := func(pages int) string {
		return `{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + pdfOf(pages) + `"}}`
	}
	msg := json.RawMessage(`{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[` + doc(60) + `,` + doc(50) + `,` + doc(40) + `]}]}`)
	out, n := d.Turn.KeepWithin([]json.RawMessage{msg}, contracts.RequestLimits{MaxPDFPages: 100}, "NOTE")
	if n != 1 || strings.Count(string(out[0]), `"type":"document"`) != 2 || !strings.Contains(string(out[0]), `{"type":"text","text":"NOTE"}`) {
		t.Errorf("omitted %d: %s", n, out[0])
	}
	if !json.Valid(out[0]) {
		t.Error("not JSON")
	}
	same, n := d.Turn.KeepWithin([]json.RawMessage{msg}, contracts.RequestLimits{MaxPDFPages: 150}, "NOTE")
	if n != 0 || string(same[0]) != string(msg) {
		t.Error("a turn within the limits was changed")
	}
}

// TestKeepWithinGeminiInline: media inside a function response is dropped (a text part is not
// allowed there), the parts member with it when none is left.
func TestKeepWithinGeminiInline(t *testing.T) {
	d, _ := Lookup(contracts.DialectGemini)
	img := `{"inlineData":{"mimeType":"image/png","data":"iVBORw0KGgo="}}`
	msg := json.RawMessage(`{"role":"user","parts":[{"functionResponse":{"id":"1","name":"f","parts":[` + img + `],"response":{"output":"a"}}},{"functionResponse":{"id":"2","name":"f","parts":[` + img + `],"response":{"output":"b"}}}]}`)
	out, n := d.Turn.KeepWithin([]json.RawMessage{msg}, contracts.RequestLimits{MaxImages: 1}, "NOTE")
	want := `{"role":"user","parts":[{"functionResponse":{"id":"1","name":"f","parts":[` + img + `],"response":{"output":"a"}}},{"functionResponse":{"id":"2","name":"f","response":{"output":"b"}}}]}`
	if n != 1 || string(out[0]) != want {
		t.Errorf("omitted %d:\n got %s\nwant %s", n, out[0], want)
	}
}

func TestUniqueDocumentNames(t *testing.T) {
	d, _ := Lookup(contracts.DialectBedrockConverse)
	content := json.RawMessage(`[{"text":"x"},{"document":{"format":"pdf","name":"report","source":{"bytes":"JVBE"}}}]`)
	got := d.Turn.UniqueDocumentNames(content, "tooluse_Ab-1")
	if want := `[{"text":"x"},{"document":{"format":"pdf","name":"report [tooluseAb-1]","source":{"bytes":"JVBE"}}}]`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if again := d.Turn.UniqueDocumentNames(got, "tooluse_Ab-1"); string(again) != string(got) {
		t.Errorf("not idempotent: %s", again)
	}
	long := json.RawMessage(`[{"document":{"format":"pdf","name":"` + strings.Repeat("a", 200) + `","source":{"bytes":"JVBE"}}}]`)
	var v []struct{ Document struct{ Name string } }
	_ = json.Unmarshal(d.Turn.UniqueDocumentNames(long, "c1"), &v)
	if n := v[0].Document.Name; len(n) > 200 || !strings.HasSuffix(n, " [c1]") {
		t.Errorf("long name %d chars: %q", len(n), n)
	}
	a, _ := Lookup(contracts.DialectAnthropic)
	if got := a.Turn.UniqueDocumentNames(content, "c1"); string(got) != string(content) {
		t.Error("a dialect without document names changed its content")
	}
}
