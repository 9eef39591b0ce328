package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"testing"

	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/internal/testfiles"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/objectstore"
)

// BenchmarkGetArtifactLargeImage measures one get_artifact of a ~23 MB PNG for a vision model, from
// the store to the encoded result (the image fitted to the model's limits), with one copy of the media
// (media "assembly") and with both: what a replica allocates per such request in flight, relative to
// the artifact's size (alloc-bytes/artifact-byte).
func BenchmarkGetArtifactLargeImage(b *testing.B) {
	ctx := context.Background()
	store, err := objectstore.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	img := testfiles.NoisyPNG(2400, 2400)
	if _, err := store.Put(ctx, objectstore.ArtifactKey("big"), bytes.NewReader(img), int64(len(img)), "image/png", nil); err != nil {
		b.Fatal(err)
	}
	h := &handlers.GetArtifact{Blobs: store, MaxSize: 64 << 20}
	for _, media := range []string{"assembly", "both"} {
		b.Run("media="+media, func(b *testing.B) {
			body, _ := json.Marshal(map[string]any{"request_id": "b", "ref": "big", "capabilities": []string{"text", "vision"}, "media": media})
			b.SetBytes(int64(len(img)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				res, err := h.Handle(ctx, messaging.Request{RequestID: "b", Body: body})
				if err != nil {
					b.Fatal(err)
				}
				if !bytes.Contains(res.(messaging.Encoded)[:200], []byte(`"routing":"image_url"`)) {
					b.Fatalf("the image was not routed to the model: %.200s", res.(messaging.Encoded))
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(img)), "alloc-bytes/artifact-byte")
		})
	}
}
