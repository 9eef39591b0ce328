package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
)

// memCache is a cache in memory. Preprocess writes several media at once, and parallel tests share
// one: Put and Get hold memCacheMu, and tests read it through Get.
type memCache map[string]historyimage.Image

var memCacheMu sync.Mutex

func (m memCache) Put(_ context.Context, md5 string, img historyimage.Image) error {
	memCacheMu.Lock()
	defer memCacheMu.Unlock()
	m[md5] = img
	return nil
}

// FuzzRequests sends arbitrary request bodies to the handlers that read outside input without NATS.
// Properties: each answers with a result or a permanent error (the store is local and up: nothing is
// transient) whose code is one of the contract's and never internal_error (a bug); a body that is not a JSON object is
// invalid_request; answering is deterministic (the same body gives the same answer); a result is
// JSON; get_artifact and artifact.metadata succeed only for the one stored artifact.
func FuzzRequests(f *testing.F) {
	ctx := context.Background()
	store, err := objectstore.NewLocal(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	png := testfiles.PNG(4, 4)
	_, _ = store.Put(ctx, objectstore.ArtifactKey("a"), bytes.NewReader(png), int64(len(png)), "image/png", nil)
	get := &handlers.GetArtifact{Blobs: store, MaxSize: 1 << 20}
	meta := &handlers.Metadata{Artifacts: &handlers.Artifacts{Blobs: store}}
	pre := &handlers.Preprocess{Cache: memCache{}}
	for _, seed := range []string{
		`{"request_id":"1","ref":"artifact:a","capabilities":["vision"],"dialect":"anthropic","locale":"en"}`,
		`{"request_id":"1","ref":"ws:w:YS50eHQ"}`,
		`{"request_id":"1","id":"a"}`,
		`{"request_id":"1","messages":[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]],["human","x"]]}`,
		`{"request_id":"1","ref":42}`, `[]`, `null`, `{"request_id":"1","ref":"../../x"}`,
		"{\"request_id\":\"1\",\"ref\":\"a\xff\"}", `{"request_id":"1","Ref":"a","serviceId":"x"}`, `{"request_id":"1","id":"a\ud800"}`,
		`{"request_id":"1","messages":[["human",[{"type":"image","base64":"QUJD"}]],["human","x"]]}`,
	} {
		f.Add([]byte(seed))
	}
	handlersBySubject := []struct {
		subject string
		h       handling.Handler
		refKey  string // the field naming the artifact; "" when the handler reads none
	}{
		{contracts.SubjectGetArtifact, get.Handle, "ref"},
		{contracts.SubjectMetadata, meta.Handle, "id"},
		{contracts.SubjectPreprocess, pre.Handle, ""},
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var obj map[string]json.RawMessage
		isObject := json.Unmarshal(body, &obj) == nil && obj != nil
		for _, hs := range handlersBySubject {
			answer := func() (string, string) {
				res, err := hs.h(ctx, handling.Request{Subject: hs.subject, RequestID: "1", Body: bytes.Clone(body)})
				if err == nil {
					if res == nil {
						t.Fatalf("%s: no result and no error", hs.subject)
					}
					out, merr := json.Marshal(res)
					if merr != nil || !json.Valid(out) {
						t.Fatalf("%s: result does not encode: %v", hs.subject, merr)
					}
					return "ok", string(out)
				}
				wire, transient := handlers.MapError(err)
				var we *contracts.Error
				switch {
				case wire == nil || !slices.Contains(contracts.ErrorCodes, wire.Code):
					t.Fatalf("%s: error %v maps to %+v, not a contract code", hs.subject, err, wire)
				case wire.Code == contracts.CodeInternal:
					t.Fatalf("%s: %v is an internal error (a bug), not an answer to bad input", hs.subject, err)
				case errors.As(err, &we) && wire.Code != we.Code:
					t.Fatalf("%s: wire error %s mapped to %s", hs.subject, we.Code, wire.Code)
				case transient || wire.Retryable:
					t.Fatalf("%s: %v is transient with a local store that is up", hs.subject, err)
				case wire.Message == "":
					t.Fatalf("%s: error %s without a message", hs.subject, wire.Code)
				}
				return "error", wire.Code + ": " + wire.Message
			}
			kind, first := answer()
			if _, again := answer(); again != first {
				t.Fatalf("%s: two answers to the same body:\n%s\n%s", hs.subject, first, again)
			}
			if !isObject && kind == "ok" {
				t.Fatalf("%s: %q is not a JSON object but was answered", hs.subject, body)
			}
			if !isObject && !strings.HasPrefix(first, contracts.CodeInvalidRequest+":") {
				t.Fatalf("%s: %q is not a JSON object, answered %s", hs.subject, body, first)
			}
			if kind == "ok" && hs.refKey != "" {
				var ref string
				_ = json.Unmarshal(obj[hs.refKey], &ref)
				if id := strings.TrimPrefix(strings.TrimSpace(ref), "artifact:"); id != "a" {
					t.Fatalf("%s: %s %q answered, but only artifact a exists", hs.subject, hs.refKey, ref)
				}
			}
		}
	})
}
