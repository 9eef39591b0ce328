package routing_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

func ExampleRoute() {
	// Text goes to the model verbatim.
	text := routing.Route(routing.Input{ID: "a1", Filename: "notes.md", Content: []byte("# 标题\n")})
	fmt.Printf("%s/%s %q\n", text.ContentType, text.Routing, text.Content)

	// A PDF for a model without the file capability is described, never base64-encoded.
	pdf := routing.Route(routing.Input{
		ID: "a2", Filename: "report.pdf", DeclaredMIME: "application/pdf", Content: testfiles.PDF(),
		Capabilities: routing.NewCapabilities("text", "vision"), Locale: "en",
	})
	fmt.Printf("%s/%s\n%s\n", pdf.ContentType, pdf.Routing, pdf.Content)

	// PNG bytes declared as text are still an image.
	img := routing.Route(routing.Input{
		ID: "a3", Filename: "chart", DeclaredMIME: "text/plain", Content: testfiles.PNG(2, 2),
		Capabilities: routing.NewCapabilities("vision"),
	})
	fmt.Println(img.ContentType, img.Routing, strings.HasPrefix(img.ImageURL.ImageURL.URL, "data:image/png;base64,"))
	fmt.Println(img.Content)
	// Output:
	// text/text "# 标题\n"
	// binary/text
	// [Cannot read] report.pdf (artifact:a2)
	// Type: PDF document
	// Size: 585 B
	// The current model does not support reading this type of file. Consider creating an agent with the required capability to handle it.
	// image image_url true
	// 工件内容 (chart):
}

func ExampleAssemble() {
	r := routing.Route(routing.Input{
		ID: "a3", Filename: "chart.png", Content: testfiles.PNG(2, 2),
		Capabilities: routing.NewCapabilities("vision"), Locale: "en",
	})

	// OpenAI chat: the tool message is text; the image follows in a user message.
	oa := routing.Assemble(r, contracts.DialectOpenAIChat, "en", routing.Formats{})
	fmt.Println(string(oa.ToolContent))
	var parts []struct{ Type string }
	_ = json.Unmarshal(oa.FollowUp[0].Content, &parts)
	fmt.Println(oa.FollowUp[0].Role, parts)

	// Anthropic: the image goes inside the tool_result content.
	an := routing.Assemble(r, contracts.DialectAnthropic, "en", routing.Formats{})
	var blocks []struct{ Type string }
	_ = json.Unmarshal(an.ToolContent, &blocks)
	fmt.Println(blocks, len(an.FollowUp))
	// Output:
	// "Artifact content (chart.png):\nThe content follows in the next message."
	// user [{text} {image_url}]
	// [{text} {image}] 0
}
