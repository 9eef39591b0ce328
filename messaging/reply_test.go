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

// Replies (and `worker replay --publish`) never go where a stream would store them or to system
// subjects.
func TestValidReplySubject(t *testing.T) {
	for s, want := range map[string]bool{
		"_INBOX.abc.def": true, "replay.out": true, "app.replies.7": true,
		"": false, "a..b": false, ".a": false, "a.": false, "a.*": false, "a.>": false, "a b": false,
		"$JS.API.INFO": false, "$KV.X.y": false,
		contracts.SubjectGetArtifact:                           false,
		contracts.DeadLetterPrefix + contracts.SubjectMetadata: false,
		"replay.results.WORKER_REQUESTS.1":                     false,
		contracts.RequestReplyPrefix + "tool.get_artifact":     false,
	} {
		if got := ValidReplySubject(s); got != want {
			t.Errorf("ValidReplySubject(%q) = %v, want %v", s, got, want)
		}
	}
}
