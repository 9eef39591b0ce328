package routing_test

import (
	"fmt"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/extract"
	"github.com/agentworks/artifact-worker/routing"
)

// A text-only model asked for the text of a PDF: Route describes it, extract reads it (here a
// Document as extract.Text returns it), WithExtractedText puts the text in place of the
// description.
func ExampleWithExtractedText() {
	res := routing.Route(routing.Input{ID: "a1", Filename: "report.pdf", DeclaredMIME: "application/pdf",
		Content: []byte("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"), Capabilities: routing.NewCapabilities(contracts.CapText)})
	fmt.Println(routing.Extractable(res))
	doc := extract.Document{Unit: extract.UnitPage, Total: 2, Read: 2, Chars: 35, Remaining: 120, Parts: []extract.Part{
		{Number: 1, Text: "Quarterly Report 季度报告"},
		{Number: 2, Text: "Page two: outlook"},
	}}
	res = routing.WithExtractedText(res, doc, contracts.LocaleEN)
	fmt.Println(res.Routing)
	fmt.Println(res.Content)
	// Output:
	// true
	// text
	// [Extracted text] report.pdf (artifact:a1)
	// --- Page 1 ---
	// Quarterly Report 季度报告
	// --- Page 2 ---
	// Page two: outlook
	// [Truncated: 120 more characters not shown (35 shown of 155)]
}
