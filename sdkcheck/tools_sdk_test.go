package sdkcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/tooldefs"
)

// TestToolDefinitionsOpenAIAnthropic decodes the shipped definitions (contracts/tools) into the OpenAI
// and Anthropic SDKs' tool types: each is a
// function tool with our name, description and parameters, and it encodes back to the same JSON
// (nothing the SDK does not know, nothing it drops).
func TestToolDefinitionsOpenAIAnthropic(t *testing.T) {
	for _, l := range contracts.Locales {
		tools := tooldefs.Tools(l)
		check := func(dialect string, decoded any, each func(i int) (name, desc string, params any, ok bool)) {
			raw, err := os.ReadFile(filepath.Join("..", "contracts", "tools", dialect+"."+l+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, decoded); err != nil {
				t.Fatalf("%s %s: %v", dialect, l, err)
			}
			for i, want := range tools {
				name, desc, params, ok := each(i)
				if !ok || name != want.Name || desc != want.Description {
					t.Errorf("%s %s tool %d: function %v, name %q, description %q", dialect, l, i, ok, name, desc)
				}
				pj, _ := json.Marshal(params)
				wj, _ := json.Marshal(want.Parameters)
				if !sameJSON(t, pj, wj) {
					t.Errorf("%s %s %s: parameters %s, want %s", dialect, l, want.Name, pj, wj)
				}
			}
			again, err := json.Marshal(reflect.ValueOf(decoded).Elem().Interface())
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, again, raw) {
				t.Errorf("%s %s: the SDK type encodes %s, want %s", dialect, l, again, raw)
			}
		}

		var chat []openai.ChatCompletionToolUnionParam
		check(tooldefs.DialectOpenAIChat, &chat, func(i int) (string, string, any, bool) {
			f := chat[i].OfFunction
			if f == nil {
				return "", "", nil, false
			}
			return f.Function.Name, f.Function.Description.Value, f.Function.Parameters, true
		})
		var resp []responses.ToolUnionParam
		check(tooldefs.DialectOpenAIResponses, &resp, func(i int) (string, string, any, bool) {
			f := resp[i].OfFunction
			if f == nil {
				return "", "", nil, false
			}
			return f.Name, f.Description.Value, f.Parameters, true
		})
		var anth []anthropic.ToolUnionParam
		check(tooldefs.DialectAnthropic, &anth, func(i int) (string, string, any, bool) {
			f := anth[i].OfTool
			if f == nil {
				return "", "", nil, false
			}
			schema := map[string]any{"type": "object", "properties": f.InputSchema.Properties, "required": f.InputSchema.Required}
			return f.Name, f.Description.Value, schema, true
		})
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}
