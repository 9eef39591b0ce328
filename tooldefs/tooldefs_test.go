package tooldefs_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/agentworks/artifact-worker/tooldefs"
)

// shipped is the file in contracts/tools holding dialect's definitions in locale.
func shipped(dialect, locale string) string {
	return filepath.Join("..", "contracts", "tools", dialect+"."+locale+".json")
}

// TestShippedFilesAreCurrent: the files in contracts/tools are what `worker tools` prints.
// ARTIFACT_WORKER_UPDATE_TOOLS=1 go test ./tooldefs rewrites them.
func TestShippedFilesAreCurrent(t *testing.T) {
	for _, d := range tooldefs.Dialects {
		for _, l := range []string{tooldefs.LocaleZH, tooldefs.LocaleEN} {
			want, err := tooldefs.Render(d, l)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, '\n')
			if os.Getenv("ARTIFACT_WORKER_UPDATE_TOOLS") != "" {
				if err := os.WriteFile(shipped(d, l), want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(shipped(d, l))
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("%s is not current (%v): run ARTIFACT_WORKER_UPDATE_TOOLS=1 go test ./tooldefs", shipped(d, l), err)
			}
		}
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

// TestSDKTypes decodes the shipped definitions into the official SDKs' tool types: each is a
// function tool with our name, description and parameters, and it encodes back to the same JSON
// (nothing the SDK does not know, nothing it drops).
func TestSDKTypes(t *testing.T) {
	for _, l := range []string{tooldefs.LocaleZH, tooldefs.LocaleEN} {
		tools := tooldefs.Tools(l)
		check := func(dialect string, decoded any, each func(i int) (name, desc string, params any, ok bool)) {
			raw, err := os.ReadFile(shipped(dialect, l))
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

func TestRenderRefusesUnknown(t *testing.T) {
	if _, err := tooldefs.Render("gemini-ultra", "zh"); err == nil {
		t.Error("unknown dialect accepted")
	}
	if _, err := tooldefs.Render(tooldefs.DialectAnthropic, "fr"); err == nil {
		t.Error("unknown locale accepted")
	}
}
