package handlers_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testfiles"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/objectstore"
)

type memCache map[string]historyimage.Image

func (m memCache) Put(_ context.Context, md5 string, img historyimage.Image) error {
	m[md5] = img
	return nil
}

// FuzzRequests sends arbitrary request bodies to the handlers that read outside input without NATS:
// each answers with a result or an error that maps to a wire code, and never panics.
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
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, h := range []messaging.Handler{get.Handle, meta.Handle, pre.Handle} {
			res, err := h(ctx, messaging.Request{RequestID: "1", Body: body})
			if err == nil {
				if res == nil {
					t.Fatal("no result and no error")
				}
				continue
			}
			wire, _ := handlers.MapError(err)
			var we *contracts.Error
			if wire == nil || wire.Code == "" || (errors.As(err, &we) && wire.Code != we.Code) {
				t.Fatalf("error %v maps to %+v", err, wire)
			}
		}
	})
}
