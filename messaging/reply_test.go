package messaging

import (
	"encoding/json"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

func TestEncodeReplyMatchesJSONMarshal(t *testing.T) {
	for _, env := range []contracts.Reply{
		{RequestID: `id "quoted" <b>`, OK: true, Result: json.RawMessage(`{"a":[1,2],"b":"\u00e9"}`)},
		{RequestID: "e", Error: &contracts.Error{Code: "x", Message: "y"}},
		{RequestID: "empty", OK: true},
	} {
		parts, err := encodeReply(env)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, p := range parts {
			got = append(got, p...)
		}
		want, _ := json.Marshal(env)
		if string(got) != string(want) {
			t.Errorf("encodeReply = %s\n   json.Marshal = %s", got, want)
		}
	}
}
