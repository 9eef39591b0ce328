package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
)

// equivalenceSeeds are bodies on both sides of what envelopeOf and withoutRawValues take shortcuts
// for: valid objects with and without the large members, duplicates, case-folded spellings (the
// long s folds to an ASCII letter), escaped names, type errors next to the context,
// trailing data, invalid JSON and other kinds of value.
var equivalenceSeeds = []string{
	`{"request_id":"r","messages":[["human","hi"]]}`,
	`{"messages":[["human","hi"]],"request_id":"r","locale":"en"}`,
	`{"request_id":"r","messages":[1],"messages":[2]}`,
	`{"request_id":"r","messages":null}`,
	`{"request_id":"a","request_id":"b","messages":"x"}`,
	`{"request_id":"a","REQUEST_ID":"b","messages":{}}`,
	`{"request_id":"a","Messages":[1],"messages":[2]}`,
	`{"request_id":"a","meſſages":[1]}`,
	`{"request_id":"a","\u006dessages":[1]}`,
	`{"request_\u0069d":"a","messages":[1]}`,
	`{"requeſt_id":"a"}`,
	`{"request_id":"a","messages":[1],"locale":5}`,
	`{"request_id":7,"messages":[1],"locale":"x"}`,
	`{"locale":[],"messages":[{"role":"user","content":"\ud800"}]}`,
	`{"request_id":"a","messages":[1]} {}`,
	`{"request_id":"a","messages":[1]}}`,
	`{"request_id":"a","messages":[1]`,
	`{"request_id":"a","messages":}`,
	`[{"request_id":"a"}]`,
	`"request_id"`,
	`null`,
	``,
	` {"messages" : [ ] , "request_id" : "x" } `,
	"{\"request_id\":\"a\xff\",\"messages\":[\"\xfe\"]}",
	"{\"request_id\xff\":\"a\",\"messages\xff\":[1]}",
	`{"request_id":"x","messages":[]}}`, `{"request_id":"x"}]`,
}

// FuzzDecodeShortcuts: DecodeEnvelope's and decode's shortcuts around the large members of a body
// give exactly what encoding/json gives on the whole body (a json.Decoder, then nothing but white
// space after the value, for decode).
func FuzzDecodeShortcuts(f *testing.F) {
	for _, s := range equivalenceSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		type env struct {
			RequestID json.RawMessage `json:"request_id"`
		}
		var got, want env
		gotErr, wantErr := json.Unmarshal(envelopeOf(body), &got), json.Unmarshal(body, &want)
		if errString(gotErr) != errString(wantErr) || !reflect.DeepEqual(got, want) {
			t.Fatalf("envelope of %q: %q, %v; encoding/json: %q, %v", body, got.RequestID, gotErr, want.RequestID, wantErr)
		}

		var r, ref contracts.PreprocessRequest
		err := unmarshal(body, &r)
		dec := json.NewDecoder(bytes.NewReader(body))
		refErr := dec.Decode(&ref)
		if refErr == nil && len(bytes.TrimLeft(body[dec.InputOffset():], " \t\r\n")) != 0 {
			refErr = errTrailingData
		}
		if errString(err) != errString(refErr) {
			t.Fatalf("unmarshal(%q): %v; encoding/json: %v", body, err, refErr)
		}
		if err == nil && !reflect.DeepEqual(r, ref) {
			t.Fatalf("unmarshal(%q) = %+v; encoding/json: %+v", body, r, ref)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return "syntax: " + se.Error()
	}
	return err.Error()
}

// TestDecodeShortcutsTaken: the shortcuts are taken for a well-formed preprocess body (the point of
// them), and not for a body they cannot decode exactly.
func TestDecodeShortcutsTaken(t *testing.T) {
	var r contracts.PreprocessRequest
	if light, _ := withoutRawValues([]byte(`{"request_id":"r","messages":[["human","hi"]]}`), &r); string(light) != `{"request_id":"r","messages":null}` {
		t.Errorf("light body = %q", light)
	}
	for _, body := range []string{`{"request_id":"r","Messages":[1],"messages":[2]}`, `{"request_id":"r"}`, `{"messages":[1]`, `[1]`} {
		if light, _ := withoutRawValues([]byte(body), &r); light != nil {
			t.Errorf("withoutRawValues(%s) = %q, want nil (decode the body itself)", body, light)
		}
	}
	if env := envelopeOf([]byte(`{"a":[1,2],"request_id":"r","Request_Id":"s","b":"c"}`)); string(env) != `{"request_id":"r","Request_Id":"s"}` {
		t.Errorf("envelope = %s", env)
	}
}
