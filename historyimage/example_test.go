package historyimage_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentworks/artifact-worker/historyimage"
)

func ExamplePreprocess() {
	// The older human turn carries a 1x1 PNG and a part labelled image/png whose bytes are "hello":
	// the image is cached and replaced, the impostor stays as it is and is counted.
	messages := json.RawMessage(`[
  ["human", [{"type": "text", "text": "What is this?"}, {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}]],
  ["ai", "A pixel."],
  ["human", "Thanks!"]
]`)
	cache := newMemPutter() // production code passes a *historyimage.Cache
	out, stats, err := historyimage.Preprocess(context.Background(), messages, cache, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	fmt.Printf("replaced %d image, skipped %d part, removed %d bytes of base64\n", stats.ImagesReplaced, stats.PartsSkipped, stats.BytesRemoved)
	img := cache.images["d74c3b09387c6218d1d88b7418cb4aca"]
	fmt.Println("cached as:", img.MimeType)
	// Output:
	// [
	//   ["human", [{"type": "text", "text": "What is this?"}, {"type":"text","text":"[Picture:history_d74c3b09387c6218d1d88b7418cb4aca]"}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,aGVsbG8="}}]],
	//   ["ai", "A pixel."],
	//   ["human", "Thanks!"]
	// ]
	// replaced 1 image, skipped 1 part, removed 96 bytes of base64
	// cached as: image/png
}

func ExampleNormalizeID() {
	for _, id := range []string{"history_0733351879B2FA9BD05C7CA3061529C0", "[Picture:history_07333518]", "abc"} {
		md5, err := historyimage.NormalizeID(id)
		fmt.Printf("%q %v\n", md5, err)
	}
	// Output:
	// "0733351879b2fa9bd05c7ca3061529c0" <nil>
	// "07333518" <nil>
	// "" historyimage: invalid image identifier
}
