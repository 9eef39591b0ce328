package client_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
)

// TestTurnOpenAIChatOrder: with several calls, every tool message comes before the first
// follow-up, and follow-ups keep call order (OpenAI rejects a user message between tool messages
// that answer one assistant turn).
func TestTurnOpenAIChatOrder(t *testing.T) {
	media := func(text string) contracts.Assembly {
		return contracts.Assembly{Dialect: "openai-chat", ToolContent: json.RawMessage(`"` + text + `"`),
			FollowUp: []contracts.ChatMessage{{Role: "user", Content: json.RawMessage(`[{"type":"text","text":"media of ` + text + `"}]`)}}}
	}
	text := contracts.Assembly{Dialect: "openai-chat", ToolContent: json.RawMessage(`"plain"`)}
	for _, calls := range [][]contracts.Assembly{{media("a"), media("b")}, {media("a"), text, media("c")}} {
		var results []client.ToolResult
		for i, a := range calls {
			results = append(results, client.ToolResult{CallID: string(rune('1' + i)), Assembly: a})
		}
		turn, err := client.Turn(results)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range turn {
			var msg struct {
				Role       string          `json:"role"`
				ToolCallID string          `json:"tool_call_id"`
				Content    json.RawMessage `json:"content"`
			}
			if err := json.Unmarshal(m, &msg); err != nil {
				t.Fatal(err)
			}
			got = append(got, msg.Role+":"+msg.ToolCallID+string(msg.Content))
		}
		want := []string{}
		for i, a := range calls {
			want = append(want, "tool:"+string(rune('1'+i))+string(a.ToolContent))
		}
		for _, a := range calls {
			for _, f := range a.FollowUp {
				want = append(want, "user:"+string(f.Content))
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("turn:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestTurnGeminiOrder: the function responses of a turn go together in the first content, with
// their ids and names, and the follow-ups (media for Gemini 2.x) come after it in call order.
func TestTurnGeminiOrder(t *testing.T) {
	media := func(text string) contracts.Assembly {
		return contracts.Assembly{Dialect: "gemini", ToolContent: json.RawMessage(`{"response":{"output":"` + text + `"}}`),
			FollowUp: []contracts.ChatMessage{{Role: "user", Parts: json.RawMessage(`[{"text":"media of ` + text + `"}]`)}}}
	}
	text := contracts.Assembly{Dialect: "gemini", ToolContent: json.RawMessage(`{"response":{"output":"plain"}}`)}
	results := []client.ToolResult{{CallID: "1", Name: "f", Assembly: media("a")}, {CallID: "2", Name: "g", Assembly: text}, {CallID: "3", Name: "f", Assembly: media("c")}}
	turn, err := client.Turn(results)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"role":"user","parts":[{"functionResponse":{"id":"1","name":"f","response":{"output":"a"}}},{"functionResponse":{"id":"2","name":"g","response":{"output":"plain"}}},{"functionResponse":{"id":"3","name":"f","response":{"output":"c"}}}]}`,
		`{"role":"user","parts":[{"text":"media of a"}]}`,
		`{"role":"user","parts":[{"text":"media of c"}]}`,
	}
	var got []string
	for _, m := range turn {
		got = append(got, string(m))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("turn:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestTurnErrors(t *testing.T) {
	ok := contracts.Assembly{Dialect: "anthropic", ToolContent: json.RawMessage(`[]`)}
	tests := map[string][]client.ToolResult{
		"no results":     nil,
		"mixed dialects": {{CallID: "1", Assembly: ok}, {CallID: "2", Assembly: contracts.Assembly{Dialect: "openai-chat", ToolContent: json.RawMessage(`"x"`)}}},
		"no call id":     {{Assembly: ok}},
		"no content":     {{CallID: "1", Assembly: contracts.Assembly{Dialect: "anthropic"}}},
		"gemini no name": {{CallID: "1", Assembly: contracts.Assembly{Dialect: "gemini", ToolContent: json.RawMessage(`{"response":{"output":""}}`)}}},
		"gemini follow-up without parts": {{CallID: "1", Name: "f", Assembly: contracts.Assembly{Dialect: "gemini", ToolContent: json.RawMessage(`{"response":{"output":""}}`),
			FollowUp: []contracts.ChatMessage{{Role: "user", Content: json.RawMessage(`"x"`)}}}}},
		"gemini not obj": {{CallID: "1", Name: "f", Assembly: contracts.Assembly{Dialect: "gemini", ToolContent: json.RawMessage(`"x"`)}}},
		"unknown":        {{CallID: "1", Assembly: contracts.Assembly{Dialect: "cobol", ToolContent: json.RawMessage(`"x"`)}}},
	}
	for name, results := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := client.Turn(results); !errors.Is(err, client.ErrTurn) {
				t.Errorf("err = %v, want ErrTurn", err)
			}
		})
	}
}

// TestTurnFailedAnthropic: a failed call's tool_result is marked is_error, the others are not.
func TestTurnFailedAnthropic(t *testing.T) {
	a := contracts.Assembly{Dialect: "anthropic", ToolContent: json.RawMessage(`[{"type":"text","text":"x"}]`)}
	turn, err := client.Turn([]client.ToolResult{{CallID: "1", Assembly: a}, {CallID: "2", Assembly: a, Failed: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"1","content":[{"type":"text","text":"x"}]},` +
		`{"type":"tool_result","tool_use_id":"2","content":[{"type":"text","text":"x"}],"is_error":true}]}`
	if len(turn) != 1 || string(turn[0]) != want {
		t.Errorf("turn = %s, want %s", turn, want)
	}
}

// TestTurnFailedBedrock: a failed call's toolResult has status "error", the others "success"
// (Bedrock Converse's ToolResultStatus).
func TestTurnFailedBedrock(t *testing.T) {
	a := contracts.Assembly{Dialect: "bedrock-converse", ToolContent: json.RawMessage(`[{"text":"x"}]`)}
	turn, err := client.Turn([]client.ToolResult{{CallID: "1", Assembly: a}, {CallID: "2", Assembly: a, Failed: true}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":[{"toolResult":{"toolUseId":"1","content":[{"text":"x"}],"status":"success"}},` +
		`{"toolResult":{"toolUseId":"2","content":[{"text":"x"}],"status":"error"}}]}`
	if len(turn) != 1 || string(turn[0]) != want {
		t.Errorf("turn = %s, want %s", turn, want)
	}
}
