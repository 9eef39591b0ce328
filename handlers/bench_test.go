package handlers_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/handling"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/pdfpages/pdfpagestest"
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
				res, err := h.Handle(ctx, handling.Request{RequestID: "b", Body: body})
				if err != nil {
					b.Fatal(err)
				}
				if !bytes.Contains(res.(handling.Encoded)[:200], []byte(`"routing":"image_url"`)) {
					b.Fatalf("the image was not routed to the model: %.200s", res.(handling.Encoded))
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(img)), "alloc-bytes/artifact-byte")
		})
	}
}

// BenchmarkPreprocessRequest measures what the worker does with one context.preprocess body of the
// issue's size (20 turns, ten distinct ~500 KB PNGs as data URLs, about 6.8 MB of JSON) besides
// NATS and the store: the envelope decoder (request_id), the handler's decoding and checks, and
// historyimage.Preprocess with an in-memory cache, up to the encoded result.
func BenchmarkPreprocessRequest(b *testing.B) {
	ctx := context.Background()
	var msgs bytes.Buffer
	msgs.WriteString("[")
	for i := range 10 {
		if i > 0 {
			msgs.WriteString(",")
		}
		png := testfiles.NoisyPNG(300, 300+i)
		png = append(png, bytes.Repeat([]byte{byte(i)}, 500<<10-len(png))...)
		fmt.Fprintf(&msgs, `{"role":"user","content":[{"type":"text","text":"Turn %d: what changed in this screenshot?"},`+
			`{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},`, i, base64.StdEncoding.EncodeToString(png))
		fmt.Fprintf(&msgs, `{"role":"assistant","content":"In turn %d the dialog moved to the left and the button turned blue."}`, i)
	}
	msgs.WriteString("]")
	body, _ := json.Marshal(map[string]any{"request_id": "pp-1", "messages": json.RawMessage(msgs.Bytes())})
	h := &handlers.Preprocess{Cache: memCache{}}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		id, err := handlers.DecodeEnvelope(body)
		if err != nil || id != "pp-1" {
			b.Fatalf("DecodeEnvelope: %q, %v", id, err)
		}
		res, err := h.Handle(ctx, handling.Request{RequestID: id, Body: body})
		if err != nil {
			b.Fatal(err)
		}
		if !bytes.Contains(res.(handling.Encoded), []byte(`"images_replaced":9`)) {
			b.Fatalf("not nine images replaced: %s", res.(handling.Encoded)[len(res.(handling.Encoded))-200:])
		}
	}
}

func (m memCache) Get(_ context.Context, md5 string) (historyimage.Image, error) {
	memCacheMu.Lock()
	defer memCacheMu.Unlock()
	img, ok := m[md5]
	if !ok {
		return historyimage.Image{}, historyimage.ErrNotFound
	}
	return img, nil
}

// BenchmarkGetHistoryImage measures one get_history_image (media "assembly", a vision model with the
// default limits) of a cached ~3 MB PNG that goes as it is, and of one that is downscaled, from the
// cache to the result: alloc-bytes/image-byte is what a request allocates relative to the image. An
// image that goes as it is is recognised from its first bytes, its base64 sent as cached.
func BenchmarkGetHistoryImage(b *testing.B) {
	ctx := context.Background()
	for _, tt := range []struct {
		name    string
		png     []byte
		actions bool
	}{
		{"unchanged", testfiles.NoisyPNG(900, 900), false},
		{"downscaled", testfiles.NoisyPNG(2200, 200), true},
	} {
		b.Run(tt.name, func(b *testing.B) {
			data := base64.StdEncoding.EncodeToString(tt.png)
			sum := md5.Sum([]byte(data))
			id := hex.EncodeToString(sum[:])
			h := &handlers.GetHistoryImage{Cache: memCache{id: {Data: data, MimeType: "image/png"}}}
			body, _ := json.Marshal(map[string]any{"request_id": "b", "image_md5": id, "capabilities": []string{"vision"}, "media": "assembly"})
			b.SetBytes(int64(len(tt.png)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				res, err := h.Handle(ctx, handling.Request{RequestID: "b", Body: body})
				if err != nil {
					b.Fatal(err)
				}
				if p := res.(contracts.GetHistoryImageResult).ImageProcessing; p == nil || (len(p.Actions) > 0) != tt.actions {
					b.Fatalf("image processing %+v, want actions: %v", p, tt.actions)
				}
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(tt.png)), "alloc-bytes/image-byte")
		})
	}
}

// BenchmarkGetArtifact20Pages measures the whole answer of a get_artifact of a 50-page PDF for a model
// that reads images but takes no PDF (capabilities text and vision, the Anthropic dialect's image
// limits): the store read, pages 1-20 drawn and encoded with their text layers, the result assembled
// and encoded. In the same loop pdftoppm draws the same 20 pages at the same pixel size as PNG, so
// x-pdftoppm (the answer's time over pdftoppm's) is a ratio of one run.
func BenchmarkGetArtifact20Pages(b *testing.B) {
	ctx := context.Background()
	path, err := filepath.Abs("../extract/testdata/long.pdf")
	if err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	store, err := objectstore.NewLocal(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if _, err := store.Put(ctx, objectstore.ArtifactKey("long.pdf"), bytes.NewReader(data), int64(len(data)), "application/pdf", map[string]string{"filename": "long.pdf"}); err != nil {
		b.Fatal(err)
	}
	renderer := pdfpagestest.Renderer(b)
	if err := renderer.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	h := &handlers.GetArtifact{Blobs: store, MaxSize: 20 << 20, Pages: renderer}
	body, _ := json.Marshal(map[string]any{"request_id": "b", "ref": "long.pdf", "capabilities": []string{"text", "vision"}, "dialect": "anthropic"})
	answer := func() contracts.GetArtifactResult {
		out, err := h.Handle(ctx, handling.Request{RequestID: "b", Body: body})
		if err != nil {
			b.Fatal(err)
		}
		var res contracts.GetArtifactResult
		if err := json.Unmarshal(out.(handling.Encoded), &res); err != nil {
			b.Fatal(err)
		}
		return res
	}
	res := answer()
	if res.Pages == nil || len(res.Pages.Images) != 20 {
		b.Fatalf("routing %s: want 20 page images, got %+v", res.Routing, res.Pages)
	}
	sent := res.Pages.Images[0].ImageProcessing.Sent
	var worker, anchor time.Duration
	for b.Loop() {
		start := time.Now()
		answer()
		mid := time.Now()
		pdfpagestest.Pdftoppm(b, path, 1, 20, sent.Width, sent.Height)
		worker, anchor = worker+mid.Sub(start), anchor+time.Since(mid)
	}
	b.ReportMetric(float64(worker.Milliseconds())/float64(b.N), "answer-ms")
	b.ReportMetric(float64(anchor.Milliseconds())/float64(b.N), "pdftoppm-ms")
	b.ReportMetric(float64(worker)/float64(anchor), "x-pdftoppm")
	b.ReportMetric(float64(sent.Width*sent.Height)/1e6, "MP/page")
}
