package sdkcheck

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	brtypes "github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	"google.golang.org/genai"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/tooldefs"
)

// The tool definitions `worker tools` prints (contracts/tools) for the dialects whose SDKs live
// here: Gemini's decode into genai.Tool and come back the same; Bedrock's are what the SDK sends
// as toolConfig.tools when given the same tools.
func TestToolDefinitions(t *testing.T) {
	for _, locale := range contracts.Locales {
		want := tooldefs.Tools(locale)
		read := func(dialect string) []byte {
			raw, err := os.ReadFile(filepath.Join("..", "contracts", "tools", dialect+"."+locale+".json"))
			if err != nil {
				t.Fatal(err)
			}
			return raw
		}

		raw := read(tooldefs.DialectGemini)
		var tools []*genai.Tool
		strictUnmarshal(t, raw, &tools)
		roundTrip(t, "gemini tools", raw, tools)
		if len(tools) != 1 || len(tools[0].FunctionDeclarations) != len(want) {
			t.Fatalf("gemini %s: %d tools, want one holding %d functions", locale, len(tools), len(want))
		}
		for i, f := range tools[0].FunctionDeclarations {
			if f.Name != want[i].Name || f.Description != want[i].Description || f.Parameters == nil || f.Parameters.Type != "object" || len(f.Parameters.Required) == 0 {
				t.Errorf("gemini %s function %d: %+v", locale, i, f)
			}
		}

		raw = read(tooldefs.DialectBedrockConverse)
		var specs []brtypes.Tool
		for _, tool := range want {
			specs = append(specs, &brtypes.ToolMemberToolSpec{Value: brtypes.ToolSpecification{
				Name: aws.String(tool.Name), Description: aws.String(tool.Description),
				InputSchema: &brtypes.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(tool.Parameters)},
			}})
		}
		assertJSONEqual(t, "bedrock toolConfig.tools as the SDK sends them", bedrockTools(t, specs), raw)
	}
}

// bedrockTools is the JSON the SDK sends for tools: toolConfig.tools of a Converse request body.
func bedrockTools(t reporter, tools []brtypes.Tool) json.RawMessage {
	t.Helper()
	capture := &captureHTTP{}
	c := bedrockruntime.New(bedrockruntime.Options{
		Region: "us-east-1", HTTPClient: capture, Retryer: aws.NopRetryer{},
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "example"}, nil // signs the captured request; nothing is sent
		}),
	})
	_, err := c.Converse(context.Background(), &bedrockruntime.ConverseInput{ModelId: aws.String("model"),
		Messages:   []brtypes.Message{{Role: brtypes.ConversationRoleUser, Content: []brtypes.ContentBlock{&brtypes.ContentBlockMemberText{Value: "hi"}}}},
		ToolConfig: &brtypes.ToolConfiguration{Tools: tools}})
	if !errors.Is(err, errCaptured) || capture.body == nil {
		t.Fatalf("the SDK did not serialise the tools: %v", err)
	}
	var body struct {
		ToolConfig struct {
			Tools json.RawMessage `json:"tools"`
		} `json:"toolConfig"`
	}
	mustUnmarshal(t, capture.body, &body)
	return body.ToolConfig.Tools
}
