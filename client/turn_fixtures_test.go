package client_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/routing"
)

var updateTurns = flag.Bool("update", false, "rewrite clients/js/test/testdata/turns.json from client.Turn")

// turnsFile holds the turns client.Turn returns, for the JavaScript client's assembleTurn to
// return the same (clients/js/test/turns.test.js).
var turnsFile = filepath.Join("..", "clients", "js", "test", "testdata", "turns.json")

// turnCase is one assistant turn: the calls as the JavaScript client sees them, and client.Turn's answer.
type turnCase struct {
	Name    string            `json:"name"`
	Dialect string            `json:"dialect"`
	Calls   []turnCall        `json:"calls"`
	Turn    []json.RawMessage `json:"turn"`
	// Limits and Locale, when set, are the options of the turn (TurnWith; assembleTurn's limits
	// and locale).
	Limits *contracts.RequestLimits `json:"limits,omitempty"`
	Locale string                   `json:"locale,omitempty"`
}

// turnCall is a call that succeeded (Assembly) or failed (Error: a worker error with its
// assembly, or without code and assembly a client-side error such as a timeout).
type turnCall struct {
	ID       string              `json:"id"`
	Name     string              `json:"name"`
	Assembly *contracts.Assembly `json:"assembly,omitempty"`
	Error    *turnError          `json:"error,omitempty"`
}

type turnError struct {
	Code     string              `json:"code,omitempty"`
	Message  string              `json:"message"`
	Ref      string              `json:"ref,omitempty"`
	Assembly *contracts.Assembly `json:"assembly,omitempty"`
}

// A 1x1 PNG and a tiny PDF, as the worker routes them.
const (
	pngData = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	pdfData = "JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK"
)

// turnCases: two and three parallel calls in every dialect (gemini with both toolResultMedia
// values), each with a failed call answered by its error.assembly, and a call that failed in the
// client (no assembly: its message is sent).
func turnCases(t *testing.T) []turnCase {
	t.Helper()
	image := contracts.ContentRouteResult{ContentType: "binary", Routing: contracts.RouteImageURL, Content: "工件内容 (chart.png):",
		ImageURL: &contracts.ImageURLPart{Type: "image_url", ImageURL: contracts.ImageURL{URL: "data:image/png;base64," + pngData}}}
	pdf := contracts.ContentRouteResult{ContentType: "binary", Routing: contracts.RouteFile, Content: "工件内容 (Q3 report.pdf):",
		File: &contracts.FilePart{Type: "file", File: contracts.FileData{Filename: "Q3 report.pdf", MimeType: "application/pdf", Data: pdfData}}}
	text := contracts.ContentRouteResult{ContentType: "text", Routing: contracts.RouteText, Content: "# Notes\nShip on Friday."}
	notFound := `{"error":"artifact_not_found","ref":"artifact:gone","message":"工件不存在或已被删除"}`

	// gemini twice: media inside the functionResponse (Gemini 3) and in follow-up contents (older models).
	type variant struct{ dialect, toolResultMedia, name string }
	var variants []variant
	for _, d := range contracts.Dialects {
		if d == contracts.DialectGemini {
			variants = append(variants, variant{d, routing.ToolResultMediaInline, d + " (inline)"}, variant{d, routing.ToolResultMediaFollowUp, d + " (followUp)"})
			continue
		}
		variants = append(variants, variant{d, "", d})
	}
	var cases []turnCase
	for _, v := range variants {
		d := v.dialect
		ok := func(id string, r contracts.ContentRouteResult) turnCall {
			a := routing.Assemble(r, d, "", routing.Formats{ToolResultMedia: v.toolResultMedia})
			return turnCall{ID: id, Name: "get_artifact", Assembly: &a}
		}
		failed := func(id string) turnCall {
			a := routing.AssembleText(notFound, d)
			return turnCall{ID: id, Name: "get_artifact", Error: &turnError{Code: "artifact_not_found", Message: "工件不存在或已被删除", Ref: "artifact:gone", Assembly: &a}}
		}
		timedOut := turnCall{ID: "call_t", Name: "get_history_image", Error: &turnError{Message: "tool.get_history_image r9: no reply within 60000 ms"}}
		// Over the limits: the first image fits, the PDF would pass the bytes, the second image the count.
		tight := &contracts.RequestLimits{MaxImages: 1, MaxBytes: int64(len(pngData)) + 10}
		for _, c := range []struct {
			name   string
			calls  []turnCall
			limits *contracts.RequestLimits
			locale string
		}{
			{"2 calls", []turnCall{ok("call_1", image), failed("call_2")}, nil, ""},
			{"3 calls", []turnCall{ok("call_1", pdf), failed("call_2"), ok("call_3", image)}, nil, ""},
			{"3 calls, one timed out", []turnCall{ok("call_1", text), timedOut, ok("call_3", pdf)}, nil, ""},
			{"the same PDF read twice", []turnCall{ok("call_1", pdf), ok("call_2", pdf), failed("call_3")}, nil, ""},
			{"4 calls over the request limits", []turnCall{ok("call_1", image), ok("call_2", pdf), failed("call_3"), ok("call_4", image)}, tight, contracts.LocaleEN},
		} {
			var results []client.ToolResult
			for _, call := range c.calls {
				r := client.ToolResult{CallID: call.ID, Name: call.Name}
				switch {
				case call.Assembly != nil:
					r.Assembly = *call.Assembly
				case call.Error.Assembly != nil:
					r.Assembly, r.Failed = *call.Error.Assembly, true
				default: // what the model reads for an error the worker did not answer: its message
					r.Assembly, r.Failed = routing.AssembleText(call.Error.Message, d), true
				}
				results = append(results, r)
			}
			turn, err := client.TurnWith(results, client.TurnOptions{Limits: c.limits, Locale: c.locale})
			if err != nil {
				t.Fatalf("%s %s: %v", d, c.name, err)
			}
			cases = append(cases, turnCase{Name: v.name + "/" + c.name, Dialect: d, Calls: c.calls, Turn: turn, Limits: c.limits, Locale: c.locale})
		}
	}
	return cases
}

// TestTurnFixtures: clients/js/test/testdata/turns.json is what client.Turn returns today, so the
// JavaScript client's test holds assembleTurn to the Go client's output. Run with -update after
// changing Turn or the assemblies.
func TestTurnFixtures(t *testing.T) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(turnCases(t)); err != nil {
		t.Fatal(err)
	}
	if *updateTurns {
		if err := os.WriteFile(turnsFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(turnsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("%s is not what client.Turn returns: go test ./client -run TestTurnFixtures -update", turnsFile)
	}
}
