package llmservices_test

import (
	"fmt"

	"github.com/agentworks/artifact-worker/llmservices"
)

// A model name as a Bedrock runtime writes it resolves to the catalogue's entry for the model,
// served by Bedrock; a name the registry does not know is text only.
func ExampleRegistry_Resolve() {
	r := llmservices.Default()
	e, ok := r.Resolve("us.anthropic.claude-3-5-sonnet-20240620-v1:0")
	fmt.Println(ok, e.ID, e.Provider, e.ServedBy, e.Source, e.Capabilities)
	fmt.Println(e.Rules)
	_, ok = r.Resolve("acme-model-9")
	fmt.Println(ok, r.Capabilities("acme-model-9"))
	// Output:
	// true claude-3-5-sonnet-20240620 anthropic bedrock catalogue [text vision file]
	// [Bedrock version suffix region or vendor prefix (us.) region or vendor prefix (anthropic.)]
	// false [text]
}
